// One prompt turn: its life (drop window → goose run reserved → body → unwind on cancel →
// goose run cleared → answer) and the cancellable primitives a body is written with.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { SessionUpdate, StopReason } from '@agentclientprotocol/sdk' with { 'resolution-mode': 'import' };
import { INTERNAL_ERROR, type Id, type Peer, type Reply, type RpcError } from './peer';
import { now, type Recorder } from './recorder';
import type { Fault } from './faults';
import type { Behaviour, CancelAnswer, OnCancel } from './scenario';
import type { AgentSessionConfig } from './sessionConfig';
import type { Tools } from './tools';

export type TurnEnd = { stopReason: StopReason } | { error: RpcError };
export type TurnBody = (turn: Turn) => Promise<TurnEnd>;

/** What a turn needs from the agent around it. */
export interface TurnHost {
  readonly peer: Peer;
  readonly rec: Recorder;
  readonly tools: Tools;
  readonly goose: boolean;
  /** `state_update`s (ACP v2's turn states): none; 'v1' beside the answer; 'v2' instead of it (the prompt was acknowledged at once). */
  readonly states: 'none' | 'v1' | 'v2';
  exit(code: number, reason: string): never;
  /** The scenario's fault at `at` (faults.ts): false when this process is past it. */
  fault(fault: Fault, at: string): boolean;
}

export interface SessionInfo {
  readonly id: string;
  readonly cwd: string;
  /** Its modes and config options, for the `setConfig` and `setMode` steps. */
  readonly config?: AgentSessionConfig;
}

/** Thrown inside a body when an accepted cancel reaches a checkpoint. */
class Cancelled extends Error {
  constructor() {
    super('turn cancelled');
  }
}

type Phase =
  | 'queued' // behind another turn of the same session
  | 'registering' // the drop window: a cancel now is lost, as with goose before its run is reserved
  | 'running'
  | 'unwinding' // cancel accepted, the answer not sent yet
  | 'done';

export type TurnPolicy = Pick<
  Behaviour,
  'onCancel' | 'dropEarlyCancelMs' | 'killToolsOnCancel' | 'idleOnCancel' | 'repeatIdleMs' | 'afterCancel' | 'cancelUpdates' | 'withdrawOnCancel'
>;

export class Turn {
  /** goose's active run id; reserved once the drop window is over. */
  readonly runId = `run_${randomUUID()}`;
  private phase: Phase = 'queued';
  private readonly aborter = new AbortController();
  private startedAt = 0;
  private idleSent = false;
  /** Text steered into this turn, and who waits for the next (the `waitForSteer` step). */
  private readonly steers: string[] = [];
  private steerTaken = 0;
  private onSteer: (() => void) | undefined;
  /** The ids of the requests this turn made to the client (`withdrawOnCancel`). */
  private readonly asked: Id[] = [];
  /** Messages streamed in this turn (ACP v2: each gets an id of its own). */
  private messages = 0;

  constructor(
    readonly requestId: Id,
    readonly session: SessionInfo,
    readonly index: number,
    private readonly policy: TurnPolicy,
    private readonly body: TurnBody,
    private readonly host: TurnHost,
  ) {}

  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  /** A cancel was accepted: the turn will end through the cancel path. */
  get cancelled(): boolean {
    return this.aborter.signal.aborted;
  }

