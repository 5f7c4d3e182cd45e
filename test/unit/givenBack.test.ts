// Text given back to the input box comes in pieces (a stopped turn's prompt, the prompts queued
// behind it): joined in order, none replacing another, nothing dropped.
import * as assert from 'node:assert/strict';
import { joinGivenBack, joinPending } from '../../src/shared/givenBack';
import { releasedText } from '../../src/conversation/userText';

describe('text given back to the input box', () => {
  it('joins the texts in order, one blank line apart; equal texts stay two, blank ones go', () => {
    assert.equal(joinGivenBack(['first', 'second', 'second', '  ', 'third']), 'first\n\nsecond\n\nsecond\n\nthird');
  });

  // InputReturn.giveBack keeps `joinPending(pending, given)`: before, a second text replaced the first.
  // Sabotage (joinPending returning `next` alone), this printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: (the text 'queued 1\n\nqueued 2' without 'typed')
  it('a second text given back before the panel shows joins the first, with the files of both', () => {
    const a = { uri: 'file:///w/a.ts', label: 'a.ts' };
    const b = { uri: 'file:///w/b.ts', label: 'b.ts' };
    const first = joinPending(undefined, { text: 'typed', files: [a] });
    assert.deepEqual(joinPending(first, { text: 'queued 1\n\nqueued 2', files: [a, b] }), { text: 'typed\n\nqueued 1\n\nqueued 2', files: [a, b] });
  });

  it('says why queued prompts came back, one or several', () => {
    assert.equal(releasedText(1, 'stopped'), 'Your queued prompt was not sent: the turn before it was stopped. It is back in the input box.');
    assert.equal(releasedText(3, 'exited'), 'Your 3 queued prompts were not sent: the agent exited. They are back in the input box.');
  });
});
