// Where a new document of the conversation is scrolled to (media/webview/scrollPlace.ts), as a table.
import * as assert from 'node:assert/strict';
import { settledTop } from '../../media/webview/scrollPlace';

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
