// The turn controller: carries out the pure turn machine's effects (prompt and cancel sends,
// timers, permission answers, the turn's end, the stop report, the leftover check) for one
// agent. Every way a turn ends early comes through `stop(cause)`, which feeds the machine's
// single `stop` event; nothing else here sends session/cancel but the `sendCancel` effect.
// What it needs of the agent (its connection, session, pid, phase) comes through `TurnPort`.
import type { ContentBlock, RequestPermissionRequest, RequestPermissionResponse, SessionNotification } from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import { AgentExitedError, type AcpConnection } from '../acp/connection';
import type { ProcessInfo } from '../acp/processTree';
import { Deferred } from '../util/deferred';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { LeftoverWatch } from './leftovers';
import { looksOutOfStep } from './outOfStep';
import { Permissions } from './permissions';
import type { Quirks } from './quirks';
import { formatStopLine, type StopReport } from './stopReport';
import {
  initialState,
  transition,
  type Effect,
  type MachineEvent,
  type MachineState,
  type StopCause,
  type StopRecord,
  type TimerName,
  type TurnResult,
} from './turnMachine';

export interface TurnSettings {
  settleTimeoutMs: number;
  busyRetryMs: number;
  /** 0 = no limit. */
  turnTimeoutMs: number;
  /** 0 = no cap. The turn is stopped when a tool call beyond the cap starts. */
  maxToolCallsPerTurn: number;
  leftoverProcesses: 'ask' | 'end' | 'leave';
}

/** What the controller needs of the agent it drives. */
export interface TurnPort {
  readonly name: string;
  readonly log: Logger;
  readonly quirks: Quirks;
  settings(): TurnSettings;
  /** The connection and current session, when there are both. */
  link(): { conn: AcpConnection | undefined; sessionId: string | undefined };
  agentPid(): number | undefined;
  phase(): string;
  /** Pids of the terminals this turn created that are still in use (leftovers.ts says why). */
  turnTerminals?(turnId: number): number[];
}


export class TurnController {
  private machine: MachineState = initialState;
  private readonly turnTexts = new Map<number, string>();
  /** A turn's prompt when it is more than its text (attached files, acp/promptContent.ts). */
  private readonly turnBlocks = new Map<number, ContentBlock[]>();
  private readonly turnResults = new Map<number, Deferred<TurnResult>>();
  private turnToolIds = new Set<string>();
  /** The turn before ended stopped: the next answer may be one turn behind (outOfStep.ts). */
  private lastTurnStopped = false;
  /** Step 2 just answered permissions: step 3's cancel goes once those answers are written. */
  private answersInFlight = false;
  private turnBudgetTimer: NodeJS.Timeout | undefined;
  private readonly timers = new Map<TimerName, NodeJS.Timeout>();
  private currentStop: Deferred<StopReport> | undefined;
  private lastStop: StopReport | undefined;
  private readonly leftovers: LeftoverWatch;
  private leftoversUnsupportedSaid = false;
  readonly permissions = new Permissions();
  private dispatching = false;
  private readonly queue: MachineEvent[] = [];

  /** Counters the tests and the log read: what was actually put on the wire. */
  readonly sent = { prompts: 0, cancels: 0 };

  private readonly _onDidChange = new Emitter<void>();
  readonly onDidChange = this._onDidChange.event;
  private readonly _onToolsCancelled = new Emitter<number>();
  readonly onToolsCancelled = this._onToolsCancelled.event;
  private readonly _onTurnStarted = new Emitter<{ turnId: number; text: string }>();
  readonly onTurnStarted = this._onTurnStarted.event;
  private readonly _onTurnEnded = new Emitter<{ turnId: number; text: string; result: TurnResult }>();
  readonly onTurnEnded = this._onTurnEnded.event;
  private readonly _onStop = new Emitter<StopReport>();
  readonly onStop = this._onStop.event;
  /** A stop's turn left tool processes running (after onStop, once the check is done). */
  private readonly _onLeftovers = new Emitter<StopReport>();
  readonly onLeftovers = this._onLeftovers.event;

  constructor(private readonly port: TurnPort) {
    this.leftovers = new LeftoverWatch(port.log);
  }

  get turn() {
    return this.machine.turn;
  }
  /** The last stop's report, kept while it is unverified so that a second stop can join it. */
  get lastStopReport(): StopReport | undefined {
    return this.lastStop;
  }
  /** Text of the running turn, if any. */
  get runningText(): string | undefined {
    const t = this.machine.turn;
    return t.phase === 'idle' ? undefined : this.turnTexts.get(t.turnId);
  }

