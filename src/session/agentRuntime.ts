// One agent process, its ACP connection and its current session, with the turn controller
// that carries out the turn machine's effects (sends, timers, kills). No `vscode` here: the
// extension and the interop suite drive the same code.
//
// Every way a turn ends early comes through `stop(cause)`, which feeds the machine's single
// `stop` event; the machine decides what is sent. Nothing else here sends session/cancel
// except the machine's `sendCancel` effect, and nothing else kills the agent except
// `forceStop`, `shutdown` and a dead connection.
import { PROTOCOL_VERSION } from '../acp/protocol';
import type { InitializeResponse, RequestPermissionRequest, RequestPermissionResponse, SessionNotification } from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import { AgentProcess, describeExit, type AgentLaunch, type ExitInfo } from '../acp/agentProcess';
import { AcpConnection, AgentExitedError, type ConnectionClosed } from '../acp/connection';
import { diskFileAccess, type FileAccess } from '../acp/clientMethods/fs';
import { descendantsNow, type ProcessInfo } from '../acp/processTree';
import type { TraceLevel } from '../acp/trace';
import { Deferred } from '../util/deferred';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { LeftoverWatch } from './leftovers';
import { looksOutOfStep } from './outOfStep';
import { Permissions, type PendingPermission, type PermissionResolved } from './permissions';
import { makeQuirks, type Quirks } from './quirks';
import { formatStopLine, type ExitCleanup, type StopReport } from './stopReport';
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

