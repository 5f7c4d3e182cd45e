// Where a new document of the conversation is scrolled to, from the place a reader left (pure:
// scroll.ts applies it). Kept apart so the rule is tested as a table without a DOM.
import type { CarriedState } from '../../src/shared/messages';

type ScrollState = NonNullable<CarriedState['scroll']>;

/**
 * `max`: the new document's scrollable height. `carried`: the place came with a move (tab ⇄
 * view), so it is a fraction of a document of another width. `holdsStart`: the document holds
 * the conversation from its first entry, so a reader who was at the very top (within `slack`)
 * goes back there: a distance from the end would move them by whatever was added at the end
 * since (a "Resumed the session" notice).
 */
export function settledTop(saved: ScrollState, carried: boolean, max: number, holdsStart: boolean, slack: number): number {
  if (holdsStart && saved.top <= slack) return 0;
  if (carried && saved.fraction !== undefined) return saved.fraction * max;
  if (saved.fromEnd !== undefined) return max - saved.fromEnd;
  return saved.top;
}

/**
 * Whether a place settled at must be put right again after the next change: the snapshot's
 * entries are still being drawn (`drawing`: the document grows below the reader), or the place
 * is further from the end than the document reaches and older entries are still to come.
 */
export function stillSettling(saved: ScrollState, max: number, drawing: boolean, earlierLeft: boolean): boolean {
  const reached = saved.fromEnd === undefined || max >= saved.fromEnd;
  return drawing || (!reached && earlierLeft);
}

/**
 * The place a snapshot that keeps the reader's place (a replay's end) settles at: the same
 * document width, the same entries at its end, so a distance from the end. `pending`: a place
 * still on its way (settle() could not show it yet: older pages it lies in had not come), kept
 * as its distance from the end only: its `fraction` is of the document it was saved in (the whole
 * conversation before a reload), and of the new one it put the reader near its end, 1,500 px off.
 * Else where the reader is now (`max`: the scrollable height).
 */
export function keptPlace(pending: ScrollState | undefined, top: number, max: number, following: boolean): ScrollState {
  if (pending) return { top: pending.top, following: pending.following, fromEnd: pending.fromEnd };
  return { top, following, fromEnd: max - top };
}