  /** Resolves once the last stop's process listing is taken (what starts something new waits). */
  barrier(): Promise<void> {
    return this.leftovers.barrier();
  }

  /** The session was replaced: what came before it says nothing about the new one. */
  sessionReplaced(): Promise<void> {
    this.lastTurnStopped = false;
    // A new session may bring its own processes (claude-agent-acp starts one per session).
    return this.refreshBaseline();
  }

  /** The agent is gone: its exit is evidence, and nothing stays pending. */
  agentExited(detail: string): void {
    this.dispatch({ kind: 'exited', detail, at: Date.now() });
    this.permissions.cancelAll();
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    clearTimeout(this.turnBudgetTimer);
  }

  /** True when a new prompt may be sent now (no turn, agent ready). */
  get canPrompt(): boolean {
    return this.port.phase() === 'ready' && this.machine.turn.phase === 'idle';
  }

  /**
   * Start a turn. Resolves when it ends (never rejects). The caller checks the folder gate.
   * After a stop, the prompt waits for that stop's process listing (a few ms of `ps`), so
   * that nothing the new turn starts can be taken for the stopped turn's leftovers.
   */
  async prompt(text: string, blocks?: ContentBlock[]): Promise<TurnResult> {
    await this.leftovers.barrier();
    if (!this.canPrompt) {
      return Promise.resolve({ kind: 'not-sent', why: this.port.phase() !== 'ready' ? `the agent is ${this.port.phase()}` : 'a turn is already running' });
    }
    const turnId = this.machine.lastTurnId + 1;
    const result = new Deferred<TurnResult>();
    this.turnTexts.set(turnId, text);
    if (blocks) this.turnBlocks.set(turnId, blocks);
    this.turnResults.set(turnId, result);
    this.leftovers.beginTurn(Date.now());
    this.turnToolIds = new Set();
    this._onTurnStarted.fire({ turnId, text });
    this.dispatch({ kind: 'submit', at: Date.now() });
    const { turnTimeoutMs } = this.port.settings();
    if (turnTimeoutMs > 0) {
      this.turnBudgetTimer = setTimeout(() => void this.stop('turn-timeout'), turnTimeoutMs);
    }
    return result.promise;
  }

  /**
   * The one cancel-then-confirm routine's entry. Every exit path calls this. A second call
   * while a stop is in progress joins it: same promise, same outcome, same wait.
   */
  stop(cause: StopCause, budgetMs?: number): Promise<StopReport> {
    const phase = this.machine.turn.phase;
    if (phase === 'stopping' && this.currentStop) return this.currentStop.promise;
    if (phase === 'unverified' && this.lastStop) return Promise.resolve(this.lastStop);
    const deferred = new Deferred<StopReport>();
    this.currentStop = deferred;
    this.dispatch({ kind: 'stop', cause, at: Date.now(), budgetMs });
    return deferred.promise;
  }

  /** Re-run the wait of an unverified stop; late evidence opens the gate by itself too. */
  checkAgain(): Promise<StopReport> {
    if (this.machine.turn.phase !== 'unverified') {
      return this.lastStop ? Promise.resolve(this.lastStop) : this.stop('user');
    }
    const deferred = new Deferred<StopReport>();
    this.currentStop = deferred;
    this.dispatch({ kind: 'checkAgain', at: Date.now() });
    return deferred.promise;
  }

  respondPermission(id: string, optionId: string): boolean {
    return this.permissions.respond(id, optionId);
  }

  /** End the tool processes the last stop found still running (only those, if still the same). */
  endLeftovers(): Promise<ProcessInfo[]> {
    return this.leftovers.endFound();
  }

  // ---- the controller: events in, effects out ----------------------------------------------

