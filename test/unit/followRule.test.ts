// After a snapshot: follow the end, or settle at which place, of which document (media/webview/followRule.ts), as a table.
import * as assert from 'node:assert/strict';
import { snapshotScroll } from '../../media/webview/followRule';

describe('webview: where a snapshot leaves the reader', () => {
  const kept = { top: 2500, following: false, fromEnd: 1500 };
  const carried = { draft: '', scroll: { top: 300, following: false, fraction: 0.5, fromEnd: 300 } };
  const rows: [string, Parameters<typeof snapshotScroll>, ReturnType<typeof snapshotScroll>][] = [
    ['a replay runs: the end (its start is no place)', [{ replaying: true, earlier: 5 }, undefined], { to: 'end' }],
    ['a replay runs, moved here meanwhile: the end still', [{ replaying: true, carried }, undefined], { to: 'end' }],
    [
      'the first snapshot: the place the earlier document left',
      [{ earlier: 5 }, undefined],
      { to: 'place', place: undefined, carried: false, holdsStart: false },
    ],
    ['the whole conversation: it holds the start', [{}, undefined], { to: 'place', place: undefined, carried: false, holdsStart: true }],
    [
      'moved from the tab or the view: that place, of a document of another width',
      [{ carried, earlier: 5 }, undefined],
      { to: 'place', place: carried.scroll, carried: true, holdsStart: false },
    ],
    [
      'moved, no place said: the end',
      [{ carried: { draft: '' } }, undefined],
      { to: 'place', place: { top: 0, following: true }, carried: true, holdsStart: true },
    ],
    // With a replay's end taken as a carried place (as before: settle() took any place given so) this printed:
    // AssertionError: Expected values to be strictly deep-equal: + carried: true, - carried: false.
    [
      "a replay's end: the place kept, of this document",
      [{ keepPlace: true, earlier: 5 }, kept],
      { to: 'place', place: kept, carried: false, holdsStart: false },
    ],
    [
      "a replay's end before the earlier document's place was settled: that one",
      [{ keepPlace: true, earlier: 5 }, undefined],
      { to: 'place', place: undefined, carried: false, holdsStart: false },
    ],
  ];
  for (const [what, args, want] of rows) it(what, () => assert.deepEqual(snapshotScroll(...args), want));
});