  async run(): Promise<void> {
    const { rec, peer, goose } = this.host;
    this.startedAt = now();
    rec.event('turn-started', { requestId: this.requestId, sessionId: this.session.id, index: this.index });
    const window = this.policy.dropEarlyCancelMs ?? 0;
    if (window > 0 && !this.cancelled) {
      this.phase = 'registering';
      await delay(window);
    }
    this.phase = 'running';
    if (goose) this.announceRun(this.runId);
    if (this.host.states !== 'none') this.state({ state: 'running' });
    let end: TurnEnd;
    try {
      this.checkpoint();
      end = await this.body(this);
      this.checkpoint();
    } catch (err) {
      end = err instanceof Cancelled ? await this.unwind() : { error: { code: INTERNAL_ERROR, message: 'Internal error', data: String(err) } };
    }
    this.phase = 'done';
    if (goose) this.announceRun(null);
    // Events are recorded before the message they explain: a client that has the message can
    // read them at once.
    rec.event('turn-answered', { requestId: this.requestId, ...end, ms: Math.round(now() - this.startedAt) });
    const stopReason = 'error' in end ? 'error' : end.stopReason;
    if (this.host.states !== 'none' && !this.idleSent) this.idle(stopReason);
    // A repeated idle snapshot (the spec allows them), late: it must not end the next turn.
    const repeat = this.policy.repeatIdleMs;
    if (this.host.states !== 'none' && repeat !== undefined) setTimeout(() => this.idle(stopReason), repeat);
    if (this.host.states !== 'v2') {
      // v2: acknowledged at once; the idle above is the end
      if ('error' in end) peer.fail(this.requestId, end.error);
      else peer.respond(this.requestId, { stopReason: end.stopReason });
    }
    const late = this.cancelled ? this.policy.afterCancel?.updates : undefined;
    if (late) setTimeout(() => this.sendLate(late, 'answered'), this.policy.afterCancel?.delayMs ?? 0);
  }

  /** A cancelled turn's updates for the session's next prompt to bring (`afterCancel.atNextPrompt`). */
  get lateAtNextPrompt(): unknown[] | undefined {
    return this.cancelled ? this.policy.afterCancel?.atNextPrompt : undefined;
  }

  /** Updates about this (cancelled, answered) turn, sent late: `at` the answer or the next prompt. */
  sendLate(updates: unknown[], at: 'answered' | 'next-prompt'): void {
    this.host.rec.event('late-updates-sent', { requestId: this.requestId, at, count: updates.length });
    for (const update of updates) this.update(update as SessionUpdate);
  }

  /** A `session/cancel` for this session, or a permission answered `cancelled`. */
  cancel(source: 'session/cancel' | 'permission'): void {
    const { rec } = this.host;
    const fields = { requestId: this.requestId, source };
    if (this.phase === 'registering') {
      rec.event('cancel-dropped', { ...fields, sinceStartMs: Math.round(now() - this.startedAt) });
      return;
    }
    if (this.cancelled || this.phase === 'unwinding' || this.phase === 'done') {
      rec.event('cancel-repeated', fields);
      return;
    }
    const onCancel = this.policy.onCancel ?? 'quick';
    if (onCancel === 'never') {
      rec.event('cancel-ignored', fields);
      return;
    }
    if (onCancel === 'exit') this.host.exit(1, 'cancel');
    // Killed or hung as the cancel arrives: no answer, no unwinding (a spent fault unwinds quickly).
    if ((onCancel === 'kill' || onCancel === 'hang') && this.host.fault(onCancel, 'cancel')) return;
    rec.event('cancel-accepted', fields);
    if (this.policy.withdrawOnCancel) {
      for (const id of this.asked) {
        rec.event('request-withdrawn', { id, method: 'on cancel' });
        this.host.peer.notify('$/cancel_request', { requestId: id });
      }
    }
    // idleOnCancel: the agent says it is idle at once, and answers after its unwinding.
    if (this.policy.idleOnCancel && this.host.states !== 'none') this.idle('cancelled');
    this.aborter.abort();
  }

  /** Text for this turn while it runs (a steer); false when it does not run (not yet, unwinding, done). */
  steer(text: string): boolean {
    if (this.phase !== 'running' || this.cancelled) return false;
    this.steers.push(text);
    this.host.rec.event('steer-received', { requestId: this.requestId, text });
    this.onSteer?.();
    return true;
  }

