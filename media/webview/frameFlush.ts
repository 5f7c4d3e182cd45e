// When the transcript draws what was batched: in the next animation frame, at most once per
// frame. A hidden webview (the window minimised) gets no frames, so a timer draws then instead;
// never while it is shown: frames that come late (a starved renderer) must still see at most one
// draw each, and a timer firing between two of them would be a second one (seen once in the
// streaming benchmark, BENCHMARKS.md). A frame that paints a key draws nothing else: the draw waits
// for the next frame, once. Pure but for the clock, so the rules are tested as a table.

/** What the browser gives: frames, timers, and whether the document is hidden. */
export interface FrameClock {
  /** `run` gets the frame's time (requestAnimationFrame's timestamp). */
  requestFrame(run: (time: number) => void): number;
  cancelFrame(id: number): void;
  setTimer(run: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  hidden(): boolean;
}

/** The hidden webview's pace: a text lands within a quarter of a second. */
export const HIDDEN_FLUSH_MS = 250;

/**
 * A key pressed less than a frame (at 60 Hz) before a frame begins is that frame's to paint. The
 * frame then paints the key alone: drawing a streamed batch in it too (its Markdown, the layout
 * of the answer's end) held typed characters a frame longer while an answer streamed at the end
 * of a long transcript (the long bench's typing row: p99 27 ms, the idle panel's 17).
 */
export const KEY_FRAME_MS = 16.7;

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
  /** The draw already waited one frame for a key: it does not wait two in a row (keys held down). */
  private waited = false;

  constructor(
    private readonly draw: () => void,
    private readonly clock: FrameClock = browserClock,
    /** When the last key was pressed, on the frames' clock (typingPause.ts keeps it). */
    private readonly lastKey: () => number = () => -Infinity,
  ) {}

  /** Asks for one draw; asking again before it runs changes nothing. Call again when visibility changes. */
  schedule(): void {
    this.frame ??= this.clock.requestFrame((time) => this.run(time));
    if (this.clock.hidden()) this.timer ??= this.clock.setTimer(() => this.run(), HIDDEN_FLUSH_MS);
  }

  /** Forgets the draw asked for (the transcript was replaced). */
  cancel(): void {
    if (this.frame !== undefined) this.clock.cancelFrame(this.frame);
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.frame = undefined;
    this.timer = undefined;
  }

  /** `time`: the frame's; none when the hidden webview's timer runs it. */
  private run(time?: number): void {
    if (time !== undefined && !this.waited && time - this.lastKey() < KEY_FRAME_MS) {
      this.waited = true;
      this.frame = this.clock.requestFrame((next) => this.run(next));
      return;
    }
    this.waited = false;
    this.cancel();
    this.draw();
  }
}
