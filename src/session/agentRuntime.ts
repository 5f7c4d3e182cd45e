// One agent process, its ACP connection and its current session, with the turn controller
// that carries out the turn machine's effects (sends, timers, kills). No `vscode` here: the
// extension and the interop suite drive the same code.
//
// Every way a turn ends early comes through `stop(cause)`, which feeds the machine's single
// `stop` event; the machine decides what is sent. Nothing else here sends session/cancel
// except the machine's `sendCancel` effect, and nothing else kills the agent except
// `forceStop`, `shutdown` and a dead connection.
import { PROTOCOL_VERSION } from '../acp/protocol';
import type {
  InitializeResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import { AgentProcess, describeExit, type AgentLaunch, type ExitInfo } from '../acp/agentProcess';
import { AcpConnection, AgentExitedError, type ConnectionClosed } from '../acp/connection';
import { diskFileAccess, type FileAccess } from '../acp/clientMethods/fs';
import { descendantsNow, leftoverProcesses, signalAll, type ProcessInfo } from '../acp/processTree';
import type { TraceLevel } from '../acp/trace';
import { Deferred } from '../util/deferred';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { makeQuirks, type Quirks } from './quirks';
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

export interface RuntimeSettings {
  settleTimeoutMs: number;
  busyRetryMs: number;
  /** 0 = no limit. */
  turnTimeoutMs: number;
  /** 0 = no cap. The turn is stopped when a tool call beyond the cap starts. */
  maxToolCallsPerTurn: number;
  initializeTimeoutMs: number;
  leftoverProcesses: 'ask' | 'end' | 'leave';
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
  /** Longest line accepted from the agent (default 64 MiB). */
  maxLineBytes?: number;
}

export type AgentPhase = 'new' | 'starting' | 'ready' | 'failed' | 'exited';

export interface StopReport extends StopRecord {
  agent: string;
  sessionId?: string;
  /** Tool processes started during the turn that were still alive after it settled
   *  (filled in when `leftoversFound` resolves: the scan runs after the outcome is known). */
  leftovers: ProcessInfo[];
  leftoversFound: Promise<ProcessInfo[]>;
  /** What was done with them: 'ended', 'left', 'ask' (the UI decides), or 'unsupported' (Windows: not detectable). */
  leftoverAction?: 'ended' | 'left' | 'ask' | 'unsupported';
}

export interface PendingPermission {
  id: string;
  turnId: number;
  request: RequestPermissionRequest;
}

export class StartError extends Error {
  constructor(
    message: string,
    readonly launch: AgentLaunch,
    readonly exit: ExitInfo | undefined,
    readonly stderrTail: string[],
  ) {
    super(message);
    this.name = 'StartError';
  }
}

export class AgentRuntime {
  private machine: MachineState = initialState;
  private phaseValue: AgentPhase = 'new';
  private proc: AgentProcess | undefined;
  private conn: AcpConnection | undefined;
  private sessionIdValue: string | undefined;
  private initResult: InitializeResponse | undefined;
  private readonly settings: () => RuntimeSettings;
  private readonly quirks: Quirks;

  private readonly turnTexts = new Map<number, string>();
  private readonly turnResults = new Map<number, Deferred<TurnResult>>();
  private turnStartedAt = 0;
  /**
   * The agent's own processes, listed while no turn ran (before ready, after each turn): they
   * are never taken for a turn's leftovers. A listing that a new turn overtook adds only what
   * `ps` dates a second before that turn, so the turn's own tools can never hide in it.
   */
  private idleBaseline = new Set<number>();
  private turnBaseline = new Set<number>();
  private turnToolIds = new Set<string>();
  private turnBudgetTimer: NodeJS.Timeout | undefined;
  private readonly timers = new Map<TimerName, NodeJS.Timeout>();
  private currentStop: Deferred<StopReport> | undefined;
  private lastStop: StopReport | undefined;
  private lastLeftovers: ProcessInfo[] = [];
  private leftoversUnsupportedSaid = false;
  private readonly permissions = new Map<string, { pending: PendingPermission; answer: Deferred<RequestPermissionResponse> }>();
  private permissionSeq = 0;
  private dispatching = false;
  private readonly queue: MachineEvent[] = [];
  private disposed = false;

  /** Counters the tests and the log read: what this runtime actually put on the wire. */
  readonly sent = { prompts: 0, cancels: 0 };

  private readonly _onDidChangeState = new Emitter<void>();
  readonly onDidChangeState = this._onDidChangeState.event;
  private readonly _onUpdate = new Emitter<SessionNotification>();
  readonly onUpdate = this._onUpdate.event;
  private readonly _onPermission = new Emitter<PendingPermission>();
  readonly onPermission = this._onPermission.event;
  private readonly _onPermissionResolved = new Emitter<{ id: string; optionId?: string; cancelled: boolean }>();
  readonly onPermissionResolved = this._onPermissionResolved.event;
  private readonly _onToolsCancelled = new Emitter<number>();
  readonly onToolsCancelled = this._onToolsCancelled.event;
  private readonly _onTurnStarted = new Emitter<{ turnId: number; text: string }>();
  readonly onTurnStarted = this._onTurnStarted.event;
  private readonly _onTurnEnded = new Emitter<{ turnId: number; text: string; result: TurnResult }>();
  readonly onTurnEnded = this._onTurnEnded.event;
  private readonly _onStop = new Emitter<StopReport>();
  readonly onStop = this._onStop.event;
  /** A stop's turn left tool processes running (after onStop, once the scan is done). */
  private readonly _onLeftovers = new Emitter<StopReport>();
  readonly onLeftovers = this._onLeftovers.event;
  private readonly _onExit = new Emitter<ConnectionClosed>();
  readonly onExit = this._onExit.event;
  private readonly _onStderr = new Emitter<string>();
  readonly onStderr = this._onStderr.event;

  constructor(private readonly options: RuntimeOptions) {
    this.settings = options.settings ?? (() => defaultRuntimeSettings);
    this.quirks = options.quirks ?? makeQuirks();
  }

  get name(): string {
    return this.options.name;
  }
  get phase(): AgentPhase {
    return this.phaseValue;
  }
  get turn() {
    return this.machine.turn;
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
  /** The last stop's report, kept while it is unverified so that a second stop can join it. */
  get lastStopReport(): StopReport | undefined {
    return this.lastStop;
  }
  get pendingPermissions(): PendingPermission[] {
    return [...this.permissions.values()].map((p) => p.pending);
  }
  /** Text of the running turn, if any. */
  get runningText(): string | undefined {
    const t = this.machine.turn;
    return t.phase === 'idle' ? undefined : this.turnTexts.get(t.turnId);
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Spawn the agent, `initialize`, `session/new`. Throws StartError with what the user needs. */
  async start(): Promise<void> {
    if (this.phaseValue !== 'new') throw new Error(`agent ${this.name} was already started`);
    const { launch, log } = this.options;
    this.setPhase('starting');
    const proc = new AgentProcess(launch, log, (line) => this._onStderr.fire(line));
    this.proc = proc;
    const files = this.options.files ?? diskFileAccess(launch.cwd);
    const conn = new AcpConnection(
      proc,
      {
        sessionUpdate: (n) => this.onSessionUpdate(n),
        requestPermission: (r) => this.onRequestPermission(r),
        readTextFile: (p) => files.readTextFile(p),
        writeTextFile: (p) => files.writeTextFile(p),
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
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
          clientInfo: this.options.clientInfo ?? { name: 'reins', version: '0.0.0' },
        },
        timeout,
      );
      if (this.initResult.protocolVersion !== PROTOCOL_VERSION) {
        log.warn(`agent speaks ACP version ${this.initResult.protocolVersion}; Reins speaks ${PROTOCOL_VERSION}`);
      }
      const session = await conn.newSession({ cwd: launch.cwd, mcpServers: [] }, timeout);
      this.sessionIdValue = session.sessionId;
      // Its own helpers (codex-acp's native binary, gemini's relaunched self) start now.
      await this.refreshBaseline();
      log.info(`agent ${this.name} ready: session ${session.sessionId} (${this.initResult.agentInfo?.name ?? 'unnamed'} ${this.initResult.agentInfo?.version ?? ''})`);
      this.setPhase('ready');
    } catch (error) {
      const message = describeStartFailure(launch, error, proc);
      log.error(`agent ${this.name} failed to start: ${message}`);
      this.setPhase('failed');
      await proc.end();
      conn.dispose();
      throw new StartError(message, launch, proc.exit, proc.currentStderrTail());
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
    const session = await this.conn.newSession({ cwd: this.options.launch.cwd, mcpServers: [] }, this.settings().initializeTimeoutMs);
    this.options.log.info(`agent ${this.name}: new session ${session.sessionId} replaces ${this.sessionIdValue}`);
    this.sessionIdValue = session.sessionId;
    this._onDidChangeState.fire();
    return report;
  }

  /** Stop any turn (budget `budgetMs`), then end the agent's whole process tree. */
  async shutdown(cause: StopCause, budgetMs?: number): Promise<StopReport | undefined> {
    let report: StopReport | undefined;
    if (this.machine.turn.phase !== 'idle') report = await this.stop(cause, budgetMs);
    await this.proc?.end();
    this.conn?.dispose();
    return report;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    clearTimeout(this.turnBudgetTimer);
    void this.proc?.end();
    this.conn?.dispose();
  }

  // ---- turns -----------------------------------------------------------------------------

  /** True when a new prompt may be sent now (no turn, agent ready). */
  get canPrompt(): boolean {
    return this.phaseValue === 'ready' && this.machine.turn.phase === 'idle';
  }

  /** Start a turn. Resolves when it ends (never rejects). The caller checks the folder gate. */
  prompt(text: string): Promise<TurnResult> {
    if (!this.canPrompt) {
      return Promise.resolve({ kind: 'not-sent', why: this.phaseValue !== 'ready' ? `the agent is ${this.phaseValue}` : 'a turn is already running' });
    }
    const turnId = this.machine.lastTurnId + 1;
    const result = new Deferred<TurnResult>();
    this.turnTexts.set(turnId, text);
    this.turnResults.set(turnId, result);
    this.turnStartedAt = Date.now();
    this.turnBaseline = this.idleBaseline;
    this.turnToolIds = new Set();
    this._onTurnStarted.fire({ turnId, text });
    this.dispatch({ kind: 'submit', at: Date.now() });
    const { turnTimeoutMs } = this.settings();
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

  /**
   * End the agent's whole process tree. A running turn goes through the routine first (so
   * its report is the one everybody awaits); the exit is its evidence.
   */
  async forceStop(): Promise<StopReport | undefined> {
    const running = this.machine.turn.phase === 'running' || this.machine.turn.phase === 'waiting';
    const pending = running || this.machine.turn.phase === 'stopping' ? this.stop('user') : this.machine.turn.phase === 'unverified' ? this.checkAgain() : undefined;
    this.options.log.warn(`force stop: ending agent ${this.name} (pid ${this.proc?.pid}) and its process tree`);
    await this.proc?.end(500);
    return pending;
  }

  respondPermission(id: string, optionId: string): boolean {
    const entry = this.permissions.get(id);
    if (!entry) return false;
    this.permissions.delete(id);
    entry.answer.resolve({ outcome: { outcome: 'selected', optionId } });
    this._onPermissionResolved.fire({ id, optionId, cancelled: false });
    return true;
  }

  /** End the tool processes the last stop found still running. */
  endLeftovers(): ProcessInfo[] {
    const ended = this.lastLeftovers;
    signalAll(ended.map((p) => p.pid), 'SIGTERM');
    setTimeout(() => signalAll(ended.map((p) => p.pid), 'SIGKILL'), 1000).unref();
    this.lastLeftovers = [];
    this.options.log.info(`ended ${ended.length} leftover tool process(es): ${ended.map((p) => `${p.pid} ${p.command}`).join('; ')}`);
    return ended;
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
          settleBudgetMs: this.settings().settleTimeoutMs,
          busyRetryBudgetMs: this.settings().busyRetryMs,
        });
        this.machine = state;
        for (const effect of effects) this.run(effect);
      }
    } finally {
      this.dispatching = false;
    }
    this._onDidChangeState.fire();
  }

  private run(effect: Effect): void {
    switch (effect.kind) {
      case 'sendPrompt':
        return this.sendPrompt(effect.turnId);
      case 'sendCancel':
        return this.sendCancel(effect.why);
      case 'cancelPermissions':
        return this.cancelPermissions();
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
    const conn = this.conn;
    const sessionId = this.sessionIdValue;
    const text = this.turnTexts.get(turnId) ?? '';
    if (!conn || !sessionId || conn.isClosed) {
      this.dispatch({ kind: 'failed', turnId, message: 'the agent is not connected', at: Date.now() });
      return;
    }
    this.sent.prompts++;
    conn.prompt({ sessionId, prompt: [{ type: 'text', text }] }).then(
      (response) => this.dispatch({ kind: 'answered', turnId, stopReason: String(response?.stopReason ?? 'end_turn'), at: Date.now() }),
      (error: unknown) => {
        // A dead connection is handled once, as a dead stream, by onConnectionClosed.
        if (error instanceof AgentExitedError) return;
        const rpc = error instanceof ResponseError ? { code: error.code, message: error.message, data: error.data } : { message: String((error as Error)?.message ?? error) };
        const message = rpc.data !== undefined ? `${rpc.message}: ${typeof rpc.data === 'string' ? rpc.data : JSON.stringify(rpc.data)}` : rpc.message;
        if (this.quirks.isBusyRejection(rpc)) {
          this.options.log.info(`agent ${this.name} is busy with an earlier run (${message}); cancelling it and retrying`);
          this.dispatch({ kind: 'busyRejected', turnId, message, at: Date.now() });
        } else {
          this.dispatch({ kind: 'failed', turnId, message, at: Date.now() });
        }
      },
    );
  }

  private sendCancel(why: string): void {
    const conn = this.conn;
    const sessionId = this.sessionIdValue;
    if (!conn || !sessionId || conn.isClosed) {
      this.options.log.debug(`session/cancel (${why}) not sent: the connection is closed`);
      return;
    }
    this.sent.cancels++;
    conn.cancel({ sessionId }).catch((error: Error) => this.options.log.debug(`session/cancel (${why}) failed: ${error.message}`));
  }

  private cancelPermissions(): void {
    for (const [id, entry] of this.permissions) {
      entry.answer.resolve({ outcome: { outcome: 'cancelled' } });
      this._onPermissionResolved.fire({ id, cancelled: true });
    }
    this.permissions.clear();
  }

  private endTurn(turnId: number, result: TurnResult): void {
    clearTimeout(this.turnBudgetTimer);
    this.turnBudgetTimer = undefined;
    const text = this.turnTexts.get(turnId) ?? '';
    this.turnTexts.delete(turnId);
    const deferred = this.turnResults.get(turnId);
    this.turnResults.delete(turnId);
    // Permissions of a turn that ended can no longer be answered usefully.
    if (this.permissions.size > 0) this.cancelPermissions();
    this._onTurnEnded.fire({ turnId, text, result });
    deferred?.resolve(result);
    // A stopped turn refreshes after its leftover scan, so that its leftovers are seen first.
    if (result.kind !== 'stopped') void this.refreshBaseline();
  }

  private endStop(stop: StopRecord): void {
    const deferred = this.currentStop;
    const report: StopReport = { ...stop, agent: this.name, sessionId: this.sessionIdValue, leftovers: [], leftoversFound: Promise.resolve([]) };
    if (stop.noop) {
      // Nothing was running: answer the caller, but there was no routine to report.
      deferred?.resolve(report);
      return;
    }
    // Tool processes that outlived the turn (codex-acp leaves a cancelled `sleep 37`). The
    // scan runs `ps` over the whole machine, so it comes after the outcome: the gate and a
    // waiting "send now" do not pay for it.
    const pid = this.proc?.pid;
    if (pid !== undefined && stop.firstCancelAt !== undefined && stop.outcome !== 'agent-exited') {
      // This turn's start and baseline, taken now: a "send now" turn replaces both next.
      const since = this.turnStartedAt;
      const baseline = this.turnBaseline;
      report.leftoversFound = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.scanLeftovers(report, pid, since, baseline));
      void report.leftoversFound.then(() => this.refreshBaseline());
    }
    this.lastStop = report;
    this.options.log.info(formatStopLine(report));
    deferred?.resolve(report);
    if (this.currentStop === deferred) this.currentStop = undefined;
    this._onStop.fire(report);
    this._onDidChangeState.fire();
  }

  private refreshBaseline(): Promise<void> {
    const pid = this.proc?.pid;
    if (pid === undefined || process.platform === 'win32' || this.machine.turn.phase !== 'idle') return Promise.resolve();
    const turnBefore = this.machine.lastTurnId;
    return descendantsNow(pid).then((procs) => {
      if (this.machine.lastTurnId === turnBefore) {
        this.idleBaseline = new Set(procs.map((p) => p.pid));
      } else if (this.machine.lastTurnId === turnBefore + 1) {
        // A turn began while `ps` ran: for that turn, only what is surely older than it
        // (ps's start times are to the second) joins the baseline.
        const older = procs.filter((p) => p.startedAt < this.turnStartedAt - 1000).map((p) => p.pid);
        this.turnBaseline = new Set([...this.turnBaseline, ...older]);
      }
    });
  }

  private async scanLeftovers(report: StopReport, pid: number, since: number, baseline: ReadonlySet<number>): Promise<ProcessInfo[]> {
    if (process.platform === 'win32') {
      // No `ps` and no process groups: say once that leftovers cannot be seen here.
      if (!this.leftoversUnsupportedSaid) {
        this.leftoversUnsupportedSaid = true;
        report.leftoverAction = 'unsupported';
        this._onLeftovers.fire(report);
      }
      return [];
    }
    const found = await leftoverProcesses(pid, since, baseline);
    report.leftovers = found;
    this.lastLeftovers = found;
    if (found.length === 0) return found;
    const policy = this.settings().leftoverProcesses;
    report.leftoverAction = policy === 'end' ? 'ended' : policy === 'leave' ? 'left' : 'ask';
    this.options.log.info(
      `stop of turn ${report.turnId}: ${found.length} tool process(es) still running: ${found.map((p) => `${p.pid} ${p.command}`).join('; ')} (${report.leftoverAction})`,
    );
    if (policy === 'end') this.endLeftovers();
    this._onLeftovers.fire(report);
    return found;
  }

  // ---- what the agent sends ----------------------------------------------------------------

  private onSessionUpdate(notification: SessionNotification): void {
    if (notification.sessionId !== this.sessionIdValue) {
      this.options.log.debug(`ignored an update for session ${notification.sessionId} (current ${this.sessionIdValue})`);
      return;
    }
    if (this.quirks.isIdleSignal(notification)) this.dispatch({ kind: 'idleSignal', at: Date.now() });
    const update = notification.update;
    const turn = this.machine.turn;
    if (update.sessionUpdate === 'tool_call' && turn.phase === 'running') {
      this.turnToolIds.add(update.toolCallId);
      const cap = this.settings().maxToolCallsPerTurn;
      if (cap > 0 && this.turnToolIds.size > cap) {
        this.options.log.info(`turn ${turn.turnId}: tool call ${this.turnToolIds.size} exceeds the cap of ${cap}; stopping`);
        void this.stop('tool-cap');
      }
    }
    this._onUpdate.fire(notification);
  }

  private onRequestPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const turn = this.machine.turn;
    // Outside a running turn (or once it is stopping) nobody may approve anything.
    if (request.sessionId !== this.sessionIdValue || turn.phase !== 'running') {
      this.options.log.info(`answered a permission request cancelled: no running turn (${turn.phase})`);
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    }
    const id = `perm-${++this.permissionSeq}`;
    const pending: PendingPermission = { id, turnId: turn.turnId, request };
    const answer = new Deferred<RequestPermissionResponse>();
    this.permissions.set(id, { pending, answer });
    this._onPermission.fire(pending);
    return answer.promise;
  }

  private onConnectionClosed(closed: ConnectionClosed): void {
    const wasReady = this.phaseValue === 'ready';
    if (this.phaseValue !== 'failed') this.setPhase('exited');
    if (!wasReady) return;
    // A dead stream is an exit path like any other: through the routine. The exit (waited
    // for, or forced here when only the stream died) is its evidence.
    const stopping = this.machine.turn.phase !== 'idle' ? this.stop('dead-stream') : undefined;
    void (async () => {
      const exit = await (this.proc?.hasExited ? this.proc.exited : this.proc?.end());
      this.dispatch({ kind: 'exited', detail: exit ? describeExit(exit) : closed.detail, at: Date.now() });
      this.cancelPermissions();
      await stopping;
      this._onExit.fire(closed);
    })();
  }

  private setPhase(phase: AgentPhase): void {
    this.phaseValue = phase;
    this._onDidChangeState.fire();
  }
}

