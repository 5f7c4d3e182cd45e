// After a snapshot, does the panel follow the conversation's end, or settle at a place, and is
// that place of this document's width or of another one's? Pure (main.ts applies it through
// scroll.ts), so the rule is tested as a table without a DOM.
import type { CarriedState } from '../../src/shared/messages';

type ScrollState = NonNullable<CarriedState['scroll']>;

/** What of a snapshot decides where the panel scrolls to. */
export interface SnapshotPlace {
  /** A session/load's replay runs: its start is no place to settle at (the snapshot at its end is). */
  replaying?: true;
  /** The end of a replay: the reader stays where they were. */
  keepPlace?: true;
  /** The conversation moved here from the tab or the view. */
  carried?: CarriedState;
  /** Entries before the snapshot's, still to come in pages. */
  earlier?: number;
}

export type SnapshotScroll =
  | { to: 'end' }
  | {
      to: 'place';
      /** Undefined: the place the panel's earlier document left (hidden, or the window reloaded). */
      place: ScrollState | undefined;
      /** The place is of a document of another width (tab ⇄ view): its fraction counts, not its pixels. */
      carried: boolean;
      /** The snapshot holds the conversation from its first entry. */
      holdsStart: boolean;
    };

/**
 * `kept`: where the reader is in the document the snapshot replaces (scroll.ts place(), measured
 * before it is replaced); undefined while the earlier document's place is still to be settled.
 */
export function snapshotScroll(snapshot: SnapshotPlace, kept: ScrollState | undefined): SnapshotScroll {
  if (snapshot.replaying) return { to: 'end' };
  const holdsStart = !snapshot.earlier;
  // Moved here from the tab or the view: the place it had there (none said: it followed the end).
  if (snapshot.carried) return { to: 'place', place: snapshot.carried.scroll ?? { top: 0, following: true }, carried: true, holdsStart };
  // The same panel, the same width, the same entries at the end: the place kept is one of this
  // document, as a distance from the end. Taken as carried, a place still on its way from a
  // reload was read as a fraction of the whole conversation before it, near this snapshot's end.
  if (snapshot.keepPlace) return { to: 'place', place: kept, carried: false, holdsStart };
  return { to: 'place', place: undefined, carried: false, holdsStart };
}
