// The snapshot written into a panel's page (src/panel/pageSnapshot.ts): a document that drew it
// gets no other only when nothing happened since it was written; its text cannot end the page's
// data block, whatever an agent wrote.
import * as assert from 'node:assert/strict';
import { dataBlock, PageSnapshots } from '../../src/panel/pageSnapshot';

type Step = ['written', string | undefined] | ['missed'] | ['ready', string | undefined, boolean];

/** Each row: the steps, and at each `ready` whether that document has what it must show. */
const ROWS: [string, Step[]][] = [
  [
    'the page snapshot, nothing since: no other',
    [
      ['written', 'a'],
      ['ready', 'a', true],
    ],
  ],
  ['something happened before ready: a snapshot', [['written', 'a'], ['missed'], ['ready', 'a', false]]],
  [
    'a page without one: a snapshot',
    [
      ['written', undefined],
      ['ready', undefined, false],
    ],
  ],
  [
    'a document that names another page: a snapshot',
    [
      ['written', 'b'],
      ['ready', 'a', false],
    ],
  ],
  [
    'a document that names none (an old page): a snapshot',
    [
      ['written', 'a'],
      ['ready', undefined, false],
    ],
  ],
  // Hidden and shown again: a new document of the same page drew a snapshot from before.
  [
    'a second document of the same page: a snapshot',
    [
      ['written', 'a'],
      ['ready', 'a', true],
      ['ready', 'a', false],
    ],
  ],
  ['a new page after a miss starts clean', [['written', 'a'], ['missed'], ['written', 'c'], ['ready', 'c', true]]],
];

// The staleness left out of ready() (the page's id alone), two rows failed: "something happened
// before ready" and "a second document of the same page", each "step 2: ready(a) true !== false".
describe('page snapshot: when a new document needs a snapshot', () => {
  for (const [name, steps] of ROWS) {
    it(name, () => {
      const page = new PageSnapshots();
      steps.forEach((step, i) => {
        if (step[0] === 'written') page.written(step[1]);
        else if (step[0] === 'missed') page.missed();
        else assert.equal(page.ready(step[1]), step[2], `step ${i}: ready(${step[1]})`);
      });
    });
  }

  it('says whether the page has one, for the page set on hide', () => {
    const page = new PageSnapshots();
    assert.equal(page.inPage, false);
    page.written('a');
    assert.equal(page.inPage, true);
    page.written(undefined);
    assert.equal(page.inPage, false);
  });
});

describe('page snapshot: the data block', () => {
  it('cannot be ended or commented out by the text in it, and reads back the same', () => {
    const text = 'an agent wrote </script><script>alert(1)</script> and <!-- and </SCRIPT >';
    const block = dataBlock({ id: 'a', message: { entries: [{ text }] } });
    assert.doesNotMatch(block, /<\/script/i);
    assert.doesNotMatch(block, /<!--/);
    assert.doesNotMatch(block, /</);
    assert.deepEqual(JSON.parse(block), { id: 'a', message: { entries: [{ text }] } });
  });
});
