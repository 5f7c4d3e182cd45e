// Where a new document of the conversation is scrolled to (media/webview/scrollPlace.ts), as a table.
import * as assert from 'node:assert/strict';
import { keptPlace, settledTop, stillSettling } from '../../media/webview/scrollPlace';

describe('webview: the place a new document settles at', () => {
  const rows: [string, Parameters<typeof settledTop>, number][] = [
    // Without the holdsStart rule this printed: AssertionError: 65 !== 0 (and 85 !== 0 below; the reload
    // smoke's "scrolled to 65 of 1928": the resume notice's height, added at the end).
    ['at the top of a whole conversation: the top, whatever was added at the end', [{ top: 0, following: false, fromEnd: 1863 }, false, 1928, true, 24], 0],
    ['near the top (within the slack): the top', [{ top: 20, following: false, fromEnd: 1843 }, false, 1928, true, 24], 0],
    [
      'at the top of a document that lacks older pages: the same distance from the end',
      [{ top: 0, following: false, fromEnd: 500 }, false, 1928, false, 24],
      1428,
    ],
    ['further down: the same distance from the end', [{ top: 300, following: false, fromEnd: 1563 }, false, 1928, true, 24], 365],
    [
      'moved tab ⇄ view: the same fraction of a document of another width',
      [{ top: 300, following: false, fraction: 0.5, fromEnd: 300 }, true, 1000, true, 24],
      500,
    ],
    ['an older state without fromEnd: its top', [{ top: 300, following: false }, false, 1928, true, 24], 300],
  ];
  for (const [what, args, want] of rows) it(what, () => assert.equal(settledTop(...args), want));
});

describe('webview: a place settled at is put right again until the document can show it', () => {
  const place = { top: 0, following: false, fromEnd: 1500 };
  const rows: [string, Parameters<typeof stillSettling>, boolean][] = [
    // Without `drawing` (the place kept only while out of reach) this printed: AssertionError: false
    // !== true; in the long bench the reload's reader ended 6674 px from their place, the answers
    // below it drawn over the frames after the settle.
    ['the snapshot still drawing, the place within reach: again', [place, 4000, true, false], true],
    ['drawn, the place within reach: done', [place, 4000, false, true], false],
    // Without the out-of-reach rule: false !== true (a small first page, the place in the older pages).
    ['drawn, the place beyond the document, older pages to come: again', [place, 900, false, true], true],
    ['drawn, the place beyond the document, nothing older: done (the top is as far as it goes)', [place, 900, false, false], false],
    ['an older state without fromEnd: done once drawn', [{ top: 300, following: false }, 900, false, true], false],
  ];
  for (const [what, args, want] of rows) it(what, () => assert.equal(stillSettling(...args), want));
});

describe("webview: the place a snapshot that keeps the reader's place (a replay's end) settles at", () => {
  // The place a reload left, saved in a document of the whole conversation: 1,500 px above its end, 0.99 of the way down.
  const onItsWay = { top: 150_000, following: false, fraction: 0.99, fromEnd: 1500 };
  const rows: [string, Parameters<typeof keptPlace>, ReturnType<typeof keptPlace>][] = [
    // With the place on its way returned whole (its fraction too) this printed: AssertionError: Expected values to be
    // strictly deep-equal: + fraction: 0.99; the long bench's reload left the reader 1,500 px off, at the replay snapshot's end.
    [
      'a place still on its way: its distance from the end, not its fraction of another document',
      [onItsWay, 0, 700, false],
      { top: 150_000, following: false, fromEnd: 1500 },
    ],
    ['none on its way: where the reader is now, from the end', [undefined, 2500, 4000, false], { top: 2500, following: false, fromEnd: 1500 }],
    ['none on its way, following the end: still following', [undefined, 4000, 4000, true], { top: 4000, following: true, fromEnd: 0 }],
  ];
  for (const [what, args, want] of rows) it(what, () => assert.deepEqual(keptPlace(...args), want));
});
