// Prompts typed while a turn runs, and steers: what the turn controller hands this, and what it
// keeps that the pure machine does not. The order, and whether a prompt is still queued, are the
// machine's (turnMachine.ts `queue`): every change goes in as a machine event through the
// controller's dispatch, and the machine's effects come back here to be carried out (a queued
// prompt becomes the next turn; released ones go back to the input box; a steer goes out).
import type { ContentBlock, SessionNotification } from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import type { AcpConnection } from '../acp/connection';
import { Deferred } from '../util/deferred';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { announcedRunId, steerAnswer, steerMethodInBusyError, steerParams, type SteerMethod } from './steering';
import type { MachineEvent, MachineState, ReleaseWhy, TurnResult } from './turnMachine';

export interface QueuedPrompt {
  text: string;
  /** The prompt as more than its text (attached files): its first block is the text. */
  blocks?: ContentBlock[];
  /** The files the user attached (URIs), given back with the text when it is not sent. */
  files?: string[];
  /** Resolves when the turn it becomes ends, or with `not-sent` when it is released or removed. */
  result: Deferred<TurnResult>;
}

/** What a steer came to: in the running turn, or not (and why: the caller queues it instead). */
export type SteerOutcome = { delivered: true; turnId: number } | { delivered: false; why: string };

/** What queueing came to: queued, or not (no turn runs or waits: `phase`; a file that cannot be sent: `notSent`). */
export type Enqueued = { queued: true; id: number; result: Promise<TurnResult> } | { queued: false; phase: string } | { queued: false; notSent: string };

/** What the queue needs of the controller it belongs to. */
export interface QueueHost {
  readonly name: string;
  readonly log: Logger;
  machine(): MachineState;
  dispatch(event: MachineEvent): void;
  link(): { conn: AcpConnection | undefined; sessionId: string | undefined };
  /** The queued prompt becomes turn `turnId` (its sendPrompt follows). */
  beginTurn(turnId: number, prompt: QueuedPrompt): void;
  /** The queue's content changed without a machine event (an edit). */
  changed(): void;
  /** How this agent steers, as its settings and `initialize` say (steering.ts). */
  steerMethod?(): SteerMethod | undefined;
}

/** A steer's answer may take a moment (goose reads it between steps); it is not the turn's time. */
const STEER_TIMEOUT_MS = 10_000;

/** Why queued prompts were not sent, as the log and the caller's result say it. */
const RELEASED: Record<ReleaseWhy, string> = {
  stopped: 'was stopped',
  failed: 'ended with an error',
  exited: 'ended with the agent',
  'out-of-step': 'was answered out of step',
};

export class PromptQueue {
  private lastId = 0;
  private readonly prompts = new Map<number, QueuedPrompt>();
  private readonly steers = new Map<number, { text: string; outcome: Deferred<SteerOutcome> }>();
  /** Set by the machine's `queueRefused` while an enqueue is dispatched. */
  private refusedPhase: string | undefined;
  /** goose's run, as it announced it: its steer must name it. */
  private activeRunId: string | undefined;
  /** A steering method learned from the agent's own busy error (goose names it). */
  private learnedSteer: SteerMethod | undefined;
  /** The agent answered the steering method as unknown: not tried again with this process. */
  private steerUnknown = false;

  /** Queued prompts that will not be sent (the turn did not end by itself): their text goes back. */
  private readonly _onReleased = new Emitter<{ texts: string[]; files: string[]; why: ReleaseWhy }>();
  readonly onReleased = this._onReleased.event;
  /** Text the agent took into the running turn. */
  private readonly _onSteered = new Emitter<{ turnId: number; text: string }>();
  readonly onSteered = this._onSteered.event;

  constructor(private readonly host: QueueHost) {}

  /** The prompts waiting for the running turn to end, in the order they go out. */
  get list(): { id: number; text: string }[] {
    return this.host.machine().queue.flatMap((id) => {
      const prompt = this.prompts.get(id);
      return prompt ? [{ id, text: prompt.text }] : [];
    });
  }

  /**
   * Queue a prompt for when the running turn ends by itself. `result` resolves when the turn it
   * becomes ends, or `not-sent` when it is released (a stop, an error, the exit) or removed.
   * Refused when no turn runs or waits (`phase`): the caller sends it, or joins the stop.
   */
  enqueue(text: string, blocks?: ContentBlock[], files?: string[]): Enqueued {
    const id = ++this.lastId;
    const prompt: QueuedPrompt = { text, blocks, ...(files?.length && { files }), result: new Deferred<TurnResult>() };
    this.prompts.set(id, prompt);
    this.refusedPhase = undefined;
    this.host.dispatch({ kind: 'enqueue', queueId: id, at: Date.now() });
    const refused = this.refusedPhase as string | undefined; // set by the dispatch above
    if (refused !== undefined) {
      this.prompts.delete(id);
      return { queued: false, phase: refused };
    }
    this.host.log.info(`agent ${this.host.name}: prompt queued (#${id}, ${this.host.machine().queue.length} waiting)`);
    return { queued: true, id, result: prompt.result.promise };
  }

