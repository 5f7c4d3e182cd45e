// Backpressure on the agent's stdout. The reader parses every read at once and hands each message
// to vscode-jsonrpc, whose queue handles one message per turn of the event loop; a read brings
// hundreds. An agent that writes faster than that (a session/load replaying a long session) had
// its output parsed and queued in the editor's memory long before it was handled: halfway through
// a 9.7 MB replay the heap held 11 MB more than it does with this (the bench `long:memory`). So
// reading pauses while too much waits to be handled, and the pipe holds the agent back instead.
//
// Never a deadlock: if nothing is handled for a while the stream resumes anyway (a count that
// went wrong, a message the library handled without telling), and it always resumes on close.

export interface FlowLimits {
  /** Messages queued but not yet handled at which reading pauses. */
  maxMessages: number;
  /** Their bytes (as read) at which reading pauses. */
  maxBytes: number;
  /** Reading resumes once both are at most this share of their limit. */
  resumeShare: number;
  /** Paused this long with nothing handled: resumed anyway. */
  stallMs: number;
}

export const DEFAULT_FLOW_LIMITS: FlowLimits = { maxMessages: 1_000, maxBytes: 4 * 1024 * 1024, resumeShare: 0.25, stallMs: 1_000 };

/** What can be paused: the agent's stdout. */
export interface Pausable {
  pause(): unknown;
  resume(): unknown;
}

export interface FlowTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: FlowTimers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.(); // a paused stream must not keep the process alive on its own
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** ACP's and LSP's cancel notifications: vscode-jsonrpc acts on them as they come, most never queued. */
const CANCEL_METHODS = new Set(['$/cancel_request', '$/cancelRequest']);

export class ReadFlow {
  private messages = 0;
  private bytes = 0;
  /** Each queued message's bytes, until it is handled. */
  private sizes = new WeakMap<object, number>();
  private pausedNow = false;
  private closed = false;
  private stall: unknown;

  constructor(
    private readonly input: Pausable,
    private readonly limits: FlowLimits = DEFAULT_FLOW_LIMITS,
    private readonly timers: FlowTimers = realTimers,
    private readonly onStall: (messages: number, bytes: number) => void = () => {},
  ) {}

  get paused(): boolean {
    return this.pausedNow;
  }

  /** What waits to be handled now. */
  get backlog(): { messages: number; bytes: number } {
    return { messages: this.messages, bytes: this.bytes };
  }

  /** The reader handed `message` (`bytes` long) on to the connection's queue. */
  queued(message: object, bytes: number): void {
    if (this.closed || isCancel(message) || this.sizes.has(message)) return;
    this.sizes.set(message, bytes);
    this.messages++;
    this.bytes += bytes;
    if (!this.pausedNow && (this.messages > this.limits.maxMessages || this.bytes > this.limits.maxBytes)) {
      this.pausedNow = true;
      this.input.pause();
      this.armStall();
    }
  }

  /** The connection took `message` from its queue to handle it. */
  handled(message: object): void {
    const bytes = this.sizes.get(message);
    if (bytes === undefined) return; // never counted (a cancel), or counted out already
    this.sizes.delete(message);
    this.messages--;
    this.bytes -= bytes;
    if (!this.pausedNow) return;
    const share = this.limits.resumeShare;
    if (this.messages <= this.limits.maxMessages * share && this.bytes <= this.limits.maxBytes * share) this.release();
    else this.armStall(); // something drained: the guard counts from now
  }

  /** The connection closed: reading goes on to the end, and nothing is held. */
  close(): void {
    this.closed = true;
    if (this.pausedNow) this.release();
  }

  private release(): void {
    this.pausedNow = false;
    this.disarmStall();
    this.input.resume();
  }

  private armStall(): void {
    this.disarmStall();
    this.stall = this.timers.setTimeout(() => {
      this.stall = undefined;
      if (!this.pausedNow) return;
      this.onStall(this.messages, this.bytes);
      // What is counted no longer stands for the queue: counted afresh from here.
      this.messages = 0;
      this.bytes = 0;
      this.sizes = new WeakMap();
      this.release();
    }, this.limits.stallMs);
  }

  private disarmStall(): void {
    if (this.stall === undefined) return;
    this.timers.clearTimeout(this.stall);
    this.stall = undefined;
  }
}

function isCancel(message: object): boolean {
  const m = message as { method?: unknown; id?: unknown };
  return typeof m.method === 'string' && CANCEL_METHODS.has(m.method) && m.id === undefined;
}