  /** Waits (cancellable) for a steer not taken yet, and returns its text. */
  async nextSteer(): Promise<string> {
    while (this.steerTaken >= this.steers.length) {
      await this.untilCancelled(new Promise<void>((resolve) => (this.onSteer = resolve)));
      this.onSteer = undefined;
    }
    return this.steers[this.steerTaken++]!; // steerTaken < steers.length
  }

  private async unwind(): Promise<TurnEnd> {
    this.phase = 'unwinding';
    if (this.policy.killToolsOnCancel !== false) this.host.tools.killOwnedBy(this);
    // What it cancelled goes out before the answer (v2: before the idle that confirms the cancel).
    for (const update of this.policy.cancelUpdates ?? []) this.update(update as SessionUpdate);
    const how = cancelAnswer(this.policy.onCancel ?? 'quick');
    const [lo, hi] = how.delayRangeMs ?? [how.delayMs ?? 0, how.delayMs ?? 0];
    const ms = lo + Math.random() * (hi - lo);
    this.host.rec.event('cancel-unwinding', { requestId: this.requestId, delayMs: Math.round(ms) });
    if (ms > 0) await delay(ms);
    switch (how.answer ?? 'cancelled') {
      case 'end_turn':
        return { stopReason: 'end_turn' };
      case 'error':
        return { error: { code: INTERNAL_ERROR, message: 'operation aborted' } };
      case 'context-canceled':
        return { error: { code: -32000, message: 'context canceled' } };
      default:
        return { stopReason: 'cancelled' };
    }
  }

  private idle(stopReason: string): void {
    this.idleSent = true;
    this.state({ state: 'idle', stopReason });
  }

  private state(fields: { state: string; stopReason?: string }): void {
    this.host.rec.event('state-sent', { requestId: this.requestId, ...fields });
    this.update({ sessionUpdate: 'state_update', ...fields } as unknown as SessionUpdate);
  }

  private announceRun(activeRunId: string | null): void {
    this.host.rec.event(activeRunId ? 'run-reserved' : 'run-cleared', { requestId: this.requestId, runId: this.runId });
    this.update({ sessionUpdate: 'session_info_update', _meta: { goose: { activeRunId } } });
  }

  // ---- primitives for bodies: each throws Cancelled once a cancel has been accepted ----

  checkpoint(): void {
    if (this.cancelled) throw new Cancelled();
  }

  update(update: SessionUpdate): void {
    this.host.peer.notify('session/update', { sessionId: this.session.id, update });
  }

  async sleep(ms: number): Promise<void> {
    await this.untilCancelled(delay(ms));
  }

  /** Never finishes by itself. */
  async hang(): Promise<never> {
    return this.untilCancelled(new Promise<never>(() => {}));
  }

  /** Streams `text` in chunks of `chunk` characters, `intervalMs` apart. */
  async stream(kind: 'agent_message_chunk' | 'agent_thought_chunk', text: string, chunk = 8, intervalMs = 20): Promise<void> {
    const chars = Array.from(text); // whole code points: never split a surrogate pair
    const size = Math.max(1, Math.floor(chunk));
    // ACP v2: every chunk names its message; each stream is a message of its own.
    const id = this.host.states === 'v2' ? { messageId: `m${this.index + 1}-${++this.messages}` } : {};
    for (let i = 0; i < chars.length; i += size) {
      if (i > 0) await this.sleep(intervalMs);
      this.checkpoint();
      this.update({ sessionUpdate: kind, ...id, content: { type: 'text', text: chars.slice(i, i + size).join('') } });
    }
  }

