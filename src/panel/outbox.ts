// The panel host's queue of messages for the webview: streamed text is gathered for a few frames
// and posted as one message instead of one per chunk; everything else (an entry, the status, a
// reply) goes out as soon as the work that posted it is done, with the text queued before it
// (and is gathered as text is when it comes less than a batch after the last flush). What one
// flush sends is one message (a `batch` when there is more than one): the webview's state moves
// from one snapshot to the next, never through half of a change.
// No `vscode` here, so that the batching can be tested with flushes that come as late as a
// loaded machine makes them.
//
// What is queued is a copy taken when it is posted. The queue holds text for up to BATCH_MS;
// holding the sender's object instead let a late flush send what that object had become since
// (an agent entry grown by later chunks) and then the chunks again as appends: "Allow (pretend
// edit)w (pretend edit)".
import type { HostToWebview } from '../shared/messages';
import { appendTail } from '../shared/toolOutput';

/**
 * Streamed text is gathered this long before it is posted: one message per three frames at
 * most, not one per chunk. Each message crosses the extension host's RPC, the workbench and the
 * webview's frame, and each makes a frame that the workbench's renderer lays out, paints and
 * composites, all on the two cores the agent and the host also need. At 5,000 chunks a second
 * (the streaming bench, quiet machine): 16 -> 33 ms took the processes' CPU over 10 s from
 * 15.7–17.9 to 13.3–14.6 s; 33 -> 50 ms, three runs each, interleaved: 14.5–16.0 -> 12.8–14.3 s
 * (the renderer 5.9–6.7 -> 5.2–5.7 s). Text still moves 20 times a second, which reads as
 * smoothly; anything else waits so long only when it comes in a flood (`post`).
 */
export const BATCH_MS = 50;

/** Runs `flush` once, later; the returned function cancels it. */
export type Schedule = (flush: () => void) => () => void;

const timerSchedule: Schedule = (flush) => {
  const timer = setTimeout(flush, BATCH_MS);
  return () => clearTimeout(timer);
};

/** Once the current task's work is done: the posts it makes together go out together. */
const microtaskSchedule: Schedule = (flush) => {
  let live = true;
  queueMicrotask(() => {
    if (live) flush();
  });
  return () => (live = false);
};

/**
 * What an agent can send in floods besides text (a tool's output as tool_call_updates, usage
 * after every chunk): gathered like text when it comes within a batch of the last flush. What
 * answers the user (the files for an @, the prompt given back, focus) never waits.
 */
const FLOODS = new Set<HostToWebview['type']>(['upsert', 'status']);

export class Outbox {
  private queue: HostToWebview[] = [];
  private cancelLater: (() => void) | undefined;
  private cancelSoon: (() => void) | undefined;
  private lastFlush = -Infinity;

  /**
   * `later`: when gathered text goes out. `soon`: when anything else does (a Stop becoming
   * "stopping…", a tool card, the first words of an answer: not a batch's wait later), unless
   * it is an update that comes in floods (`FLOODS`) less than BATCH_MS after the last flush.
   * `now`: the clock, in ms.
   */
  constructor(
    private readonly deliver: (message: HostToWebview) => void,
    private readonly later: Schedule = timerSchedule,
    private readonly soon: Schedule = microtaskSchedule,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Messages waiting for the next flush (for tests and the log). */
  get size(): number {
    return this.queue.length;
  }

  post(message: HostToWebview): void {
    const last = this.queue[this.queue.length - 1];
    if (message.type === 'append' && last?.type === 'append' && last.id === message.id) {
      last.text += message.text; // `last` is our own copy (below)
    } else if (message.type === 'output' && last?.type === 'output' && last.id === message.id) {
      // The card shows the output's end: what two updates add together is bounded the same way.
      last.text = appendTail(last.text, message.text);
      last.total = message.total;
    } else if (message.type === 'status' && last?.type === 'status') {
      this.queue[this.queue.length - 1] = snapshot(message); // only the newest status matters
    } else {
      this.queue.push(snapshot(message));
    }
    if (message.type === 'append' || message.type === 'output' || (FLOODS.has(message.type) && this.now() - this.lastFlush < BATCH_MS))
      this.cancelLater ??= this.later(() => this.flush());
    else this.cancelSoon ??= this.soon(() => this.flush());
  }

  /**
   * Post everything queued now, in order, as one message: the webview applies one message in one
   * task, so it never draws a frame between two parts of one change (a stop's notice without the
   * status that ends the stop).
   */
  flush(): void {
    this.cancelScheduled();
    this.lastFlush = this.now();
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 1) this.deliver(batch[0]!);
    else if (batch.length > 1) this.deliver({ type: 'batch', messages: batch });
  }

  /** Forget what is queued: a new snapshot supersedes it, or the webview is gone. */
  clear(): void {
    this.cancelScheduled();
    this.queue = [];
  }

  private cancelScheduled(): void {
    this.cancelLater?.();
    this.cancelSoon?.();
    this.cancelLater = this.cancelSoon = undefined;
  }
}

/** A deep copy: messages are plain data (postMessage clones them the same way). */
function snapshot(message: HostToWebview): HostToWebview {
  return structuredClone(message);
}
