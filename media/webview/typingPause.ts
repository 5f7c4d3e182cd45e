// Work done in idle time waits while the user types: the transcript's older pages
// (earlierPages.ts) and readying its closed groups (groupWarmer.ts) each hold the main thread
// 10–50 ms, and a key pressed meanwhile waits for it. At the end of a 100-turn transcript, older
// pages of 60 KB came ten a second while a draft was typed after a turn had ended (the long
// bench); with a 10-turn one nothing did. Idle time comes between two keys, so "idle" alone does
// not say the user has stopped.

/** Idle work resumes this long after the last key. */
export const TYPING_PAUSE_MS = 1_000;

export class TypingPause {
  /** When the last key was pressed (performance.now(); the frame flush reads it too). */
  private last = -Infinity;

  constructor(
    keys: Pick<EventTarget, 'addEventListener'>,
    private readonly now: () => number = () => performance.now(),
  ) {
    // Capture: a key handled (and stopped) by the input box or a card is a key all the same.
    keys.addEventListener('keydown', () => (this.last = this.now()), { capture: true, passive: true });
  }

  get lastKey(): number {
    return this.last;
  }

  /** A key was pressed within the last TYPING_PAUSE_MS. */
  get typing(): boolean {
    return this.now() - this.last < TYPING_PAUSE_MS;
  }
}
