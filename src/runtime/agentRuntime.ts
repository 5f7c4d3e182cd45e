// One agent process, its ACP connection and its current session (currentSession.ts): start,
// replace the session, end (agentEnd.ts). Its turns are driven by the TurnController
// (turnController.ts), which this hands what the agent sends. Callers reach both through its
// facets (facets.ts): `turns` is the controller, `session` the current session. No `vscode` here: the extension
// and the interop suite drive the same code. Every way a turn ends early comes through
// `turns.stop(cause)` (the controller's); nothing kills the agent except `forceStop`, `shutdown`,
// `dispose` and a dead connection.
import { PROTOCOL_VERSION } from '../acp/protocol';
import type { InitializeResponse } from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import { AgentProcess, type ExitInfo } from '../acp/agentProcess';
import { AcpConnection, type ConnectionClosed } from '../acp/connection';
import { diskFileAccess } from '../acp/clientMethods/fs';
import { TerminalHost } from '../acp/clientMethods/terminals';
import { DisposableStore } from '../util/disposable';
import { Emitter } from '../util/emitter';
import { AgentEnd } from './agentEnd';
import { CurrentSession } from './currentSession';
import { AUTHENTICATE_TIMEOUT_MS, describeStartFailure, handshake, StartError } from './handshake';
import type { SessionFacet, TurnFacet } from './facets';
import { makeQuirks } from './quirks';
import { defaultRuntimeSettings, type RuntimeOptions, type RuntimeSettings } from './runtimeOptions';
import { steerMethodFor } from './steering';
import type { ExitCleanup, StopReport } from './stopReport';
import { TurnController } from './turnController';
import type { StopCause } from './turnMachine';
import { oneLine } from '../util/text';

export type { PendingPermission } from './permissions';
export { type StopReport } from './stopReport';
export { defaultRuntimeSettings, type RuntimeOptions, type RuntimeSettings } from './runtimeOptions';
export { StartError } from './handshake';

export type RuntimePhase = 'new' | 'starting' | 'ready' | 'failed' | 'exited';

export class AgentRuntime {
  private phaseValue: RuntimePhase = 'new';
  private proc: AgentProcess | undefined;
  private conn: AcpConnection | undefined;
  private initResult: InitializeResponse | undefined;
  private readonly settings: () => RuntimeSettings;
  private readonly controller: TurnController;
  /** The current session: opened, replaced, listed; its controls; the agent's updates routed (currentSession.ts). */
  private readonly current: CurrentSession;
  /** The turn's side: prompt, queue, stop (the one routine), permissions, leftovers (facets.ts). */
  readonly turns: TurnFacet;
  /** The ACP session's side: which one, its controls, replacing, listing, deleting (facets.ts). */
  readonly session: SessionFacet;
  /** Why the last start failed, for `sendPrompt`'s answer (a version mismatch names both versions). */
  private startFailureValue: string | undefined;
  /** Force Stop, shutdown and the agent's exit (agentEnd.ts); `dispose` marks the end as requested too. */
  private readonly end: AgentEnd;
  private disposed = false;
  /** What lives as long as this runtime and ends with it. */
  private readonly owned = new DisposableStore();
  /** The commands the agent runs through terminal/*; all ended whenever the session ends. */
  private readonly terminals: TerminalHost;

  private readonly _onDidChangeState = new Emitter<void>();
  readonly onDidChangeState = this._onDidChangeState.event;
  /** The agent is gone. `requested`: Reins ended it (force stop, replacement, exit), so it is no failure. */
  private readonly _onExit = new Emitter<ConnectionClosed & { requested: boolean }>();
  readonly onExit = this._onExit.event;
  /** The agent exited by itself and Reins ended what was left of its process group. */
  private readonly _onExitCleanup = new Emitter<ExitCleanup>();
  readonly onExitCleanup = this._onExitCleanup.event;
  /** A terminal's output changed (at most every 100 ms) or it exited: for the tool call's card. */
  get onTerminalOutput() {
    return this.terminals.onOutput;
  }

  constructor(private readonly options: RuntimeOptions) {
    const settings = options.settings ?? (() => defaultRuntimeSettings);
    this.settings = settings;
    const quirks = options.quirks ?? makeQuirks();
    this.controller = new TurnController({
      name: options.name,
      log: options.log,
      quirks,
      // Learned per agent: its settings entry, then what its `initialize` answer says (steering.ts).
      steerMethod: () => steerMethodFor(this.initResult, quirks.steerMethod),
      settings,
      link: () => ({ conn: this.conn, sessionId: this.current.id }),
      agentPid: () => this.proc?.pid,
      phase: () => this.phaseValue,
      protocolVersion: () => this.initResult?.protocolVersion ?? PROTOCOL_VERSION,
      turnTerminals: (turnId) => this.terminals.runningPids(turnId),
      listProcesses: options.listProcesses,
      beforeQueuedTurn: options.beforeQueuedTurn,
      promptCapabilities: () => this.initResult?.agentCapabilities?.promptCapabilities,
    });
    this.turns = this.controller;
    this.terminals = this.owned.add(
      new TerminalHost({
        root: options.launch.cwd,
        log: options.log,
        sessionId: () => this.current.id,
        turn: () => this.controller.turn,
        // Terminals are not in the agent's tree: its watchdog ends them too if this host dies.
        guard: (pid, start) => this.proc?.guardTerminal(pid, start),
        onOutputData: options.terminalLog,
      }),
    );
    this.controller.onDidChange(() => this._onDidChangeState.fire());
    this.current = new CurrentSession({
      name: options.name,
      log: options.log,
      cwd: options.launch.cwd,
      conn: () => this.conn,
      init: () => this.initResult,
      phase: () => this.phaseValue,
      timeoutMs: () => settings().initializeTimeoutMs,
      mcpServers: options.mcpServers,
      stop: (cause) => this.controller.stop(cause),
      barrier: () => this.controller.barrier(),
      endTerminals: (why) => this.terminals.endAll(why),
      noteTurn: (n) => this.controller.noteUpdate(n),
      replaced: () => {
        this._onDidChangeState.fire();
        return this.controller.sessionReplaced();
      },
      changed: () => this._onDidChangeState.fire(),
    });
    this.session = this.current;
    this.end = new AgentEnd({
      name: options.name,
      log: options.log,
      terminals: this.terminals,
      turns: this.controller,
      proc: () => this.proc,
      conn: () => this.conn,
      wasReady: () => this.phaseValue === 'ready',
      markExited: () => this.phaseValue !== 'failed' && this.setPhase('exited'),
      exitCleanup: (cleanup) => this._onExitCleanup.fire(cleanup),
      exited: (closed) => this._onExit.fire(closed),
    });
  }

