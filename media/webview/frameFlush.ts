// When the transcript draws what was batched: in the next animation frame, at most once per
// frame. A hidden webview (the window minimised) gets no frames, so a timer draws then instead;
// never while it is shown: frames that come late (a starved renderer) must still see at most one
// draw each, and a timer firing between two of them would be a second one (seen once in the
// streaming benchmark, BENCHMARKS.md). Pure but for the clock, so the rule is tested as a table.

/** What the browser gives: frames, timers, and whether the document is hidden. */
export interface FrameClock {
  requestFrame(run: () => void): number;
  cancelFrame(id: number): void;
  setTimer(run: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  hidden(): boolean;
}

/** The hidden webview's pace: a text lands within a quarter of a second. */
export const HIDDEN_FLUSH_MS = 250;

const browserClock: FrameClock = {
  requestFrame: (run) => requestAnimationFrame(run),
  cancelFrame: (id) => cancelAnimationFrame(id),
  setTimer: (run, ms) => setTimeout(run, ms),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  hidden: () => document.hidden,
};

export class FrameFlush {
  private frame: number | undefined;
  private timer: unknown;

  constructor(
    private readonly draw: () => void,
    private readonly clock: FrameClock = browserClock,
  ) {}

  /** Asks for one draw; asking again before it runs changes nothing. Call again when visibility changes. */
  schedule(): void {
    this.frame ??= this.clock.requestFrame(() => this.run());
    if (this.clock.hidden()) this.timer ??= this.clock.setTimer(() => this.run(), HIDDEN_FLUSH_MS);
  }

  /** Forgets the draw asked for (the transcript was replaced). */
  cancel(): void {
    if (this.frame !== undefined) this.clock.cancelFrame(this.frame);
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.frame = undefined;
    this.timer = undefined;
  }

  private run(): void {
    this.cancel();
    this.draw();
  }
}