  /**
   * Asks the client for permission and returns the selected option id (undefined when the
   * client answered with an error). An answer `cancelled` counts as a cancel of the turn. By
   * default the wait outlasts a cancel, as gemini's does: a client that never answers the
   * request never gets the prompt answered either.
   */
  async permission(params: { options: object[] } & Record<string, unknown>, abortOnCancel = false, withdrawAfterMs?: number): Promise<string | undefined> {
    this.checkpoint();
    let withdraw: NodeJS.Timeout | undefined;
    const reply = await this.host.peer.request(
      'session/request_permission',
      { sessionId: this.session.id, ...params },
      abortOnCancel ? this.signal : undefined,
      (id) => {
        this.asked.push(id);
        // Withdrawn with `$/cancel_request` after a while: the client must still answer (-32800).
        if (withdrawAfterMs === undefined) return;
        withdraw = setTimeout(() => {
          this.host.rec.event('request-withdrawn', { id, method: 'session/request_permission' });
          this.host.peer.notify('$/cancel_request', { requestId: id });
        }, withdrawAfterMs);
      },
    );
    clearTimeout(withdraw);
    if (reply === 'aborted') {
      this.host.rec.event('permission-abandoned', { requestId: this.requestId });
      throw new Cancelled();
    }
    const outcome = 'result' in reply ? (reply.result as { outcome?: { outcome?: string; optionId?: string } })?.outcome : undefined;
    this.host.rec.event('permission-answered', { requestId: this.requestId, reply, afterCancel: this.cancelled });
    if (outcome?.outcome === 'cancelled') this.cancel('permission');
    this.checkpoint();
    return outcome?.outcome === 'selected' ? outcome.optionId : undefined;
  }

  /**
   * elicitation/create; returns the answer's action (undefined for an error answer). A `cancel`
   * is the user dismissing the question, not a cancel of the turn: the turn goes on (the spec's
   * agent falls back; only session/cancel ends a turn early).
   */
  async elicit(params: Record<string, unknown>, abortOnCancel = false, withdrawAfterMs?: number): Promise<string | undefined> {
    this.checkpoint();
    let withdraw: NodeJS.Timeout | undefined;
    const reply = await this.host.peer.request(
      'elicitation/create',
      params,
      abortOnCancel ? this.signal : undefined,
      withdrawAfterMs === undefined
        ? undefined
        : (id) => {
            withdraw = setTimeout(() => {
              this.host.rec.event('request-withdrawn', { id, method: 'elicitation/create' });
              this.host.peer.notify('$/cancel_request', { requestId: id });
            }, withdrawAfterMs);
          },
    );
    clearTimeout(withdraw);
    if (reply === 'aborted') throw new Cancelled();
    const action = 'result' in reply ? (reply.result as { action?: string } | null)?.action : undefined;
    this.host.rec.event('elicitation-answered', { requestId: this.requestId, reply, afterCancel: this.cancelled });
    this.checkpoint();
    return action;
  }

  /** A request to the client (fs/…, anything); a cancel stops the wait. */
  async call(method: string, params: unknown): Promise<Reply> {
    this.checkpoint();
    const reply = await this.host.peer.request(method, params, this.signal);
    this.checkpoint();
    this.host.rec.event('call-answered', { requestId: this.requestId, method, reply });
    return reply;
  }

  /** Starts a tool process owned by this turn; with `wait`, until it exits. */
  async spawn(command: string, toolCallId?: string, wait = false): Promise<void> {
    this.checkpoint();
    const exited = this.host.tools.start(command, this, this.policy.killToolsOnCancel !== false, toolCallId);
    if (wait) await this.untilCancelled(exited);
  }

  private async untilCancelled<T>(work: Promise<T>): Promise<T> {
    this.checkpoint();
    let onAbort = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new Cancelled());
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work, aborted]);
    } finally {
      this.signal.removeEventListener('abort', onAbort);
    }
  }
}

function cancelAnswer(onCancel: OnCancel): CancelAnswer {
  switch (onCancel) {
    case 'end_turn':
      return { answer: 'end_turn' };
    case 'error':
      return { answer: 'error' };
    case 'context-canceled':
      return { answer: 'context-canceled' };
    case 'quick':
    case 'never':
    case 'exit':
    case 'kill':
    case 'hang':
      return {};
    default:
      return onCancel;
  }
}