  /** The user removed a queued prompt: it is not sent (its caller is answered `not-sent`). */
  remove(id: number): boolean {
    if (!this.host.machine().queue.includes(id)) return false;
    this.host.dispatch({ kind: 'unqueue', queueId: id, at: Date.now() });
    this.take(id)?.result.resolve({ kind: 'not-sent', why: 'removed from the queue' });
    return true;
  }

  /** New text for a prompt still queued; its attached files stay. */
  edit(id: number, text: string): boolean {
    const prompt = this.prompts.get(id);
    if (!prompt || !this.host.machine().queue.includes(id) || !text.trim()) return false;
    prompt.text = text;
    const [first, ...rest] = prompt.blocks ?? [];
    if (first?.type === 'text') prompt.blocks = [{ ...first, text }, ...rest];
    this.host.changed();
    return true;
  }

  /** How this agent takes text into a running turn; undefined: it does not (steer falls back to queue). */
  get steerMethod(): SteerMethod | undefined {
    return this.steerUnknown ? undefined : (this.host.steerMethod?.() ?? this.learnedSteer);
  }

  /** Text into the running turn without stopping it, where the agent offers that. Never rejects. */
  steer(text: string): Promise<SteerOutcome> {
    if (!this.steerMethod) return Promise.resolve({ delivered: false, why: `${this.host.name} offers no steering` });
    const id = ++this.lastId;
    const outcome = new Deferred<SteerOutcome>();
    this.steers.set(id, { text, outcome });
    this.host.dispatch({ kind: 'steer', steerId: id, at: Date.now() });
    return outcome.promise;
  }

  // ---- what the agent says that the queue needs ----------------------------------------------

  noteUpdate(notification: SessionNotification): void {
    const runId = announcedRunId(notification);
    if (runId !== undefined) this.activeRunId = runId ?? undefined;
  }

  /** goose's busy error names its steering method. */
  noteBusyError(message: string): void {
    this.learnedSteer ??= steerMethodInBusyError(message);
  }

  // ---- the machine's effects -----------------------------------------------------------------

  refused(phase: string): void {
    this.refusedPhase = phase;
  }

  start(queueId: number, turnId: number): void {
    const prompt = this.take(queueId) ?? { text: '', result: new Deferred<TurnResult>() };
    this.host.log.info(`agent ${this.host.name}: the queued prompt #${queueId} goes out as turn ${turnId}`);
    this.host.beginTurn(turnId, prompt);
  }

  release(queueIds: number[], why: ReleaseWhy): void {
    const texts: string[] = [];
    const files: string[] = [];
    for (const id of queueIds) {
      const prompt = this.take(id);
      if (!prompt) continue;
      texts.push(prompt.text);
      for (const file of prompt.files ?? []) if (!files.includes(file)) files.push(file);
      prompt.result.resolve({ kind: 'not-sent', why: `it was queued, and the turn before it ${RELEASED[why]}` });
    }
    this.host.log.info(`agent ${this.host.name}: ${texts.length} queued prompt(s) not sent: the turn before ${RELEASED[why]}`);
    if (texts.length > 0) this._onReleased.fire({ texts, files, why });
  }

  steerRefused(steerId: number, phase: string): void {
    this.settleSteer(steerId, { delivered: false, why: `no turn in flight to take it (${phase})` });
  }

  sendSteer(turnId: number, steerId: number): void {
    const text = this.steers.get(steerId)?.text ?? '';
    const how = this.steerMethod;
    const { conn, sessionId } = this.host.link();
    const refuse = (why: string) => this.settleSteer(steerId, { delivered: false, why });
    if (!how || !conn || !sessionId || conn.isClosed) return refuse('the agent is not connected');
    const request = steerParams(how, sessionId, [{ type: 'text', text }], this.activeRunId);
    if ('error' in request) return refuse(request.error);
    conn.steer(how.method, request.params, STEER_TIMEOUT_MS).then(
      (answer) => {
        const verdict = steerAnswer(how, answer);
        if (!verdict.delivered) return refuse(verdict.why);
        this.host.log.info(`agent ${this.host.name}: steered turn ${turnId} through ${how.method}`);
        this._onSteered.fire({ turnId, text });
        this.settleSteer(steerId, { delivered: true, turnId });
      },
      (error: unknown) => {
        const code = error instanceof ResponseError ? error.code : undefined;
        // Method not found: this agent does not steer after all; not tried again.
        if (code === -32601) this.steerUnknown = true;
        const message = (error as Error)?.message ?? String(error);
        this.host.log.info(`agent ${this.host.name}: ${how.method} refused: ${message}`);
        refuse(code === -32601 ? `${this.host.name} does not know ${how.method}` : `the agent refused it: ${message}`);
      },
    );
  }

  private take(id: number): QueuedPrompt | undefined {
    const prompt = this.prompts.get(id);
    this.prompts.delete(id);
    return prompt;
  }

  private settleSteer(id: number, outcome: SteerOutcome): void {
    this.steers.get(id)?.outcome.resolve(outcome);
    this.steers.delete(id);
  }

  dispose(): void {
    this._onReleased.dispose();
    this._onSteered.dispose();
  }
}
