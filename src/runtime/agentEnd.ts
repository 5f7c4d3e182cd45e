// Every way an agent process ends: Force Stop, a shutdown (replacement, folder removal,
// deactivation) and its exit, by itself or because Reins ended it. A running turn goes through
// the one routine first, so its report is the one everybody awaits, and the exit is that
// routine's evidence; what a dead agent's process group left running is ended and said. The
// runtime (agentRuntime.ts) owns one; `dispose` there marks the end as requested too.
import { describeExit, type AgentProcess } from '../acp/agentProcess';
import type { AcpConnection, ConnectionClosed } from '../acp/connection';
import type { TerminalHost } from '../acp/clientMethods/terminals';
import type { Logger } from '../util/logger';
import type { ExitCleanup, StopReport } from './stopReport';
import type { TurnController } from './turnController';
import { turnActive, type StopCause } from './turnMachine';

/** What ending needs of the runtime it belongs to. */
export interface EndHost {
  readonly name: string;
  readonly log: Logger;
  readonly terminals: TerminalHost;
  /** The turn's side: the routine (stop, checkAgain), and the exit as its evidence (agentExited). */
  readonly turns: TurnController;
  proc(): AgentProcess | undefined;
  conn(): AcpConnection | undefined;
  /** The runtime was ready (a session existed) when the connection closed. */
  wasReady(): boolean;
  /** The connection closed: the runtime's phase says so (a failed start stays failed). */
  markExited(): void;
  exitCleanup(cleanup: ExitCleanup): void;
  exited(closed: ConnectionClosed & { requested: boolean }): void;
}

export class AgentEnd {
  /** Set when Reins itself ends the agent (force stop, shutdown, dispose): that exit is no failure. */
  requested = false;

  constructor(private readonly host: EndHost) {}

  /** Stop any turn (budget `budgetMs`), then end the agent's whole process tree. */
  async shutdown(cause: StopCause, budgetMs?: number): Promise<StopReport | undefined> {
    const { host } = this;
    let report: StopReport | undefined;
    if (host.turns.turn.phase !== 'idle') report = await host.turns.stop(cause, budgetMs);
    this.requested = true;
    await Promise.all([host.proc()?.end(), host.terminals.endAll(`shutdown (${cause})`)]);
    host.conn()?.dispose();
    return report;
  }

  /**
   * End the agent's whole process tree. A running turn goes through the routine first (so
   * its report is the one everybody awaits); the exit is its evidence.
   */
  async forceStop(): Promise<StopReport | undefined> {
    const { host } = this;
    const turn = host.turns.turn;
    const pending = turnActive(turn) ? host.turns.stop('user') : turn.phase === 'unverified' ? host.turns.checkAgain() : undefined;
    host.log.warn(`force stop: ending agent ${host.name} (pid ${host.proc()?.pid}) and its process tree`);
    this.requested = true;
    await Promise.all([host.proc()?.end(500), host.terminals.endAll('force stop')]);
    return pending;
  }

  /** The connection closed: the agent exited, or only its stream died. */
  connectionClosed(closed: ConnectionClosed): void {
    const { host } = this;
    // Its terminals are Reins' children, not its own: they do not die with it.
    void host.terminals.endAll(this.requested ? 'the agent was ended' : 'the agent exited');
    const wasReady = host.wasReady();
    host.markExited();
    if (!wasReady) return;
    const requested = this.requested;
    // A dead stream is an exit path like any other: through the routine. The exit (waited
    // for, or forced here when only the stream died) is its evidence.
    const stopping = host.turns.turn.phase !== 'idle' ? host.turns.stop('dead-stream') : undefined;
    void (async () => {
      const proc = host.proc();
      const exitedByItself = proc?.hasExited === true;
      // An agent that died leaves nothing of its group behind (a crashed agent's `sleep 60`
      // would run on under init): `end()` ends what is left and says what that was. When only
      // the stream died, it ends the agent itself.
      const ended = await proc?.end();
      const orphans = exitedByItself && !requested ? (ended?.ended ?? []) : [];
      host.turns.agentExited(ended ? describeExit(ended) : closed.detail);
      await stopping;
      if (orphans.length > 0) {
        host.log.info(`agent ${host.name} exited; ended ${orphans.length} process(es) it left: ${orphans.map((p) => `${p.pid} ${p.command}`).join('; ')}`);
        host.exitCleanup({ ended: orphans });
      }
      host.exited({ ...closed, requested: requested || this.requested });
    })();
  }
}
