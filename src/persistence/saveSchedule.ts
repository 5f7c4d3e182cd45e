// When the kept transcript is written (sessionKeeper.ts): at most every few seconds while it
// changes, not after the last change (a long turn streams without pause), and less often while
// only an answer's text grows. Each write sends the whole kept transcript (up to 1 MB of JSON)
// through the extension host's RPC into the workbench's renderer, the thread the panel shares:
// every 2 s of a streaming answer, the workbench storing it allocated 0.6 MB of the 6 MB the
// renderer allocated (sampled) over the streaming bench's 10 s, more than any other
// function but the RPC's JSON parsing (1.0 MB, which these writes add to), and the collections
// it brought landed in the panel's frames. No `vscode`: the table test drives it with its own timers.
import type { TranscriptOp } from '../runtime/transcript';

/** A new entry, a tool card, a notice: written this soon. */
export const SAVE_INTERVAL_MS = 2000;
/** Only streamed text since the last write: this soon. */
export const STREAMING_SAVE_INTERVAL_MS = 10_000;

export interface SaveTimers {
  now(): number;
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: SaveTimers = {
  now: () => Date.now(),
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class SaveSchedule {
  private timer: unknown;
  private due = Infinity;

  constructor(
    private readonly save: () => void,
    private readonly timers: SaveTimers = realTimers,
  ) {}

  /**
   * A change: the write is due within the change's interval (an earlier due time stands). A
   * turn's end is due as a new entry is: its answer's last text was only streamed, and a reload
   * within 10 s of it (the long bench's, 6 s after) brought the answer back without its end.
   */
  changed(op: TranscriptOp | { type: 'turn-ended' }): void {
    const delay = op.type === 'append' ? STREAMING_SAVE_INTERVAL_MS : SAVE_INTERVAL_MS;
    const due = this.timers.now() + delay;
    if (this.timer !== undefined && this.due <= due) return;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.due = due;
    this.timer = this.timers.set(() => this.now(), delay);
  }

  /** Writes at once (the window goes), and forgets what was due. */
  now(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.due = Infinity;
    this.save();
  }
}
