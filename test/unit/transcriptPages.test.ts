// A long transcript goes to the webview in pages, newest first (src/panel/transcriptPages.ts):
// each page within its bounds, every entry in exactly one page, and updates to entries the
// webview does not hold yet left to the page that brings them.
import * as assert from 'node:assert/strict';
import { entryChars, pageStart, ShownPages } from '../../src/panel/transcriptPages';
import { checkWebviewMessage } from '../../src/panel/webviewInput';
import type { TranscriptEntry } from '../../src/shared/messages';

const agent = (i: number, chars: number): TranscriptEntry => ({ kind: 'agent', id: `a${i}`, markdown: 'x'.repeat(chars) });

describe('transcript pages', () => {
  it('a page holds as many entries before its end as fit its characters and its count', () => {
    const entries = Array.from({ length: 100 }, (_, i) => agent(i, 1_000));
    const size = entryChars(entries[99]!);
    // 5 entries' worth of characters: 5 entries.
    assert.equal(
      pageStart((i) => entries[i]!, 100, size * 5, 60),
      95,
    );
    // Many characters, 10 entries at most.
    assert.equal(
      pageStart((i) => entries[i]!, 100, 1e9, 10),
      90,
    );
    // Not past the start.
    assert.equal(
      pageStart((i) => entries[i]!, 3, 1e9, 10),
      0,
    );
  });

  it('an entry larger than a page is a page of its own, so that paging always moves', () => {
    const entries = [agent(0, 10), agent(1, 500_000), agent(2, 10)];
    assert.equal(
      pageStart((i) => entries[i]!, 3, 1_000, 60),
      2,
    );
    assert.equal(
      pageStart((i) => entries[i]!, 2, 1_000, 60),
      1,
    );
    assert.equal(
      pageStart((i) => entries[i]!, 1, 1_000, 60),
      0,
    );
  });

  it("a snapshot's first page fills: the entry that crosses its bound comes too", () => {
    const entries = [agent(0, 10), agent(1, 500_000), agent(2, 10)];
    // Without `fill` this printed 2 (the small last entry alone: nothing to fill the panel with).
    assert.equal(
      pageStart((i) => entries[i]!, 3, 1_000, 60, true),
      1,
    );
    const small = Array.from({ length: 10 }, (_, i) => agent(i, 100));
    assert.equal(
      pageStart((i) => small[i]!, 10, entryChars(small[0]!) * 3, 60, true),
      7,
    );
  });

  it('paging from the end reaches every entry once, and looks only at the page it makes', () => {
    const entries = Array.from({ length: 1_000 }, (_, i) => agent(i, (i * 37) % 5_000));
    let looked = 0;
    const at = (i: number) => (looked++, entries[i]!);
    const seen: number[] = [];
    let pages = 0;
    for (let end = entries.length; end > 0; pages++) {
      looked = 0;
      const start = pageStart(at, end, 20_000, 60);
      assert.ok(start < end);
      assert.ok(looked <= end - start + 1, `looked at ${looked} entries for a page of ${end - start}`);
      for (let i = end - 1; i >= start; i--) seen.push(i);
      end = start;
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 1_000 }, (_, i) => 999 - i),
    );
    assert.ok(pages > 10);
  });

  it('an update to an entry before the pages the webview holds is not posted; new entries and held ones are', () => {
    // Without the check (holds() always true), an update to an older entry reached a webview that
    // did not hold it, and showed it at the end. Removed once by hand (holds() returning true),
    // this printed: "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: true !== false".
    const shown = new ShownPages();
    assert.equal(shown.holds(3), true); // everything held before any paging
    shown.shownFrom(120);
    assert.equal(shown.holds(119), false);
    assert.equal(shown.holds(120), true);
    assert.equal(shown.holds(-1), true); // not in the transcript before: a new entry, at the end
  });

  it("the webview's request for the page before an entry is checked", () => {
    assert.equal(checkWebviewMessage({ type: 'earlier', before: 'a1' }).ok, true);
    assert.equal(checkWebviewMessage({ type: 'earlier' }).ok, false);
    assert.equal(checkWebviewMessage({ type: 'earlier', before: 7 }).ok, false);
  });
});
