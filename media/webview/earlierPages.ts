// Asks the host for the transcript's older entries, a page at a time (src/panel/transcriptPages.ts
// says why a long transcript comes newest first): in idle time while no turn runs and the user is
// not typing, until the panel holds everything (Find in the panel reaches only what is in its
// DOM), and at once when the user scrolls near the top. One request at a time; the answer
// (`earlier`) is checked against the entry it was asked before, so a snapshot in between makes it moot.
import type { WebviewToHost } from '../../src/shared/messages';

/** Near the top: within this many screen heights of it, the next page is asked for at once. */
const NEAR_TOP_SCREENS = 2;
/** While a turn runs or the user types, idle time is theirs: asked again this much later. */
const BUSY_RETRY_MS = 1_000;

export class EarlierPages {
  /** Entries still before the first one the panel holds. */
  private left = 0;
  /** The first entry's id when the page before it was asked for (answered or not yet). */
  private asked: string | undefined;
  private idle: number | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly scroller: HTMLElement,
    /** The id of the first entry the panel holds. */
    private readonly first: () => string | undefined,
    private readonly post: (message: WebviewToHost) => void,
    /** No turn running and the user not typing (typingPause.ts): idle time may go to older pages. */
    private readonly quiet: () => boolean,
  ) {
    scroller.addEventListener('scroll', () => this.nearTop() && this.ask(), { passive: true });
  }

  get remaining(): number {
    return this.left;
  }

  /** A snapshot or a page arrived: `left` entries are still before the first one held. */
  set(left: number): void {
    this.left = left;
    this.asked = undefined;
    if (left === 0) return this.cancel();
    this.schedule();
    // Once laid out and scrolled (a snapshot is settled after it is applied): a reader at the top
    // gets the next page at once, turn or no turn.
    window.requestAnimationFrame(() => this.nearTop() && this.ask());
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
      if (this.quiet()) this.ask();
      else this.retry = setTimeout(() => ((this.retry = undefined), this.schedule()), BUSY_RETRY_MS);
    });
  }

  private ask(): void {
    const first = this.first();
    if (this.left === 0 || this.asked !== undefined || first === undefined) return;
    this.asked = first;
    this.post({ type: 'earlier', before: first });
  }

  private cancel(): void {
    if (this.idle !== undefined) window.cancelIdleCallback(this.idle);
    clearTimeout(this.retry);
    this.idle = this.retry = undefined;
  }
}
