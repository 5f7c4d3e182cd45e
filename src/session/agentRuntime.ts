// One agent process, its ACP connection and its current session: start, replace the session,
// end. Its turns are driven by the TurnController (turnController.ts), which this hands what
// the agent sends. No `vscode` here: the extension and the interop suite drive the same code.
//
// Every way a turn ends early comes through `stop(cause)` (the controller's); nothing kills
// the agent except `forceStop`, `shutdown`, `dispose` and a dead connection.
import { PROTOCOL_VERSION, ProtocolVersionError } from '../acp/protocol';
import type { InitializeResponse, McpServer, SessionNotification } from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import { AgentProcess, describeExit, type AgentLaunch, type ExitInfo } from '../acp/agentProcess';
import { AcpConnection, AgentExitedError, type ConnectionClosed } from '../acp/connection';
import { diskFileAccess, type FileAccess } from '../acp/clientMethods/fs';
import { TerminalHost } from '../acp/clientMethods/terminals';
import type { ProcessInfo } from '../acp/processTree';
import { promptBlocks } from '../acp/promptContent';
import type { TraceLevel } from '../acp/trace';
import { DisposableStore } from '../util/disposable';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import type { PendingPermission } from './permissions';
import { makeQuirks, type Quirks } from './quirks';
import type { ExitCleanup, StopReport } from './stopReport';
import type { SessionConfig, SetValue } from './sessionConfig';
import { SessionControls, type SetConfigResult } from './sessionControls';
import type { SessionCaps } from './sessionCaps';
import type { ListOutcome } from './sessionList';
import { SessionSwitch, type LoadOutcome, type ReopenRequest } from './sessionSwitch';
import { TurnController, type TurnSettings } from './turnController';
import type { StopCause, TurnResult } from './turnMachine';

export type { PendingPermission } from './permissions';
export { formatStopLine, type StopReport } from './stopReport';

export interface RuntimeSettings extends TurnSettings {
  initializeTimeoutMs: number;
}

export const defaultRuntimeSettings: RuntimeSettings = {
  settleTimeoutMs: 10_000,
  busyRetryMs: 6_000,
  turnTimeoutMs: 0,
  maxToolCallsPerTurn: 0,
  initializeTimeoutMs: 30_000,
  leftoverProcesses: 'ask',
};

export interface RuntimeOptions {
  /** The agent's name in settings, for messages and the log. */
  name: string;
  launch: AgentLaunch;
  settings?: () => RuntimeSettings;
  quirks?: Quirks;
  log: Logger;
  trace?: () => TraceLevel;
  files?: FileAccess;
  clientInfo?: { name: string; version: string };
  /** The validated `reins.mcpServers`, read at each session/new (http and sse only where the agent advertises them). */
  mcpServers?: () => McpServer[];
  /** Longest line accepted from the agent (default 64 MiB). */
  maxLineBytes?: number;
  /** The session to reopen at start instead of session/new, where the agent can (sessionSwitch.ts). */
  reopen?: ReopenRequest;
}

export type AgentPhase = 'new' | 'starting' | 'ready' | 'failed' | 'exited';

export class StartError extends Error {
  constructor(
    message: string,
    readonly launch: AgentLaunch,
    readonly exit: ExitInfo | undefined,
    readonly stderrTail: string[],
    /** The JSON-RPC error code of the request that failed (-32000: auth_required), and the
     *  sign-in methods `initialize` advertised, for the sign-in offer (auth/signIn.ts). */
    readonly failure: { code?: number; authMethods?: unknown } = {},
  ) {
    super(message);
    this.name = 'StartError';
  }
}

/** An `authenticate` may open a browser and wait for the user: minutes, not seconds. */
const AUTHENTICATE_TIMEOUT_MS = 5 * 60_000;

export class AgentRuntime {
  private phaseValue: AgentPhase = 'new';
  private proc: AgentProcess | undefined;
  private conn: AcpConnection | undefined;
  private sessionIdValue: string | undefined;
  private initResult: InitializeResponse | undefined;
  private readonly settings: () => RuntimeSettings;
  private readonly turns: TurnController;
  /** Modes, config options, commands, title, usage; the session's MCP servers and early updates. */
  private readonly controls: SessionControls;
  /** Load, resume, close, list, delete: sessions beyond session/new. */
  private readonly switch: SessionSwitch;
  /** Why the last start failed, for `sendPrompt`'s answer (a version mismatch names both versions). */
  private startFailureValue: string | undefined;
  /** Set when Reins itself ends the agent (force stop, shutdown, dispose): that exit is no failure. */
  private endRequested = false;
  private disposed = false;
  /** What lives as long as this runtime and ends with it. */
  private readonly owned = new DisposableStore();
  /** The commands the agent runs through terminal/*; all ended whenever the session ends. */
  private readonly terminals: TerminalHost;