/** One line per stop in the log: reason, session, turn, cancel timing, evidence, outcome. */
export function formatStopLine(r: StopReport): string {
  const rel = (t?: number) => (t === undefined ? '-' : `+${t - r.requestedAt} ms`);
  const evidence = !r.evidence
    ? 'none'
    : r.evidence.kind === 'answered'
      ? `answered ${r.evidence.stopReason}`
      : r.evidence.kind === 'error'
        ? `error "${r.evidence.message}"`
        : r.evidence.kind === 'exited'
          ? `exited (${r.evidence.detail.split('\n')[0]})`
          : 'idle signal';
  return (
    `stop: reason=${r.cause} agent=${r.agent} session=${r.sessionId ?? '-'} turn=${r.turnId} ` +
    `cancel=${rel(r.firstCancelAt)} cancels=${r.cancelsSent} evidence=${evidence} at ${rel(r.settledAt)} ` +
    `outcome=${r.outcome}${r.unverifiedCause ? ` (${r.unverifiedCause})` : ''}`
  );
}

function describeStartFailure(launch: AgentLaunch, error: unknown, proc: AgentProcess): string {
  const command = [launch.command, ...launch.args].join(' ');
  if (error instanceof AgentExitedError) {
    return `\`${command}\` ${error.closed.exit ? describeExit(error.closed.exit) : error.closed.detail}`;
  }
  const tail = proc.currentStderrTail().slice(-8).join('\n');
  return `\`${command}\`: ${(error as Error)?.message ?? String(error)}${tail ? `; stderr:\n${tail}` : ''}`;
}
