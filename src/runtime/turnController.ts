// The turn controller: carries out the pure turn machine's effects (prompt and cancel sends,
// timers, permission answers, the turn's end, the stop report, the leftover check) for one
// agent. Every way a turn ends early comes through `stop(cause)`, which feeds the machine's
// single `stop` event; nothing else here sends session/cancel but the `sendCancel` effect.
// What it needs of the agent (its connection, session, pid, phase) comes through `TurnPort`
// (turnPort.ts); what goes to the agent and comes from it for the turn, through `TurnWire`.
import type { ContentBlock, RequestPermissionRequest, RequestPermissionResponse, SessionNotification } from '@agentclientprotocol/sdk';
import type { ProcessInfo } from '../acp/processTree';
import { promptBlocks } from '../acp/promptContent';
import { Deferred } from '../util/deferred';
import { Emitter } from '../util/emitter';
import { AgentAsks } from './agentAsks';
import type { ElicitationAnswer, ElicitationRequest } from '../acp/elicitationParams';
import type { Elicitations } from './elicitations';
import { LeftoverWatch } from './leftovers';
import type { Permissions } from './permissions';
import { PromptQueue, type Enqueued, type QueuedPrompt } from './promptQueue';
import { checkStopLeftovers } from './stopLeftovers';
import { formatStopLine, type StopReport } from './stopReport';
import { initialState, transition, type Effect, type MachineEvent, type MachineState, type StopCause, type StopRecord, type TurnResult } from './turnMachine';
import type { TurnPort } from './turnPort';
import { TurnTimers } from './turnTimers';
import { TurnWire } from './turnWire';

export class TurnController {
  private machine: MachineState = initialState;
  /** What the stopped turn `turnId` was waiting on the user for (set as its stop cancels the requests). */
  private askedAtStop: { turnId: number; on: 'permission' | 'elicitation' | undefined } | undefined;
  private readonly turnTexts = new Map<number, string>();
  /** A turn's prompt when it is more than its text (attached files, acp/promptContent.ts). */
  private readonly turnBlocks = new Map<number, ContentBlock[]>();
  private readonly turnResults = new Map<number, Deferred<TurnResult>>();
  /** The turn before ended stopped: the next answer may be one turn behind (outOfStep.ts). */
  private lastTurnStopped = false;
  /** The machine's timers: each fires as its `timer` event. */
  private readonly timers = new TurnTimers((timer, turnId) => this.dispatch({ kind: 'timer', timer, turnId, at: Date.now() }));
  private currentStop: Deferred<StopReport> | undefined;
  private lastStop: StopReport | undefined;
  private readonly leftovers: LeftoverWatch;
  private leftoversUnsupportedSaid = false;
  /** The agent's permission requests and elicitations, answered by the same steps (agentAsks.ts). */
  private readonly asks: AgentAsks;
  readonly permissions: Permissions;
  readonly elicitations: Elicitations;
  /** What the running turn waits on the user for, if anything: a permission request, or an elicitation. */
  get waitingOn(): 'permission' | 'elicitation' | undefined {
    return this.asks.waitingOn;
  }
  private dispatching = false;
  private readonly queue: MachineEvent[] = [];
  /** The prompt and cancel out, the agent's updates and permission requests in (turnWire.ts). */
  private readonly wire: TurnWire;

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

  /** Prompts waiting for the running turn to end by itself, and steers: through the machine. */
  readonly waiting: PromptQueue;

  constructor(private readonly port: TurnPort) {
    // A request held or answered changes what the panel says ("Waiting for you" while one waits).
    this.asks = new AgentAsks(
      port,
      () => this.machine.turn,
      () => this._onDidChange.fire(),
    );
    this.permissions = this.asks.permissions;
    this.elicitations = this.asks.elicitations;
    this.leftovers = new LeftoverWatch(port.log, port.listProcesses ? () => port.listProcesses!() : undefined);
    this.waiting = new PromptQueue({
      name: port.name,
      log: port.log,
      machine: () => this.machine,
      dispatch: (event) => this.dispatch(event),
      link: () => port.link(),
      beginTurn: (turnId, prompt) => this.beginTurn(turnId, prompt),
      changed: () => this._onDidChange.fire(),
      steerMethod: port.steerMethod ? () => port.steerMethod!() : undefined,
    });
    this.wire = new TurnWire({
      port,
      machine: () => this.machine,
      dispatch: (event) => this.dispatch(event),
      leftovers: this.leftovers,
      waiting: this.waiting,
      permissions: this.permissions,
      lastTurnStopped: () => this.lastTurnStopped,
    });
  }