  private readonly _onDidChangeState = new Emitter<void>();
  readonly onDidChangeState = this._onDidChangeState.event;
  private readonly _onUpdate = new Emitter<SessionNotification>();
  readonly onUpdate = this._onUpdate.event;
  /** The agent is gone. `requested`: Reins ended it (force stop, replacement, exit), so it is no failure. */
  private readonly _onExit = new Emitter<ConnectionClosed & { requested: boolean }>();
  readonly onExit = this._onExit.event;
  /** The agent exited by itself and Reins ended what was left of its process group. */
  private readonly _onExitCleanup = new Emitter<ExitCleanup>();
  readonly onExitCleanup = this._onExitCleanup.event;
  private readonly _onStderr = new Emitter<string>();
  readonly onStderr = this._onStderr.event;
  /** A terminal's output changed (at most every 100 ms) or it exited: for the tool call's card. */
  get onTerminalOutput() {
    return this.terminals.onOutput;
  }

  constructor(private readonly options: RuntimeOptions) {
    const settings = options.settings ?? (() => defaultRuntimeSettings);
    this.settings = settings;
    this.turns = new TurnController({
      name: options.name,
      log: options.log,
      quirks: options.quirks ?? makeQuirks(),
      settings,
      link: () => ({ conn: this.conn, sessionId: this.sessionIdValue }),
      agentPid: () => this.proc?.pid,
      phase: () => this.phaseValue,
      turnTerminals: (turnId) => this.terminals.runningPids(turnId),
    });
    this.terminals = this.owned.add(
      new TerminalHost({ root: options.launch.cwd, log: options.log, sessionId: () => this.sessionIdValue, turn: () => this.turns.turn }),
    );
    this.turns.onDidChange(() => this._onDidChangeState.fire());
    this.controls = new SessionControls({
      name: options.name,
      log: options.log,
      link: () => ({ conn: this.conn, sessionId: this.sessionIdValue }),
      phase: () => this.phaseValue,
      timeoutMs: () => settings().initializeTimeoutMs,
      mcpServers: options.mcpServers,
    });
    this.controls.onDidChange(() => this._onDidChangeState.fire());
    this.switch = new SessionSwitch({
      name: options.name,
      log: options.log,
      cwd: options.launch.cwd,
      conn: () => this.conn,
      init: () => this.initResult,
      timeoutMs: () => settings().initializeTimeoutMs,
      current: () => this.sessionIdValue,
      setCurrent: (id) => (this.sessionIdValue = id),
      params: () => this.controls.newSessionParams(options.launch.cwd, this.initResult),
      openNew: async () =>
        (
          await this.controls.open(
            () => this.conn!.newSession(this.controls.newSessionParams(options.launch.cwd, this.initResult), settings().initializeTimeoutMs),
            (a) => (this.sessionIdValue = a.sessionId),
            (n) => this.deliver(n),
          )
        ).sessionId,
      openExisting: (request, id) =>
        this.controls.open(
          request,
          () => (this.sessionIdValue = id),
          (n) => this.deliver(n),
        ),
      renote: (n) => this.controls.note(n),
      onUpdate: this.onUpdate,
    });
  }

  /** What the agent can do with sessions besides session/new (load, resume, list, close, delete). */
  get sessionCaps(): SessionCaps {
    return this.switch.caps;
  }
  /** A load or resume is about to go out (a load's replay follows). */
  get onSessionOpening() {
    return this.switch.onOpening;
  }
  /** A session became current (new, loaded, resumed), or a reopen failed and which one is current instead. */
  get onSessionOpened() {
    return this.switch.onOpened;
  }