  private dispatch(event: MachineEvent): void {
    // Effects may dispatch (a failed send); queue those so each transition completes first.
    this.queue.push(event);
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      while (this.queue.length > 0) {
        const next = this.queue.shift()!;
        const { state, effects } = transition(this.machine, next, {
          settleBudgetMs: this.port.settings().settleTimeoutMs,
          busyRetryBudgetMs: this.port.settings().busyRetryMs,
        });
        this.machine = state;
        for (const effect of effects) this.run(effect);
      }
    } finally {
      this.dispatching = false;
    }
    this._onDidChange.fire();
  }

  private run(effect: Effect): void {
    switch (effect.kind) {
      case 'sendPrompt':
        return this.sendPrompt(effect.turnId);
      case 'sendCancel':
        return this.sendCancel(effect.why);
      case 'cancelPermissions':
        this.answersInFlight = this.permissions.size > 0;
        return this.permissions.cancelAll();
      case 'markToolsCancelled':
        return this._onToolsCancelled.fire(effect.turnId);
      case 'startTimer': {
        clearTimeout(this.timers.get(effect.timer));
        const { timer, turnId } = effect;
        this.timers.set(timer, setTimeout(() => this.dispatch({ kind: 'timer', timer, turnId, at: Date.now() }), effect.ms));
        return;
      }
      case 'clearTimers':
        for (const timer of this.timers.values()) clearTimeout(timer);
        this.timers.clear();
        return;
      case 'turnEnded':
        return this.endTurn(effect.turnId, effect.result);
      case 'stopEnded':
        return this.endStop(effect.stop);
    }
  }

  private sendPrompt(turnId: number): void {
    const { conn, sessionId } = this.port.link();
    const text = this.turnTexts.get(turnId) ?? '';
    if (!conn || !sessionId || conn.isClosed) {
      this.dispatch({ kind: 'failed', turnId, message: 'the agent is not connected', at: Date.now() });
      return;
    }
    this.sent.prompts++;
    conn.prompt({ sessionId, prompt: this.turnBlocks.get(turnId) ?? [{ type: 'text', text }] }).then(
      (response) => {
        const stopReason = String(response?.stopReason ?? 'end_turn');
        const outOfStep = looksOutOfStep({
          afterStop: this.lastTurnStopped,
          stopReason,
          usage: (response as { usage?: unknown } | undefined)?.usage,
        });
        if (outOfStep) this.port.log.warn(`agent ${this.port.name} answered turn ${turnId} with end_turn and zero usage right after a stopped turn: it is one turn behind`);
        this.dispatch({ kind: 'answered', turnId, stopReason, outOfStep, at: Date.now() });
      },
      (error: unknown) => {
        // A dead connection is handled once, as a dead stream, by onConnectionClosed.
        if (error instanceof AgentExitedError) return;
        const rpc = error instanceof ResponseError ? { code: error.code, message: error.message, data: error.data as unknown } : { message: String((error as Error)?.message ?? error) };
        const message = rpc.data !== undefined ? `${rpc.message}: ${typeof rpc.data === 'string' ? rpc.data : JSON.stringify(rpc.data)}` : rpc.message;
        if (this.port.quirks.isBusyRejection(rpc)) {
          this.port.log.info(`agent ${this.port.name} is busy with an earlier run (${message}); cancelling it and retrying`);
          this.dispatch({ kind: 'busyRejected', turnId, message, at: Date.now() });
        } else {
          this.dispatch({ kind: 'failed', turnId, message, at: Date.now(), code: rpc.code });
        }
      },
    );
  }

  private sendCancel(why: string): void {
    if (this.answersInFlight) {
      // The permission answers of step 2 are written when their promises settle (microtasks);
      // the cancel waits for them, so the agent reads them first (gemini and qwen never answer
      // the prompt while a permission is open).
      this.answersInFlight = false;
      setImmediate(() => this.sendCancel(why));
      return;
    }
    const { conn, sessionId } = this.port.link();
    if (!conn || !sessionId || conn.isClosed) {
      this.port.log.debug(`session/cancel (${why}) not sent: the connection is closed`);
      return;
    }
    this.sent.cancels++;
    conn.cancel({ sessionId }).catch((error: Error) => this.port.log.debug(`session/cancel (${why}) failed: ${error.message}`));
  }

  private endTurn(turnId: number, result: TurnResult): void {
    clearTimeout(this.turnBudgetTimer);
    this.turnBudgetTimer = undefined;
    const text = this.turnTexts.get(turnId) ?? '';
    this.turnTexts.delete(turnId);
    this.turnBlocks.delete(turnId);
    const deferred = this.turnResults.get(turnId);
    this.turnResults.delete(turnId);
    // Permissions of a turn that ended can no longer be answered usefully.
    if (this.permissions.size > 0) this.permissions.cancelAll();
    this.lastTurnStopped = result.kind === 'stopped';
    this._onTurnEnded.fire({ turnId, text, result });
    deferred?.resolve(result);
    // A stopped turn refreshes after its leftover scan, so that its leftovers are seen first.
    if (result.kind !== 'stopped') void this.refreshBaseline();
  }

  private endStop(stop: StopRecord): void {
    const deferred = this.currentStop;
    const report: StopReport = { ...stop, agent: this.port.name, sessionId: this.port.link().sessionId, leftovers: [], leftoversFound: Promise.resolve([]) };
    if (stop.noop) {
      // Nothing was running: answer the caller, but there was no routine to report.
      deferred?.resolve(report);
      return;
    }
    // Tool processes that outlived the turn (codex-acp leaves a cancelled `sleep 37`). The
    // listing starts now, at the outcome; the gate opens at once, and what would start
    // something new (a prompt, session/new) waits for the listing (`leftovers.barrier`). An
    // agent that exited has its whole group ended by the exit path instead.
    const pid = this.port.agentPid();
    if (pid !== undefined && stop.firstCancelAt !== undefined && stop.outcome !== 'agent-exited') {
      report.leftoversFound = this.scanLeftovers(report, pid);
      void report.leftoversFound.then(() => this.refreshBaseline());
    }
    this.lastStop = report;
    this.port.log.info(formatStopLine(report));
    deferred?.resolve(report);
    if (this.currentStop === deferred) this.currentStop = undefined;
    this._onStop.fire(report);
    this._onDidChange.fire();
  }

  /** The agent's own processes, listed while no turn runs: never taken for a turn's leftovers. */
  refreshBaseline(): Promise<void> {
    const pid = this.port.agentPid();
    if (pid === undefined || this.machine.turn.phase !== 'idle') return Promise.resolve();
    const turnBefore = this.machine.lastTurnId;
    // A turn that began while `ps` ran keeps the baseline it had: its tools may be in the listing.
    return this.leftovers.refreshBaseline(pid, () => this.machine.lastTurnId === turnBefore && this.machine.turn.phase === 'idle');
  }

  private async scanLeftovers(report: StopReport, pid: number): Promise<ProcessInfo[]> {
    if (process.platform === 'win32') {
      // No `ps` and no process groups: say once that leftovers cannot be seen here.
      if (!this.leftoversUnsupportedSaid) {
        this.leftoversUnsupportedSaid = true;
        report.leftoverAction = 'unsupported';
        this._onLeftovers.fire(report);
      }
      return [];
    }
    const found = await this.leftovers.scan(pid, this.port.turnTerminals?.(report.turnId) ?? []);
    report.leftovers = found;
    if (found.length === 0) return found;
    const policy = this.port.settings().leftoverProcesses;
    report.leftoverAction = policy === 'end' ? 'ended' : policy === 'leave' ? 'left' : 'ask';
    this.port.log.info(
      `stop of turn ${report.turnId}: ${found.length} tool process(es) still running: ${found.map((p) => `${p.pid} ${p.command}`).join('; ')} (${report.leftoverAction})`,
    );
    if (policy === 'end') await this.endLeftovers();
    this._onLeftovers.fire(report);
    return found;
  }

  // ---- what the agent sends, as far as the turn is concerned ---------------------------------

  /** An update for the current session: idle signals, what the turn shows, its tools, the cap. */
  noteUpdate(notification: SessionNotification): void {
    if (this.port.quirks.isIdleSignal(notification)) this.dispatch({ kind: 'idleSignal', at: Date.now() });
    const update = notification.update;
    const turn = this.machine.turn;
    if ((update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') && turn.phase !== 'idle') {
      this.leftovers.noteTool(update.toolCallId, update.title, update.rawInput, Date.now());
    }
    if (update.sessionUpdate === 'tool_call' && turn.phase === 'running') {
      this.turnToolIds.add(update.toolCallId);
      const cap = this.port.settings().maxToolCallsPerTurn;
      if (cap > 0 && this.turnToolIds.size > cap) {
        this.port.log.info(`turn ${turn.turnId}: tool call ${this.turnToolIds.size} exceeds the cap of ${cap}; stopping`);
        void this.stop('tool-cap');
      }
    }
  }

  /** A permission request: held for the running turn, refused otherwise. */
  holdPermission(request: RequestPermissionRequest, signal?: AbortSignal): Promise<RequestPermissionResponse> {
    const turn = this.machine.turn;
    // Outside a running turn (or once it is stopping) nobody may approve anything.
    if (request.sessionId !== this.port.link().sessionId || turn.phase !== 'running') {
      this.port.log.info(`answered a permission request cancelled: no running turn (${turn.phase})`);
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    }
    // gemini shows a tool first inside its permission request: the command is there.
    const tool = request.toolCall;
    if (tool) this.leftovers.noteTool(tool.toolCallId, tool.title, tool.rawInput, Date.now());
    return this.permissions.hold(turn.turnId, request, signal);
  }
}
