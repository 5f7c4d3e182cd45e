// A long transcript goes to the webview in pages, newest first. A snapshot carries the newest
// entries that fit PAGE_CHARS; the webview asks for the page before its first entry when scrolled
// near the top, and while it is idle until it holds a bound's worth, letting the oldest groups go
// again when the reader is far below them (media/webview/pageWindow.ts says why). Posting a
// four-hour session whole (50 MB) cost the extension host a deep copy and a structured clone of
// all of it, and the webview a render of every entry before the first paint; a page costs what a
// short conversation does. Pure: no `vscode`.
import type { TranscriptEntry } from '../shared/messages';

/**
 * Characters (of JSON) a page carries at most; a single larger entry is a page of its own. The
 * webview draws a page in one frame: 200,000 took it 100 ms and more, which held the panel just
 * after its first paint (interactive 500–1100 ms in the long bench once the first page was small).
 */
const PAGE_CHARS = 60_000;
/** Entries a page carries at most: each costs the webview a view and its DOM. */
const PAGE_ENTRIES = 60;
/**
 * A snapshot's page: about what fills a panel (an answer and the cards before it), since the
 * webview draws all of it before its first paint and the older pages come right after. With the
 * whole 200,000 characters (two turns of the long bench's session) a panel's first paint took
 * 230–360 ms, 100 ms of it drawing entries out of sight.
 */
export const FIRST_PAGE_CHARS = 30_000;
export const FIRST_PAGE_ENTRIES = 20;

/** What one entry costs to post, about: its JSON's length. */
export function entryChars(entry: TranscriptEntry): number {
  return JSON.stringify(entry).length;
}

/**
 * Where the page that ends before `end` starts: as many entries before `end` as fit the bounds,
 * at least one (so that paging always moves). `at(i)` gives entry i (the transcript's own, not
 * copied: only the page's entries are looked at).
 */
export function pageStart(at: (i: number) => TranscriptEntry, end: number, maxChars = PAGE_CHARS, maxEntries = PAGE_ENTRIES, fill = false): number {
  let start = end;
  let chars = 0;
  while (start > 0 && end - start < maxEntries) {
    const size = entryChars(at(start - 1));
    // `fill` (a snapshot's first page): the entry that crosses the bound comes too, so that a
    // small notice after a long answer is not a page of its own, with nothing to fill the panel.
    if (start < end && (fill ? chars >= maxChars : chars + size > maxChars)) break;
    chars += size;
    start--;
  }
  return start;
}

/**
 * Which entries a webview holds: those from `from` to the end. An update to an entry before
 * `from` is not posted (the page that brings that entry carries its state as it is then).
 */
export class ShownPages {
  private fromIndex = 0;

  get from(): number {
    return this.fromIndex;
  }

  /** A snapshot or a page went out: the webview holds everything from `index` on. */
  shownFrom(index: number): void {
    this.fromIndex = index;
  }

  /** Whether the webview holds the entry at `index` (-1: a new entry, which goes at the end). */
  holds(index: number): boolean {
    return index < 0 || index >= this.fromIndex;
  }
}