  // The turn's side, as the controller has it.
  get onPermission() {
    return this.turns.permissions.onRequest;
  }
  get onPermissionResolved() {
    return this.turns.permissions.onResolved;
  }
  get onToolsCancelled() {
    return this.turns.onToolsCancelled;
  }
  get onTurnStarted() {
    return this.turns.onTurnStarted;
  }
  get onTurnEnded() {
    return this.turns.onTurnEnded;
  }
  get onStop() {
    return this.turns.onStop;
  }
  /** A stop's turn left tool processes running (after onStop, once the check is done). */
  get onLeftovers() {
    return this.turns.onLeftovers;
  }
  /** Counters the tests and the log read: what this runtime actually put on the wire. */
  get sent() {
    return this.turns.sent;
  }
  get turn() {
    return this.turns.turn;
  }
  /** The last stop's report, kept while it is unverified so that a second stop can join it. */
  get lastStopReport(): StopReport | undefined {
    return this.turns.lastStopReport;
  }
  get pendingPermissions(): PendingPermission[] {
    return this.turns.permissions.list();
  }
  /** Text of the running turn, if any. */
  get runningText(): string | undefined {
    return this.turns.runningText;
  }
  /** True when a new prompt may be sent now (no turn, agent ready). */
  get canPrompt(): boolean {
    return this.turns.canPrompt;
  }

