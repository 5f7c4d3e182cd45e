// Readies each closed group of the transcript in idle time, so that scrolling to it later costs
// about what scrolling a short transcript does (the webview:scroll benchmark, BENCHMARKS.md):
//
// - Laid out once. A group out of sight is skipped (content-visibility: auto,
//   media/styles/transcript.css); the first time one came into view the browser computed the
//   style and layout of its 50 entries, 25–50 ms for the benchmark's. A fling over a long
//   transcript shows a new group almost every frame: on 3,000 turns it stuttered (frame gaps p99
//   83 ms) where a second fling over the same groups did not. A layout read inside a skipped
//   group makes the browser lay out that group's subtree without showing it, and it keeps that
//   work: the group stays skipped, and when it comes into view only its height and paint are left.
// - No sideways scroller where nothing is wider than the panel. Every answer's body and every code
//   block may scroll sideways (overflow-x: auto, markdown.css), and each scroller shown costs the
//   compositor work in every frame (a fling over warmed groups: p99 33 ms with all of them as
//   scrollers, 16.8 ms with none, in one experiment). A scroller whose content fits gets FITS (a
//   plain box); a change of its entry's text or of the panel's width takes FITS away again, since
//   the scroller is the safe state: nothing of a line that is too long is ever out of reach.
//
// The queue is pure but for the scheduler and the work, so its rules are tested as a table.

/** A scroller whose content fits: a plain box (markdown.css). */
const FITS = 'fits';

/**
 * A User Timing mark present while every closed group is readied: set when the queue empties,
 * cleared when a group is queued. The benchmark waits for it before it scrolls
 * (test/bench/webviewScroll.ts); DevTools shows it. One at most, however long the session.
 */
export const READIED_MARK = 'reins:groups-readied';

/** Told when readying starts (a group queued into an empty queue) and when all is readied. */
export interface ReadySignal {
  busy(): void;
  drained(): void;
}

const markSignal: ReadySignal = {
  busy: () => performance.clearMarks(READIED_MARK),
  drained: () => performance.mark(READIED_MARK),
};

/** The elements that scroll sideways when their content is wider than they are (markdown.css). */
const SCROLLERS = '.markdown-body, .code-block pre';

/** What the browser says of an idle period: whether it came by the timeout, and how much of it is left. */
export interface IdlePeriod {
  readonly didTimeout: boolean;
  timeRemaining(): number;
}

/** The idle time the browser gives. */
export interface IdleScheduler {
  request(run: (period?: IdlePeriod) => void): unknown;
  cancel(handle: unknown): void;
}

const browserIdle: IdleScheduler = {
  // The timeout: a panel that is never idle (an agent thinking for minutes, the working dots
  // drawn meanwhile) still gets its groups readied, one every 2 s at most.
  request: (run) => window.requestIdleCallback((deadline) => run(deadline), { timeout: 2_000 }),
  cancel: (handle) => window.cancelIdleCallback(handle as number),
};

/**
 * While frames come one after another (an answer streams), a group is readied only in an idle
 * period this long: one with no frame due (the browser's longest is 50 ms). A group took 17–48 ms
 * of the main thread; run by the timeout or in the few ms left between two frames, each one held
 * a frame of the stream and the keys typed meanwhile (the long bench's stream at 5,000 chunks/s:
 * 12 such tasks in 10 s, its slowest frames and keys). The groups wait for the turn's end then.
 */
const STREAMING_IDLE_MS = 40;

export class GroupWarmer<G extends { readonly isConnected: boolean } = HTMLElement> {
  /** Queued groups, oldest first (a Set keeps insertion order, and a group is queued once). */
  private readonly queue = new Set<G>();
  private handle: unknown;

  constructor(
    private readonly warm: (group: G) => void,
    private readonly idle: IdleScheduler = browserIdle,
    private readonly signal: ReadySignal = markSignal,
    /** Frames are due one after another (a turn runs): only a long idle period will do (STREAMING_IDLE_MS). */
    private readonly framesDue: () => boolean = () => false,
    /** The user is typing (typingPause.ts): nothing is readied, whatever the period. */
    private readonly typing: () => boolean = () => false,
  ) {}

  /** A group that gets no more entries (or was laid out at another width): readied later, in order. */
  add(group: G): void {
    if (this.queue.size === 0 && this.handle === undefined) this.signal.busy();
    this.queue.add(group);
    this.handle ??= this.idle.request((period) => this.run(period));
  }

  /** The transcript was replaced: nothing queued is shown any more. */
  clear(): void {
    const pending = this.handle !== undefined;
    this.queue.clear();
    if (this.handle !== undefined) this.idle.cancel(this.handle);
    this.handle = undefined;
    if (pending) this.signal.drained();
  }

  /**
   * One group per idle callback: a group costs up to one idle period (50 ms), and input or a
   * frame that comes meanwhile waits for no more than that. While frames are due, a short period
   * or the timeout only asks again, and while the user types, any period does.
   */
  private run(period?: IdlePeriod): void {
    this.handle = undefined;
    if (this.typing() || (this.framesDue() && (!period || period.didTimeout || period.timeRemaining() < STREAMING_IDLE_MS))) {
      this.handle = this.idle.request((next) => this.run(next));
      return;
    }
    const group = this.queue.values().next().value;
    if (group) this.queue.delete(group);
    if (group?.isConnected) this.warm(group);
    if (this.queue.size > 0) this.handle = this.idle.request((next) => this.run(next));
    else this.signal.drained();
  }
}

/**
 * Lays out `group` (skipped or not) and marks each of its scrollers whose content fits. All reads
 * come before any write: a class changed between two reads would make the browser lay the group
 * out again for the second.
 */
export function warmGroup(group: HTMLElement): void {
  const scrollers = Array.from(group.querySelectorAll(SCROLLERS));
  const fits = scrollers.map((s) => s.scrollWidth <= s.clientWidth);
  group.lastElementChild?.getBoundingClientRect(); // laid out even with no scroller in it
  scrollers.forEach((s, i) => s.classList.toggle(FITS, fits[i]));
}

/** `root`'s text changed (or the panel's width): none of its scrollers is known to fit any more. */
export function unfit(root: Element): void {
  for (const s of Array.from(root.querySelectorAll(`.${FITS}`))) s.classList.remove(FITS);
}
