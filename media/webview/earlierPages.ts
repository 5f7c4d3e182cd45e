// Asks the host for the transcript's older entries, a page at a time (src/panel/transcriptPages.ts
// says why a long transcript comes newest first): at once when the user scrolls near the top, and
// in idle time while no turn runs and the user is not typing, as far as pageWindow.ts says. The
// same idle time lets the oldest groups go again once the reader is far below them (the host is
// told, so it stops sending their updates; they come back in pages). One request at a time; the
// answer (`earlier`) is checked against the entry it was asked before, so a snapshot in between
// makes it moot.
import type { WebviewToHost } from '../../src/shared/messages';
import { idleStep, type Held } from './pageWindow';

/** Near the top: within this many screen heights of it, the next page is asked for at once. */
const NEAR_TOP_SCREENS = 2;
/** While a turn runs or the user types, idle time is theirs: asked again this much later. */
const BUSY_RETRY_MS = 1_000;
/**
 * While the reader scrolls, idle time is theirs too (the idle periods between a fling's frames):
 * a group let go or a page drawn then would cost a frame of the fling. Until this long after the
 * last scroll event.
 */
const SCROLL_PAUSE_MS = 1_000;
/**
 * A scroll event this soon after the panel moved the view itself (a page or a group above the
 * reader, their place kept) is that move's, not the reader's: it comes with the next frame.
 */
const OWN_SCROLL_MS = 200;

/** The transcript's side: what it holds, and letting its oldest group go. */
export interface HeldPage {
  /** The id of the first entry the panel holds. */
  first(): string | undefined;
  /** What it holds, without `left` (this class keeps that). */
  held(): Omit<Held, 'left'>;
  /** Lets the oldest group go; how many of the conversation's entries went with it. */
  dropFirstGroup(): number;
}

export class EarlierPages {
  /** Entries still before the first one the panel holds. */
  private left = 0;
  /** The first entry's id when the page before it was asked for (answered or not yet). */
  private asked: string | undefined;
  private idle: number | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  /** The reader's last scroll event, and the panel's own last move of the view. */
  private lastScroll = 0;
  private ownScroll = 0;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly page: HeldPage,
    private readonly post: (message: WebviewToHost) => void,
    /** No turn running and the user not typing (typingPause.ts): idle time may go to older pages. */
    private readonly quiet: () => boolean,
  ) {
    // Near the top: the page before, now. Elsewhere the reader may have left the oldest groups far behind.
    scroller.addEventListener(
      'scroll',
      () => {
        const now = performance.now();
        if (now - this.ownScroll > OWN_SCROLL_MS) this.lastScroll = now;
        if (this.nearTop()) this.ask();
        else this.schedule();
      },
      { passive: true },
    );
  }

  get remaining(): number {
    return this.left;
  }

  /** The reader scrolled in the last SCROLL_PAUSE_MS: idle work waits (groupWarmer.ts too). */
  get scrolling(): boolean {
    return performance.now() - this.lastScroll < SCROLL_PAUSE_MS;
  }

  /** A snapshot or a page arrived: `left` entries are still before the first one held. */
  set(left: number): void {
    this.left = left;
    this.ownScroll = performance.now(); // a snapshot is settled as it is applied
    this.asked = undefined;
    this.schedule();
    // Once laid out and scrolled (a snapshot is settled after it is applied): a reader at the top
    // gets the next page at once, turn or no turn.
    window.requestAnimationFrame(() => this.nearTop() && this.ask());
  }

  /** The panel holds more than it did (a turn ended): idle time may let the oldest group go. */
  grew(): void {
    this.schedule();
  }

  /** The page before the first entry held, asked for now (unless asked already); false: there is none. */
  askNow(): boolean {
    if (this.left === 0) return false;
    this.ask();
    return true;
  }

  /**
   * Runs `change` (entries added or let go above the reader) keeping the reader's place: their
   * distance from the end. The scroll that keeps it is the panel's own move, not the reader's.
   */
  keepPlace<T>(change: () => T): T {
    const fromEnd = this.scroller.scrollHeight - this.scroller.scrollTop;
    const result = change();
    this.scroller.scrollTop = this.scroller.scrollHeight - fromEnd;
    this.ownScroll = performance.now();
    return result;
  }

  /** Whether the answer to the request for the page before `before` is still wanted. */
  wants(before: string): boolean {
    return this.asked === before;
  }

  private nearTop(): boolean {
    return this.left > 0 && this.scroller.scrollTop < this.scroller.clientHeight * NEAR_TOP_SCREENS;
  }

  private schedule(): void {
    if (this.idle !== undefined || this.retry !== undefined) return;
    this.idle = window.requestIdleCallback(() => {
      this.idle = undefined;
      if (this.quiet() && !this.scrolling) this.step();
      else this.retry = setTimeout(() => ((this.retry = undefined), this.schedule()), BUSY_RETRY_MS);
    });
  }

  /** One idle callback's work: a page asked for, or one group let go (and the next looked at later). */
  private step(): void {
    const step = idleStep({ ...this.page.held(), left: this.left });
    if (step === 'fetch') this.ask();
    if (step !== 'drop') return;
    this.left += this.keepPlace(() => this.page.dropFirstGroup());
    this.asked = undefined; // a page asked for before the old first entry is moot (transcript.ts drops it)
    const first = this.page.first();
    if (first !== undefined) this.post({ type: 'dropped', first });
    this.schedule();
  }

  private ask(): void {
    const first = this.page.first();
    if (this.left === 0 || this.asked !== undefined || first === undefined) return;
    this.asked = first;
    this.post({ type: 'earlier', before: first });
  }
}
