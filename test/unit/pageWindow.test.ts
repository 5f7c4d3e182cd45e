// How much of a long transcript the panel holds (media/webview/pageWindow.ts): idle time fetches
// older pages only up to IDLE_HOLD_ENTRIES and lets the oldest group go again once the reader is
// far below it, never one the user is in, never the last, and never below the bound (so the two
// never undo each other). The host then stops posting updates of what went
// (src/panel/transcriptSender.ts dropped()), and a page brings it back.
import * as assert from 'node:assert/strict';
import { FAR_SCREENS, IDLE_HOLD_ENTRIES, idleStep, type Held, type IdleStep } from '../../media/webview/pageWindow';
import type { Transcript } from '../../src/runtime/transcript';
import { senderHarness } from '../support/senderHarness';

const B = IDLE_HOLD_ENTRIES;
const group = (entries: number, far = true, inUse = false): Held['firstGroup'] => ({ entries, far, inUse });

describe('the page window (what idle time does)', () => {
  const table: [string, Held, IdleStep][] = [
    ['a short conversation, all held', { entries: 12, left: 0 }, 'none'],
    ['a long one opened at its end: the page before', { entries: 20, left: 980, firstGroup: group(20) }, 'fetch'],
    ['just under the bound: one more page', { entries: B - 1, left: 900, firstGroup: group(50) }, 'fetch'],
    ['at the bound: nothing more fetched in idle time', { entries: B, left: 900, firstGroup: group(50) }, 'none'],
    ['grown past it by turns, the oldest group far above: it goes', { entries: B + 50, left: 0, firstGroup: group(50) }, 'drop'],
    ['grown past it, but the oldest group near the reader: it stays', { entries: B + 50, left: 0, firstGroup: group(50, false) }, 'none'],
    ['the oldest group holds the focus or the selection: it stays', { entries: B + 500, left: 0, firstGroup: group(50, true, true) }, 'none'],
    ['letting it go would leave fewer than the bound: it stays', { entries: B + 49, left: 300, firstGroup: group(50) }, 'none'],
    ['one group only (the last, which takes new entries): never goes', { entries: 5_000, left: 0 }, 'none'],
    [
      'a page of 60 came to a panel just under the bound, 50 of it in the oldest group: that group goes',
      { entries: B + 59, left: 800, firstGroup: group(50) },
      'drop',
    ],
  ];
  for (const [name, held, want] of table) it(`${name}: ${want}`, () => assert.equal(idleStep(held), want));

  it('fetching and letting go never undo each other: from any state, at most one of each until nothing is left to do', () => {
    // A panel whose oldest groups are far (the reader at the end), fed pages of 60 (a group of 50
    // and one of 10, as transcript.ts's applyPrepend builds them), turns adding entries between.
    // Sabotage (the drop bound as `entries > B`, not `entries - group >= B`): the panel then
    // dropped under the bound, fetched again, dropped again: 2 failing, this one "AssertionError: 9
    // steps from 20: fetch, fetch, drop, fetch, drop, fetch, drop, fetch, drop" (and the table's
    // "would leave fewer than the bound" row).
    for (const start of [0, 20, B - 1, B, B + 10, B + 200]) {
      let entries = start;
      let left = 1_000;
      const groups: number[] = start > 0 ? [start] : [];
      const steps: IdleStep[] = [];
      for (let i = 0; i < 40; i++) {
        const held: Held = { entries, left, ...(groups.length > 1 && { firstGroup: group(groups[0]!) }) };
        const step = idleStep(held);
        if (step === 'none') break;
        steps.push(step);
        if (step === 'fetch') {
          groups.unshift(50, 10);
          entries += 60;
          left -= 60;
        } else {
          entries -= groups.shift()!;
          left += 50;
        }
      }
      assert.ok(steps.length <= 4, `${steps.length} steps from ${start}: ${steps.join(', ')}`);
      assert.ok(entries >= Math.min(B, start + 1_000) || left === 0, `from ${start}: ends holding ${entries}`);
    }
  });

  it('FAR_SCREENS lies beyond the distance at which the next page is asked for (2 screens from the top)', () => {
    assert.ok(FAR_SCREENS > 2);
  });
});

describe('the host after the webview let entries go', () => {
  function setUp(n: number): ReturnType<typeof senderHarness> {
    const harness = senderHarness();
    for (let i = 0; i < n; i++)
      harness.t.apply({ sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: `c${i}`, title: `Read ${i}`, status: 'pending' } });
    return harness;
  }
  const update = (t: Transcript, i: number): void =>
    t.apply({ sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: `c${i}`, status: 'completed' } });

  it('posts no update of an entry before the new first one, and still those after it; a page brings them back', () => {
    const { t, posted, sender } = setUp(200);
    sender.newestPage();
    for (let end = t.length - 20; end > 0;) end = sender.earlierPage(`c${end}`)!.earlier; // the webview holds everything
    posted.length = 0;
    update(t, 10);
    assert.equal(posted.length, 1, 'held: posted');
    sender.dropped('c100');
    posted.length = 0;
    update(t, 11);
    update(t, 99);
    // Without dropped() moving the shown pages, this printed: "AssertionError: 2 updates of
    // entries let go posted" (the webview drops them, but it would keep getting every one).
    assert.equal(posted.length, 0, `${posted.length} updates of entries let go posted`);
    update(t, 100);
    assert.equal(posted.length, 1, 'the new first entry: posted');
    const page = sender.earlierPage('c100')!;
    assert.equal(page.entries.at(-1)?.id, 'c99');
    posted.length = 0;
    update(t, 99);
    assert.equal(posted.length, 1, 'brought back by a page: posted again');
  });

  it('a late or unknown `first` never widens what is posted', () => {
    const { t, posted, sender } = setUp(200);
    sender.newestPage(); // holds from 180
    sender.dropped('c50'); // from an older document, before the snapshot: ignored
    sender.dropped('nope');
    posted.length = 0;
    update(t, 150);
    assert.equal(posted.length, 0);
    update(t, 190);
    assert.equal(posted.length, 1);
  });
});