export type { PendingPermission } from './permissions';
export { formatStopLine, type StopReport } from './stopReport';

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
  private turnToolIds = new Set<string>();
  /** Facts for spotting an answer that belongs to the turn before (see outOfStep.ts). */
  private turnSawContent = false;
  private lastTurnStopped = false;
  private turnBudgetTimer: NodeJS.Timeout | undefined;
  private readonly timers = new Map<TimerName, NodeJS.Timeout>();
  private currentStop: Deferred<StopReport> | undefined;
  private lastStop: StopReport | undefined;
  private readonly leftovers: LeftoverWatch;
  private leftoversUnsupportedSaid = false;
  private readonly permissions = new Permissions();
  /** Set when Reins itself ends the agent (force stop, shutdown, dispose): that exit is no failure. */
  private endRequested = false;
  private dispatching = false;
  private readonly queue: MachineEvent[] = [];
  private disposed = false;

  /** Counters the tests and the log read: what this runtime actually put on the wire. */
  readonly sent = { prompts: 0, cancels: 0 };

  private readonly _onDidChangeState = new Emitter<void>();
  readonly onDidChangeState = this._onDidChangeState.event;
  private readonly _onUpdate = new Emitter<SessionNotification>();
  readonly onUpdate = this._onUpdate.event;
  readonly onPermission = this.permissions.onRequest;
  readonly onPermissionResolved: (listener: (e: PermissionResolved) => void) => { dispose(): void } = this.permissions.onResolved;
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
  /** The agent is gone. `requested`: Reins ended it (force stop, replacement, exit), so it is no failure. */
  private readonly _onExit = new Emitter<ConnectionClosed & { requested: boolean }>();
  readonly onExit = this._onExit.event;
  /** The agent exited by itself and Reins ended what was left of its process group. */
  private readonly _onExitCleanup = new Emitter<ExitCleanup>();
  readonly onExitCleanup = this._onExitCleanup.event;
  private readonly _onStderr = new Emitter<string>();
  readonly onStderr = this._onStderr.event;

  constructor(private readonly options: RuntimeOptions) {
    this.settings = options.settings ?? (() => defaultRuntimeSettings);
    this.quirks = options.quirks ?? makeQuirks();
    this.leftovers = new LeftoverWatch(options.log);
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
    return this.permissions.list();
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
    // Only this session's requests; limits and the write report attached by the folder session (fileHooks.ts).
    const files = this.options.files ?? diskFileAccess(launch.cwd, { sessionId: () => this.sessionIdValue, hooksOwner: this });
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
      // Its own helpers (codex-acp's native binary, gemini's relaunched self, claude's Claude
      // Code process) start now.
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
    // The stopped turn's process listing is taken before session/new can start anything.
    await this.leftovers.barrier();
    const session = await this.conn.newSession({ cwd: this.options.launch.cwd, mcpServers: [] }, this.settings().initializeTimeoutMs);
    this.options.log.info(`agent ${this.name}: new session ${session.sessionId} replaces ${this.sessionIdValue}`);
    this.sessionIdValue = session.sessionId;
    this.lastTurnStopped = false;
    this._onDidChangeState.fire();
    // A new session may bring its own processes (claude-agent-acp starts one per session).
    await this.refreshBaseline();
    return report;
  }

  /** Stop any turn (budget `budgetMs`), then end the agent's whole process tree. */
  async shutdown(cause: StopCause, budgetMs?: number): Promise<StopReport | undefined> {
    let report: StopReport | undefined;
    if (this.machine.turn.phase !== 'idle') report = await this.stop(cause, budgetMs);
    this.endRequested = true;
    await this.proc?.end();
    this.conn?.dispose();
    return report;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.endRequested = true;
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

  /**
   * Start a turn. Resolves when it ends (never rejects). The caller checks the folder gate.
   * After a stop, the prompt waits for that stop's process listing (a few ms of `ps`), so
   * that nothing the new turn starts can be taken for the stopped turn's leftovers.
   */
  async prompt(text: string): Promise<TurnResult> {
    await this.leftovers.barrier();
    if (!this.canPrompt) {
      return Promise.resolve({ kind: 'not-sent', why: this.phaseValue !== 'ready' ? `the agent is ${this.phaseValue}` : 'a turn is already running' });
    }
    const turnId = this.machine.lastTurnId + 1;
    const result = new Deferred<TurnResult>();
    this.turnTexts.set(turnId, text);
    this.turnResults.set(turnId, result);
    this.leftovers.beginTurn(Date.now());
    this.turnToolIds = new Set();
    this.turnSawContent = false;
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
    this.endRequested = true;
    await this.proc?.end(500);
    return pending;
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
    const conn = this.conn;
    const sessionId = this.sessionIdValue;
    const text = this.turnTexts.get(turnId) ?? '';
    if (!conn || !sessionId || conn.isClosed) {
      this.dispatch({ kind: 'failed', turnId, message: 'the agent is not connected', at: Date.now() });
      return;
    }
    this.sent.prompts++;
    conn.prompt({ sessionId, prompt: [{ type: 'text', text }] }).then(
      (response) => {
        const stopReason = String(response?.stopReason ?? 'end_turn');
        const outOfStep = looksOutOfStep({
          afterStop: this.lastTurnStopped,
          stopReason,
          sawContent: this.turnSawContent,
          usage: (response as { usage?: unknown } | undefined)?.usage,
        });
        if (outOfStep) this.options.log.warn(`agent ${this.name} answered turn ${turnId} with an empty end_turn right after a stopped turn: it is one turn behind`);
        this.dispatch({ kind: 'answered', turnId, stopReason, outOfStep, at: Date.now() });
      },
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

  private endTurn(turnId: number, result: TurnResult): void {
    clearTimeout(this.turnBudgetTimer);
    this.turnBudgetTimer = undefined;
    const text = this.turnTexts.get(turnId) ?? '';
    this.turnTexts.delete(turnId);
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
    const report: StopReport = { ...stop, agent: this.name, sessionId: this.sessionIdValue, leftovers: [], leftoversFound: Promise.resolve([]) };
    if (stop.noop) {
      // Nothing was running: answer the caller, but there was no routine to report.
      deferred?.resolve(report);
      return;
    }
    // Tool processes that outlived the turn (codex-acp leaves a cancelled `sleep 37`). The
    // listing starts now, at the outcome; the gate opens at once, and what would start
    // something new (a prompt, session/new) waits for the listing (`leftovers.barrier`). An
    // agent that exited has its whole group ended by the exit path instead.
    const pid = this.proc?.pid;
    if (pid !== undefined && stop.firstCancelAt !== undefined && stop.outcome !== 'agent-exited') {
      report.leftoversFound = this.scanLeftovers(report, pid);
      void report.leftoversFound.then(() => this.refreshBaseline());
    }
    this.lastStop = report;
    this.options.log.info(formatStopLine(report));
    deferred?.resolve(report);
    if (this.currentStop === deferred) this.currentStop = undefined;
    this._onStop.fire(report);
    this._onDidChangeState.fire();
  }

  /** The agent's own processes, listed while no turn runs: never taken for a turn's leftovers. */
  private refreshBaseline(): Promise<void> {
    const pid = this.proc?.pid;
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
    const found = await this.leftovers.scan(pid);
    report.leftovers = found;
    if (found.length === 0) return found;
    const policy = this.settings().leftoverProcesses;
    report.leftoverAction = policy === 'end' ? 'ended' : policy === 'leave' ? 'left' : 'ask';
    this.options.log.info(
      `stop of turn ${report.turnId}: ${found.length} tool process(es) still running: ${found.map((p) => `${p.pid} ${p.command}`).join('; ')} (${report.leftoverAction})`,
    );
    if (policy === 'end') await this.endLeftovers();
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
    if (turn.phase === 'running' && CONTENT_UPDATES.has(update.sessionUpdate)) this.turnSawContent = true;
    if ((update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') && turn.phase !== 'idle') {
      this.leftovers.noteTool(update.toolCallId, update.title, update.rawInput, Date.now());
    }
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
    // gemini shows a tool first inside its permission request: the command is there.
    const tool = request.toolCall;
    if (tool) this.leftovers.noteTool(tool.toolCallId, tool.title, tool.rawInput, Date.now());
    return this.permissions.hold(turn.turnId, request);
  }

  private onConnectionClosed(closed: ConnectionClosed): void {
    const wasReady = this.phaseValue === 'ready';
    if (this.phaseValue !== 'failed') this.setPhase('exited');
    if (!wasReady) return;
    const requested = this.endRequested;
    // A dead stream is an exit path like any other: through the routine. The exit (waited
    // for, or forced here when only the stream died) is its evidence.
    const stopping = this.machine.turn.phase !== 'idle' ? this.stop('dead-stream') : undefined;
    void (async () => {
      const proc = this.proc;
      const exitedByItself = proc?.hasExited === true;
      // An agent that died leaves nothing of its group behind (a crashed agent's `sleep 60`
      // would run on under init): list what is left, then end the group and tree.
      const orphans = exitedByItself && proc?.pid !== undefined && !requested ? await descendantsNow(proc.pid) : [];
      const exit = await (exitedByItself ? proc.exited : proc?.end());
      if (exitedByItself) await proc.end();
      this.dispatch({ kind: 'exited', detail: exit ? describeExit(exit) : closed.detail, at: Date.now() });
      this.permissions.cancelAll();
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

/** Updates that show the turn doing something: an answer that comes with none of them is empty. */
const CONTENT_UPDATES = new Set(['agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan']);

function describeStartFailure(launch: AgentLaunch, error: unknown, proc: AgentProcess): string {
  const command = [launch.command, ...launch.args].join(' ');
  if (error instanceof AgentExitedError) {
    return `\`${command}\` ${error.closed.exit ? describeExit(error.closed.exit) : error.closed.detail}`;
  }
  const tail = proc.currentStderrTail().slice(-8).join('\n');
  return `\`${command}\`: ${(error as Error)?.message ?? String(error)}${tail ? `; stderr:\n${tail}` : ''}`;
}
