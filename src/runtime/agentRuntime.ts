// One agent process, its ACP connection and its current session (currentSession.ts): start,
// replace the session, end (agentEnd.ts). Its turns are driven by the TurnController
// (turnController.ts), which this hands what the agent sends. No `vscode` here: the extension
// and the interop suite drive the same code. Every way a turn ends early comes through
// `stop(cause)` (the controller's); nothing kills the agent except `forceStop`, `shutdown`,
// `dispose` and a dead connection.
import { PROTOCOL_VERSION } from '../acp/protocol';
import type { InitializeResponse } from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import { AgentProcess, type ExitInfo } from '../acp/agentProcess';
import { AcpConnection, type ConnectionClosed } from '../acp/connection';
import { diskFileAccess } from '../acp/clientMethods/fs';
import { TerminalHost } from '../acp/clientMethods/terminals';
import type { ProcessInfo } from '../acp/processTree';
import { promptBlocks } from '../acp/promptContent';
import { DisposableStore } from '../util/disposable';
import { Emitter } from '../util/emitter';
import { AgentEnd } from './agentEnd';
import { CurrentSession } from './currentSession';
import { AUTHENTICATE_TIMEOUT_MS, describeStartFailure, handshake, StartError } from './handshake';
import type { PendingPermission } from './permissions';
import type { Enqueued, PromptQueue } from './promptQueue';
import { makeQuirks } from './quirks';
import { defaultRuntimeSettings, type RuntimeOptions, type RuntimeSettings } from './runtimeOptions';
import { steerMethodFor } from './steering';
import type { ExitCleanup, StopReport } from './stopReport';
import type { SessionConfig, SetValue } from './sessionConfig';
import type { SetConfigResult } from './sessionControls';
import type { SessionCaps } from './sessionCaps';
import type { ListOutcome } from './sessionList';
import type { LoadOutcome } from './sessionSwitch';
import { TurnController } from './turnController';
import type { StopCause, TurnResult } from './turnMachine';
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
  private readonly turns: TurnController;
  /** The current session: opened, replaced, listed; its controls; the agent's updates routed (currentSession.ts). */
  private readonly session: CurrentSession;
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
  /** An update for the current session, after its config and the turn took it (currentSession.ts). */
  get onUpdate() {
    return this.session.onUpdate;
  }
  /** A terminal's output changed (at most every 100 ms) or it exited: for the tool call's card. */
  get onTerminalOutput() {
    return this.terminals.onOutput;
  }

  constructor(private readonly options: RuntimeOptions) {
    const settings = options.settings ?? (() => defaultRuntimeSettings);
    this.settings = settings;
    const quirks = options.quirks ?? makeQuirks();
    this.turns = new TurnController({
      name: options.name,
      log: options.log,
      quirks,
      // Learned per agent: its settings entry, then what its `initialize` answer says (steering.ts).
      steerMethod: () => steerMethodFor(this.initResult, quirks.steerMethod),
      settings,
      link: () => ({ conn: this.conn, sessionId: this.session.id }),
      agentPid: () => this.proc?.pid,
      phase: () => this.phaseValue,
      protocolVersion: () => this.initResult?.protocolVersion ?? PROTOCOL_VERSION,
      turnTerminals: (turnId) => this.terminals.runningPids(turnId),
      listProcesses: options.listProcesses,
      beforeQueuedTurn: options.beforeQueuedTurn,
    });
    this.terminals = this.owned.add(
      new TerminalHost({
        root: options.launch.cwd,
        log: options.log,
        sessionId: () => this.session.id,
        turn: () => this.turns.turn,
        // Terminals are not in the agent's tree: its watchdog ends them too if this host dies.
        guard: (pid, start) => this.proc?.guardTerminal(pid, start),
        onOutputData: options.terminalLog,
      }),
    );
    this.turns.onDidChange(() => this._onDidChangeState.fire());
    this.session = new CurrentSession({
      name: options.name,
      log: options.log,
      cwd: options.launch.cwd,
      conn: () => this.conn,
      init: () => this.initResult,
      phase: () => this.phaseValue,
      timeoutMs: () => settings().initializeTimeoutMs,
      mcpServers: options.mcpServers,
      stop: (cause) => this.stop(cause),
      barrier: () => this.turns.barrier(),
      endTerminals: (why) => this.terminals.endAll(why),
      noteTurn: (n) => this.turns.noteUpdate(n),
      replaced: () => {
        this._onDidChangeState.fire();
        return this.turns.sessionReplaced();
      },
      changed: () => this._onDidChangeState.fire(),
    });
    this.end = new AgentEnd({
      name: options.name,
      log: options.log,
      terminals: this.terminals,
      turns: this.turns,
      proc: () => this.proc,
      conn: () => this.conn,
      wasReady: () => this.phaseValue === 'ready',
      markExited: () => this.phaseValue !== 'failed' && this.setPhase('exited'),
      exitCleanup: (cleanup) => this._onExitCleanup.fire(cleanup),
      exited: (closed) => this._onExit.fire(closed),
    });
  }

  /** What the agent can do with sessions besides session/new (load, resume, list, close, delete). */
  get sessionCaps(): SessionCaps {
    return this.session.switch.caps;
  }
  /** A load or resume is about to go out (a load's replay follows). */
  get onSessionOpening() {
    return this.session.switch.onOpening;
  }
  /** A session became current (new, loaded, resumed), or a reopen failed and which one is current instead. */
  get onSessionOpened() {
    return this.session.switch.onOpened;
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

  get name(): string {
    return this.options.name;
  }
  get phase(): RuntimePhase {
    return this.phaseValue;
  }
  get sessionId(): string | undefined {
    return this.session.id;
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
    return this.session.controls.config;
  }
  /** MCP servers left out of a session because the agent does not advertise their transport. */
  get onMcpSkipped() {
    return this.session.controls.onMcpSkipped;
  }
  /** Why the last start failed, if it did. */
  get startFailure(): string | undefined {
    return this.startFailureValue;
  }

  /**
   * Start a turn; resolves when it ends (never rejects). The caller checks the folder admission.
   * `files` (file URIs or absolute paths) go as links, embedded text or images, as far as the
   * agent's promptCapabilities allow (acp/promptContent.ts); one that cannot be read: not sent.
   */
  async prompt(text: string, files?: string[]): Promise<TurnResult> {
    if (!files?.length) return this.turns.prompt(text);
    const { blocks, problems } = await promptBlocks({ text, files }, this.initResult?.agentCapabilities?.promptCapabilities);
    if (problems.length > 0) return { kind: 'not-sent', why: problems.join('; ') };
    return this.turns.prompt(text, blocks);
  }

  /** Prompts waiting for the running turn to end by itself, and steers into it (promptQueue.ts). */
  get waiting(): PromptQueue {
    return this.turns.waiting;
  }

  /** Queue a prompt, with its files as `prompt` sends them, for when the running turn ends by itself. */
  async enqueue(text: string, files?: string[]): Promise<Enqueued> {
    if (!files?.length) return this.turns.waiting.enqueue(text);
    const { blocks, problems } = await promptBlocks({ text, files }, this.initResult?.agentCapabilities?.promptCapabilities);
    if (problems.length > 0) return { queued: false, notSent: problems.join('; ') };
    return this.turns.waiting.enqueue(text, blocks, files);
  }

  /** `configId` 'mode' / 'model' name the option of that category; 'mode' falls back to session/set_mode. */
  setConfigOption(configId: string, value: SetValue): Promise<SetConfigResult> {
    return this.session.controls.set(configId, value);
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

  /** Permission request `id` cannot be shown (`why`): answered `cancelled` at once, and logged. */
  refusePermission(id: string, why: string): boolean {
    const refused = this.turns.permissions.refuse(id, why);
    if (refused) this.options.log.warn(`agent ${this.name}: answered permission request ${id} cancelled: Reins cannot show it (${why})`);
    return refused;
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
    const proc = new AgentProcess(launch, log);
    this.proc = proc;
    // Only this session's requests; limits and the write report attached by the folder conversation (fileHooks.ts).
    const files = this.options.files ?? diskFileAccess(launch.cwd, { sessionId: () => this.session.id, hooksOwner: this });
    const conn = new AcpConnection(
      proc,
      {
        sessionUpdate: (n) => this.session.receive(n),
        requestPermission: (r, signal) => this.turns.holdPermission(r, signal),
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
      const session = await this.session.openFirst(this.options.reopen);
      // Its own helpers (codex-acp's native binary, gemini's relaunched self, claude's Claude
      // Code process) start now.
      await this.turns.refreshBaseline();
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

  /**
   * Replace the session with a fresh one in the same process. The running turn is stopped
   * first; if that stop is unverified, nothing is replaced (the folder stays closed), and if
   * the agent exited meanwhile, nothing is replaced either (check `phase`).
   */
  newSession(): Promise<StopReport> {
    return this.session.renew();
  }

  /**
   * Replace the session with an earlier one (session/load, or session/resume: sessionSwitch.ts),
   * by newSession's rules: the running turn is stopped first, and an unverified stop (or an
   * agent that exited meanwhile) replaces nothing (no `outcome`).
   */
  loadSession(sessionId: string, keepTranscript = false): Promise<{ report: StopReport; outcome?: LoadOutcome }> {
    return this.session.load(sessionId, keepTranscript);
  }

  /** session/list, every page (only where the agent offers it). */
  listSessions(): Promise<ListOutcome> {
    return this.session.list();
  }

  /** session/delete (only where offered; never the current session). */
  deleteSession(sessionId: string): Promise<void> {
    return this.session.delete(sessionId);
  }

  /** Stop any turn (budget `budgetMs`), then end the agent's whole process tree (agentEnd.ts). */
  shutdown(cause: StopCause, budgetMs?: number): Promise<StopReport | undefined> {
    return this.end.shutdown(cause, budgetMs);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.end.requested = true;
    this.turns.dispose();
    this.session.dispose();
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

  /** End the agent's whole process tree; a running turn goes through the routine first (agentEnd.ts). */
  forceStop(): Promise<StopReport | undefined> {
    return this.end.forceStop();
  }

  private setPhase(phase: RuntimePhase): void {
    this.phaseValue = phase;
    this._onDidChangeState.fire();
  }
}