  get name(): string {
    return this.options.name;
  }
  get phase(): AgentPhase {
    return this.phaseValue;
  }
  get sessionId(): string | undefined {
    return this.sessionIdValue;
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
  /** The current session's modes, config options, slash commands, title and usage. */
  get sessionConfig(): SessionConfig | undefined {
    return this.controls.config;
  }
  /** MCP servers left out of a session because the agent does not advertise their transport. */
  get onMcpSkipped() {
    return this.controls.onMcpSkipped;
  }
  /** Why the last start failed, if it did. */
  get startFailure(): string | undefined {
    return this.startFailureValue;
  }

  /**
   * Start a turn; resolves when it ends (never rejects). The caller checks the folder gate.
   * `files` (file URIs or absolute paths) go as links, embedded text or images, as far as the
   * agent's promptCapabilities allow (acp/promptContent.ts); one that cannot be read: not sent.
   */
  async prompt(text: string, files?: string[]): Promise<TurnResult> {
    if (!files?.length) return this.turns.prompt(text);
    const { blocks, problems } = await promptBlocks({ text, files }, this.initResult?.agentCapabilities?.promptCapabilities);
    if (problems.length > 0) return { kind: 'not-sent', why: problems.join('; ') };
    return this.turns.prompt(text, blocks);
  }

  /** `configId` 'mode' / 'model' name the option of that category; 'mode' falls back to session/set_mode. */
  setConfigOption(configId: string, value: SetValue): Promise<SetConfigResult> {
    return this.controls.set(configId, value);
  }

  /** The one cancel-then-confirm routine's entry: every exit path calls this. */
  stop(cause: StopCause, budgetMs?: number): Promise<StopReport> {
    return this.turns.stop(cause, budgetMs);
  }

  /** Re-run the wait of an unverified stop; late evidence opens the gate by itself too. */
  checkAgain(): Promise<StopReport> {
    return this.turns.checkAgain();
  }

  respondPermission(id: string, optionId: string): boolean {
    return this.turns.respondPermission(id, optionId);
  }

  /** End the tool processes the last stop found still running (only those, if still the same). */
  endLeftovers(): Promise<ProcessInfo[]> {
    return this.turns.endLeftovers();
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Spawn the agent, `initialize`, `session/new`. Throws StartError with what the user needs. */
  async start(options: { authenticate?: string } = {}): Promise<void> {
    if (this.phaseValue !== 'new') throw new Error(`agent ${this.name} was already started`);
    const { launch, log } = this.options;
    this.setPhase('starting');
    const proc = new AgentProcess(launch, log, (line) => this._onStderr.fire(line));
    this.proc = proc;
    // Only this session's requests; limits and the write report attached by the folder session (fileHooks.ts).
    const files = this.options.files ?? diskFileAccess(launch.cwd, { sessionId: () => this.sessionIdValue, hooksOwner: this });
    const conn = new AcpConnection(
      proc,
      {
        sessionUpdate: (n) => this.onSessionUpdate(n),
        requestPermission: (r, signal) => this.turns.holdPermission(r, signal),
        readTextFile: (p) => files.readTextFile(p),
        writeTextFile: (p) => files.writeTextFile(p),
        terminal: this.terminals.methods,
      },
      log,
      { trace: this.options.trace, maxLineBytes: this.options.maxLineBytes },
    );
    this.conn = conn;
    void conn.closed.then((closed) => this.onConnectionClosed(closed));

    const timeout = this.settings().initializeTimeoutMs;
    try {
      this.initResult = await conn.initialize(
        {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { session: { configOptions: { boolean: {} } }, fs: { readTextFile: true, writeTextFile: true }, terminal: true, auth: { terminal: true } },
          clientInfo: this.options.clientInfo ?? { name: 'reins', version: '0.0.0' },
        },
        timeout,
      );
      // A version Reins does not speak: close the connection and say so (the catch below).
      if (this.initResult.protocolVersion !== PROTOCOL_VERSION) throw new ProtocolVersionError(this.initResult.protocolVersion);
      // Sign-in the user chose for an `agent` method: between initialize and session/new.
      if (options.authenticate) await conn.authenticate({ methodId: options.authenticate }, AUTHENTICATE_TIMEOUT_MS);
      // The folder's earlier session where the agent can reopen it, else session/new (sessionSwitch.ts).
      const session = await this.switch.openFirst(this.options.reopen);
      // Its own helpers (codex-acp's native binary, gemini's relaunched self, claude's Claude
      // Code process) start now.
      await this.turns.refreshBaseline();
      log.info(`agent ${this.name} ready: session ${session.sessionId} (${this.initResult.agentInfo?.name ?? 'unnamed'} ${this.initResult.agentInfo?.version ?? ''})`);
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

  /**
   * Replace the session with a fresh one in the same process. The running turn is stopped
   * first; if that stop is unverified, nothing is replaced (the folder stays closed), and if
   * the agent exited meanwhile, nothing is replaced either (check `phase`).
   */
  async newSession(): Promise<StopReport> {
    const report = await this.stop('replace-session');
    // Unverified: nothing is replaced. Exited while stopping: the caller needs a new process.
    if (report.outcome === 'abort-unverified' || !this.conn || this.phaseValue !== 'ready') return report;
    // The stopped turn's process listing is taken before session/new can start anything.
    await this.turns.barrier();
    // The old session's terminals end with it (after the listing: the stopped turn's show there).
    await this.terminals.endAll('new session');
    // session/close for the settled old session, where the agent offers it (sessionSwitch.ts).
    await this.switch.closeCurrent();
    const conn = this.conn;
    const replaced = this.sessionIdValue;
    const session = await this.controls.open(
      () => conn.newSession(this.controls.newSessionParams(this.options.launch.cwd, this.initResult), this.settings().initializeTimeoutMs),
      (answer) => (this.sessionIdValue = answer.sessionId),
      (n) => this.deliver(n),
    );
    this.options.log.info(`agent ${this.name}: new session ${session.sessionId} replaces ${replaced}`);
    this.switch.noteNew(session.sessionId, replaced);
    this._onDidChangeState.fire();
    await this.turns.sessionReplaced();
    return report;
  }

  /**
   * Replace the session with an earlier one (session/load, or session/resume: sessionSwitch.ts),
   * by newSession's rules: the running turn is stopped first, and an unverified stop (or an
   * agent that exited meanwhile) replaces nothing (no `outcome`).
   */
  async loadSession(sessionId: string, keepTranscript = false): Promise<{ report: StopReport; outcome?: LoadOutcome }> {
    const report = await this.stop('replace-session');
    if (report.outcome === 'abort-unverified' || !this.conn || this.phaseValue !== 'ready') return { report };
    await this.turns.barrier();
    await this.terminals.endAll('session replaced');
    const outcome = await this.switch.replace(sessionId, keepTranscript);
    this._onDidChangeState.fire();
    await this.turns.sessionReplaced();
    return { report, outcome };
  }

  /** session/list, every page (only where the agent offers it). */
  listSessions(): Promise<ListOutcome> {
    return this.switch.list();
  }

  /** session/delete (only where offered; never the current session). */
  deleteSession(sessionId: string): Promise<void> {
    return this.switch.delete(sessionId);
  }

  /** Stop any turn (budget `budgetMs`), then end the agent's whole process tree. */
  async shutdown(cause: StopCause, budgetMs?: number): Promise<StopReport | undefined> {
    let report: StopReport | undefined;
    if (this.turn.phase !== 'idle') report = await this.stop(cause, budgetMs);
    this.endRequested = true;
    await Promise.all([this.proc?.end(), this.terminals.endAll(`shutdown (${cause})`)]);
    this.conn?.dispose();
    return report;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.endRequested = true;
    this.turns.dispose();
    this.controls.dispose();
    this.switch.dispose();
    this.owned.dispose();
    void this.proc?.end();
    this.conn?.dispose();
  }

  /** `authenticate` on the running connection (a prompt was refused with auth_required). */
  async authenticate(methodId: string): Promise<void> {
    if (!this.conn || this.conn.isClosed) throw new Error(`${this.name} is not running`);
    await this.conn.authenticate({ methodId }, AUTHENTICATE_TIMEOUT_MS);
    this.options.log.info(`agent ${this.name}: authenticated with method ${methodId}`);
  }

  /**
   * End the agent's whole process tree. A running turn goes through the routine first (so
   * its report is the one everybody awaits); the exit is its evidence.
   */
  async forceStop(): Promise<StopReport | undefined> {
    const phase = this.turn.phase;
    const pending = phase === 'running' || phase === 'waiting' || phase === 'stopping' ? this.stop('user') : phase === 'unverified' ? this.checkAgain() : undefined;
    this.options.log.warn(`force stop: ending agent ${this.name} (pid ${this.proc?.pid}) and its process tree`);
    this.endRequested = true;
    await Promise.all([this.proc?.end(500), this.terminals.endAll('force stop')]);
    return pending;
  }

  // ---- what the agent sends ----------------------------------------------------------------

  // ---- what the agent sends ----------------------------------------------------------------

  private onSessionUpdate(notification: SessionNotification): void {
    if (notification.sessionId !== this.sessionIdValue) {
      // Sent before the answer to session/new named its session: kept, applied once it does.
      if (this.controls.keepEarly(notification)) return;
      this.options.log.debug(`ignored an update for session ${notification.sessionId} (current ${this.sessionIdValue})`);
      return;
    }
    this.deliver(notification);
  }

  /** An update for the current session: its config, the turn, then the listeners (transcript). */
  private deliver(notification: SessionNotification): void {
    this.controls.note(notification);
    this.turns.noteUpdate(notification);
    this._onUpdate.fire(notification);
  }

  private onConnectionClosed(closed: ConnectionClosed): void {
    // Its terminals are Reins' children, not its own: they do not die with it.
    void this.terminals.endAll(this.endRequested ? 'the agent was ended' : 'the agent exited');
    const wasReady = this.phaseValue === 'ready';
    if (this.phaseValue !== 'failed') this.setPhase('exited');
    if (!wasReady) return;
    const requested = this.endRequested;
    // A dead stream is an exit path like any other: through the routine. The exit (waited
    // for, or forced here when only the stream died) is its evidence.
    const stopping = this.turn.phase !== 'idle' ? this.stop('dead-stream') : undefined;
    void (async () => {
      const proc = this.proc;
      const exitedByItself = proc?.hasExited === true;
      // An agent that died leaves nothing of its group behind (a crashed agent's `sleep 60`
      // would run on under init): `end()` ends what is left and says what that was. When only
      // the stream died, it ends the agent itself.
      const ended = await proc?.end();
      const orphans = exitedByItself && !requested ? (ended?.ended ?? []) : [];
      this.turns.agentExited(ended ? describeExit(ended) : closed.detail);
      await stopping;
      if (orphans.length > 0) {
        this.options.log.info(`agent ${this.name} exited; ended ${orphans.length} process(es) it left: ${orphans.map((p) => `${p.pid} ${p.command}`).join('; ')}`);
        this._onExitCleanup.fire({ ended: orphans });
      }
      this._onExit.fire({ ...closed, requested: requested || this.endRequested });
    })();
  }

  private setPhase(phase: AgentPhase): void {
    this.phaseValue = phase;
    this._onDidChangeState.fire();
  }
}

function describeStartFailure(launch: AgentLaunch, error: unknown, proc: AgentProcess): string {
  const command = [launch.command, ...launch.args].join(' ');
  if (error instanceof AgentExitedError) {
    return `\`${command}\` ${error.closed.exit ? describeExit(error.closed.exit) : error.closed.detail}`;
  }
  const tail = proc.currentStderrTail().slice(-8).join('\n');
  return `\`${command}\`: ${(error as Error)?.message ?? String(error)}${tail ? `; stderr:\n${tail}` : ''}`;
}