  /** Counters the tests and the log read: what was actually put on the wire. */
  get sent() {
    return this.wire.sent;
  }

  get turn() {
    return this.machine.turn;
  }
  /** The last stop's report, kept while it is unverified so that a second stop can join it. */
  get lastStopReport(): StopReport | undefined {
    return this.lastStop;
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
    this.asks.agentExited();
  }

  dispose(): void {
    this.timers.clearAll();
    this.waiting.dispose();
  }

  /** True when a new prompt may be sent now (no turn, agent ready). */
  get canPrompt(): boolean {
    return this.port.phase() === 'ready' && this.machine.turn.phase === 'idle';
  }

  /**
   * Start a turn. Resolves when it ends (never rejects). The caller checks the folder admission.
   * `files` (file URIs or absolute paths) go as links, embedded text or images, as far as the
   * agent's promptCapabilities allow (acp/promptContent.ts); one that cannot be read: not sent.
   */
  async prompt(text: string, files?: string[]): Promise<TurnResult> {
    // Without files the turn is submitted in this same call (no await before it).
    if (!files?.length) return this.submit(text);
    const { blocks, problems } = await promptBlocks({ text, files }, this.port.promptCapabilities?.());
    if (problems.length > 0) return { kind: 'not-sent', why: problems.join('; ') };
    return this.submit(text, blocks);
  }

  /** Queue a prompt, with its files as `prompt` sends them, for when the running turn ends by itself. */
  async enqueue(text: string, files?: string[]): Promise<Enqueued> {
    if (!files?.length) return this.waiting.enqueue(text);
    const { blocks, problems } = await promptBlocks({ text, files }, this.port.promptCapabilities?.());
    if (problems.length > 0) return { queued: false, notSent: problems.join('; ') };
    return this.waiting.enqueue(text, blocks, files);
  }

  /**
   * After a stop, the prompt waits for that stop's process listing (a few ms of `ps`), so
   * that nothing the new turn starts can be taken for the stopped turn's leftovers.
   */
  private async submit(text: string, blocks?: ContentBlock[]): Promise<TurnResult> {
    await this.leftovers.barrier();
    if (!this.canPrompt) {
      return Promise.resolve({ kind: 'not-sent', why: this.port.phase() !== 'ready' ? `the agent is ${this.port.phase()}` : 'a turn is already running' });
    }
    const result = new Deferred<TurnResult>();
    this.beginTurn(this.machine.lastTurnId + 1, { text, blocks, result });
    this.dispatch({ kind: 'submit', at: Date.now() });
    return result.promise;
  }

