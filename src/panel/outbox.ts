// The panel host's queue of messages for the webview: streamed text is gathered for one frame
// and posted as one message instead of one per chunk. No `vscode` here, so that the batching
// can be tested with a flush that comes as late as a loaded machine makes it.
//
// What is queued is a copy taken when it is posted. The queue holds messages for up to a frame;
// holding the sender's object instead let a late flush send what that object had become since
// (an agent entry grown by later chunks) and then the chunks again as appends: "Allow (pretend
// edit)w (pretend edit)".
import type { HostToWebview } from '../shared/messages';

/**
 * Streamed text is gathered this long before it is posted: one message per two frames at most,
 * not one per chunk. Each message crosses the extension host's RPC, the workbench and the
 * webview's frame, all on the two cores the agent and the host also need: at 5,000 chunks a
 * second, 33 ms instead of 16 took the processes' CPU from 15.7–17.9 to 13.3–14.6 s in 10 s
 * (the streaming bench, quiet machine), and the text still moves at 30 updates a second.
 */
export const BATCH_MS = 33;

/** Runs `flush` once, later; the returned function cancels it. */
export type Schedule = (flush: () => void) => () => void;

const timerSchedule: Schedule = (flush) => {
  const timer = setTimeout(flush, BATCH_MS);
  return () => clearTimeout(timer);
};

export class Outbox {
  private queue: HostToWebview[] = [];
  private cancelFlush: (() => void) | undefined;

  constructor(
    private readonly deliver: (message: HostToWebview) => void,
    private readonly schedule: Schedule = timerSchedule,
  ) {}

  /** Messages waiting for the next flush (for tests and the log). */
  get size(): number {
    return this.queue.length;
  }

  post(message: HostToWebview): void {
    const last = this.queue[this.queue.length - 1];
    if (message.type === 'append' && last?.type === 'append' && last.id === message.id) {
      last.text += message.text; // `last` is our own copy (below)
    } else if (message.type === 'status' && last?.type === 'status') {
      this.queue[this.queue.length - 1] = snapshot(message); // only the newest status matters
    } else {
      this.queue.push(snapshot(message));
    }
    this.cancelFlush ??= this.schedule(() => this.flush());
  }

  /** Post everything queued now, in order. */
  flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    const batch = this.queue;
    this.queue = [];
    for (const message of batch) this.deliver(message);
  }

  /** Forget what is queued: a new snapshot supersedes it, or the webview is gone. */
  clear(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    this.queue = [];
  }
}

/** A deep copy: messages are plain data (postMessage clones them the same way). */
function snapshot(message: HostToWebview): HostToWebview {
  return structuredClone(message);
}