  get name(): string {
    return this.options.name;
  }
  get phase(): RuntimePhase {
    return this.phaseValue;
  }
  get pid(): number | undefined {
    return this.proc?.pid;
  }
  get agentInfo(): InitializeResponse | undefined {
    return this.initResult;
  }
  get exit(): ExitInfo | undefined {
    return this.proc?.exit;
  }
  /** Why the last start failed, if it did. */
  get startFailure(): string | undefined {
    return this.startFailureValue;
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Spawn the agent, `initialize`, `session/new`. Throws StartError with what the user needs. */
  async start(options: { authenticate?: string } = {}): Promise<void> {
    if (this.phaseValue !== 'new') throw new Error(`agent ${this.name} was already started`);
    const { launch, log } = this.options;
    this.setPhase('starting');
    const proc = new AgentProcess(launch, log);
    this.proc = proc;
    // Only this session's requests; limits and the write report attached by the folder conversation (fileHooks.ts).
    const files = this.options.files ?? diskFileAccess(launch.cwd, { sessionId: () => this.current.id, hooksOwner: this });
    const conn = new AcpConnection(
      proc,
      {
        sessionUpdate: (n) => this.current.receive(n),
        requestPermission: (r, signal) => this.controller.holdPermission(r, signal),
        elicit: (r, signal) => this.controller.holdElicitation(r, signal),
        elicitationComplete: (id) =>
          this.controller.elicitations.complete(id) || log.info(`agent ${this.name}: ignored elicitation/complete for an unknown or completed id`),
        readTextFile: (p) => files.readTextFile(p),
        writeTextFile: (p) => files.writeTextFile(p),
        terminal: this.terminals.methods,
      },
      log,
      { trace: this.options.trace, maxLineBytes: this.options.maxLineBytes },
    );
    this.conn = conn;
    void conn.closed.then((closed) => this.end.connectionClosed(closed));

    const timeout = this.settings().initializeTimeoutMs;
    try {
      const init = await handshake(
        conn,
        { clientInfo: this.options.clientInfo, authenticate: options.authenticate, timeoutMs: timeout, log: (m) => log.info(`agent ${this.name}: ${m}`) },
        (init) => (this.initResult = init),
      );
      // The folder's earlier session where the agent can reopen it, else session/new (sessionSwitch.ts).
      const session = await this.current.openFirst(this.options.reopen);
      // Its own helpers (codex-acp's native binary, gemini's relaunched self, claude's Claude
      // Code process) start now.
      await this.controller.refreshBaseline();
      // The agent's own strings, kept on this line (a newline in its name would forge a log line).
      const about = oneLine(`${session.sessionId} (${init.agentInfo?.name ?? 'unnamed'} ${init.agentInfo?.version ?? ''})`);
      log.info(`agent ${this.name} ready: session ${about}`);
      this.setPhase('ready');
    } catch (error) {
      const message = describeStartFailure(launch, error, proc);
      this.startFailureValue = message;
      log.error(`agent ${this.name} failed to start: ${message}`);
      this.setPhase('failed');
      await proc.end();
      conn.dispose();
      throw new StartError(message, launch, proc.exit, proc.currentStderrTail(), {
        code: error instanceof ResponseError ? error.code : undefined,
        authMethods: this.initResult?.authMethods,
      });
    }
  }

  /** Stop any turn (budget `budgetMs`), then end the agent's whole process tree (agentEnd.ts). */
  shutdown(cause: StopCause, budgetMs?: number): Promise<StopReport | undefined> {
    return this.end.shutdown(cause, budgetMs);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.end.requested = true;
    this.controller.dispose();
    this.current.dispose();
    this.owned.dispose();
    void this.proc?.end();
    this.conn?.dispose();
  }

  /** `authenticate` on the running connection (a prompt was refused with auth_required). */
  async authenticate(methodId: string): Promise<void> {
    if (!this.conn || this.conn.isClosed) throw new Error(`${this.name} is not running`);
    await this.conn.authenticate({ methodId }, AUTHENTICATE_TIMEOUT_MS, (this.initResult?.protocolVersion ?? 1) >= 2);
    this.options.log.info(`agent ${this.name}: authenticated with method ${methodId}`);
  }

  /** End the agent's whole process tree; a running turn goes through the routine first (agentEnd.ts). */
  forceStop(): Promise<StopReport | undefined> {
    return this.end.forceStop();
  }

  private setPhase(phase: RuntimePhase): void {
    this.phaseValue = phase;
    this._onDidChangeState.fire();
  }
}