  /** What a turn needs before its sendPrompt: a typed prompt (above) or a queued one (promptQueue.ts). */
  private beginTurn(turnId: number, prompt: QueuedPrompt): void {
    this.turnTexts.set(turnId, prompt.text);
    if (prompt.blocks) this.turnBlocks.set(turnId, prompt.blocks);
    this.turnResults.set(turnId, prompt.result);
    this.leftovers.beginTurn(Date.now());
    this.wire.beginTurn();
    this._onTurnStarted.fire({ turnId, text: prompt.text });
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

  /** Permission request `id` cannot be shown (`why`): answered `cancelled` at once, and logged. */
  refusePermission(id: string, why: string): boolean {
    return this.asks.refusePermission(id, why);
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
        const settings = this.port.settings();
        const { state, effects } = transition(this.machine, next, {
          settleBudgetMs: settings.settleTimeoutMs,
          busyRetryBudgetMs: settings.busyRetryMs,
          turnLimitMs: settings.turnTimeoutMs,
          toolCallCap: settings.maxToolCallsPerTurn,
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
        return this.wire.sendPrompt(effect.turnId, this.turnBlocks.get(effect.turnId) ?? [{ type: 'text', text: this.turnTexts.get(effect.turnId) ?? '' }]);
      case 'sendCancel':
        return this.wire.sendCancel(effect.why);
      case 'cancelPermissions':
        // What the turn waited on the user for when it was stopped: its result says so.
        this.askedAtStop = { turnId: effect.turnId, on: this.asks.asked };
        // The cancel waits for these answers to be written (turnWire.ts).
        this.wire.permissionsAnswered(this.asks.pending);
        return this.asks.cancelAll();
      case 'markToolsCancelled':
        return this._onToolsCancelled.fire(effect.turnId);
      case 'startTimer':
        return this.timers.start(effect.timer, effect.turnId, effect.ms);
      case 'clearTimers':
        return this.timers.clearAll();
      case 'clearTimer':
        return this.timers.clear(effect.timer);
      case 'turnEnded':
        return this.endTurn(effect.turnId, effect.result);
      case 'stopEnded':
        return this.endStop(effect.stop);
      case 'queueChanged':
        return; // the queue is the machine's state: onDidChange follows the dispatch
      case 'queueRefused':
        return this.waiting.refused(effect.phase);
      case 'startQueued':
        return this.waiting.start(effect.queueId, effect.turnId);
      case 'prepareQueued':
        return this.prepareQueued(effect.turnId);
      case 'releaseQueue':
        return this.waiting.release(effect.queueIds, effect.why);
      case 'sendSteer':
        return this.waiting.sendSteer(effect.turnId, effect.steerId);
      case 'steerRefused':
        return this.waiting.steerRefused(effect.steerId, effect.phase);
    }
  }

  /** A queued turn gets what a typed prompt gets before it goes; then the machine sends it (if it still waits). */
  private prepareQueued(turnId: number): void {
    const prepare = this.port.beforeQueuedTurn?.() ?? Promise.resolve();
    void prepare
      .catch((error: Error) => this.port.log.warn(`turn ${turnId}: preparing the queued prompt failed: ${error.message}`))
      .then(() => this.dispatch({ kind: 'prepared', turnId, at: Date.now() }));
  }

  private endTurn(turnId: number, given: TurnResult): void {
    const asked = this.askedAtStop?.turnId === turnId ? this.askedAtStop.on : undefined;
    this.askedAtStop = undefined;
    const result = given.kind === 'stopped' && asked ? { ...given, stop: { ...given.stop, waitingOn: asked } } : given;
    const text = this.turnTexts.get(turnId) ?? '';
    this.turnTexts.delete(turnId);
    this.turnBlocks.delete(turnId);
    const deferred = this.turnResults.get(turnId);
    this.turnResults.delete(turnId);
    this.asks.turnEnded(turnId);
    this.lastTurnStopped = result.kind === 'stopped';
    this._onTurnEnded.fire({ turnId, text, result });
    deferred?.resolve(result);
    // A stopped turn refreshes after its leftover scan, so that its leftovers are seen first.
    if (result.kind !== 'stopped') void this.refreshBaseline();
  }

  private endStop(stop: StopRecord): void {
    const deferred = this.currentStop;
    const report: StopReport = {
      ...stop,
      agent: this.port.name,
      sessionId: this.port.link().sessionId,
      leftovers: [],
      leftoversFound: Promise.resolve([]),
      leftoverCheck: 'none',
    };
    if (stop.noop) {
      // Nothing was running: answer the caller, but there was no routine to report.
      deferred?.resolve(report);
      return;
    }
    // Tool processes that outlived the turn (codex-acp leaves a cancelled `sleep 37`). The
    // listing starts now, at the outcome; the gate opens and the stop's callers are answered
    // at once (the check's result comes after, through onLeftovers and `report.leftovers`),
    // and what would start something new (a prompt, session/new) waits for the listing
    // (`leftovers.barrier`). An agent that exited has its whole group ended by the exit path instead.
    const pid = this.port.agentPid();
    if (pid !== undefined && stop.firstCancelAt !== undefined && stop.outcome !== 'agent-exited') {
      report.leftoverCheck = 'pending';
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

  private scanLeftovers(report: StopReport, pid: number): Promise<ProcessInfo[]> {
    return checkStopLeftovers(this.leftovers, report, pid, {
      log: this.port.log,
      terminals: this.port.turnTerminals?.(report.turnId) ?? [],
      policy: () => this.port.settings().leftoverProcesses,
      firstUnsupported: () => {
        const first = !this.leftoversUnsupportedSaid;
        this.leftoversUnsupportedSaid = true;
        return first;
      },
      found: (r) => this._onLeftovers.fire(r),
    });
  }

  // ---- what the agent sends, as far as the turn is concerned: through the wire ------------------

  /** An update for the current session: idle signals, what the turn shows, its tools, the cap. */
  noteUpdate(notification: SessionNotification): void {
    this.wire.noteUpdate(notification);
  }

  /** An elicitation: held for the running turn of its session, or outside any session (agentAsks.ts). */
  holdElicitation(request: ElicitationRequest, signal?: AbortSignal): Promise<ElicitationAnswer> {
    return this.asks.holdElicitation(request, signal);
  }

  /** A permission request: held for the running turn, refused otherwise. */
  holdPermission(request: RequestPermissionRequest, signal?: AbortSignal): Promise<RequestPermissionResponse> {
    return this.wire.holdPermission(request, signal);
  }
}
