// How much of a long transcript the panel holds (pure: earlierPages.ts carries it out, so the
// rule is tested as a table without a DOM). Older entries come in pages (src/panel/transcriptPages.ts);
// idle time brings pages only until the panel holds IDLE_HOLD_ENTRIES, and lets the oldest
// groups go again once the reader is far below them, so a panel at the end of a 500-turn
// conversation holds what one at the end of a 10-turn one does. A reader who scrolls up gets
// every older page as they near the top, as before.
//
// Why not the whole transcript, as before (BENCHMARKS.md, issue 27): at 500 turns idle time had
// brought 229 entries (1.3 M characters) into the page before the long bench's streams, against
// 62 at 10 turns, and typing while an answer streamed there was slower than in a bare webview
// (median 1.24× over five runs); with the page holding what a short conversation's does it was
// not. The cost: VS Code's Find in the panel reaches the entries the panel holds, no more; the
// rest come as the reader scrolls up.

/** Idle time brings older pages until the panel holds this many entries, and lets groups go down to it. */
export const IDLE_HOLD_ENTRIES = 120;
/** A group whose end is more than this many screen heights above the view may go (it is out of reach of a flick). */
export const FAR_SCREENS = 3;

/** What the panel holds, as an idle callback sees it. */
export interface Held {
  /** Entries the panel holds (each with a view). */
  entries: number;
  /** Entries of the conversation before the first one held. */
  left: number;
  /** The oldest group, unless it is the only one (the last group takes the new entries, and never goes). */
  firstGroup?: {
    entries: number;
    /** Its end is more than FAR_SCREENS screens above the view. */
    far: boolean;
    /** It holds the keyboard focus or the user's selection: it stays, whatever else holds. */
    inUse: boolean;
  };
}

export type IdleStep = 'fetch' | 'drop' | 'none';

/**
 * What one idle callback does: ask for the page before the first entry while the panel holds
 * fewer than IDLE_HOLD_ENTRIES, or let the oldest group go while the rest still hold that many
 * (so a page fetched next would not be let go at once: the two bounds never cross).
 */
export function idleStep(held: Held): IdleStep {
  if (held.left > 0 && held.entries < IDLE_HOLD_ENTRIES) return 'fetch';
  const group = held.firstGroup;
  if (group && group.far && !group.inUse && held.entries - group.entries >= IDLE_HOLD_ENTRIES) return 'drop';
  return 'none';
}
