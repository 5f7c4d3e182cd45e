// The start of a long answer for the screen-reader announcement (media/webview/leadingText.ts):
// the same as trimming the whole text and cutting it, however the text is split into pieces.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { leadingText } from '../../media/webview/leadingText';

/** What transcript.ts announced before: the whole text, trimmed, then cut. */
function reference(pieces: string[], max: number): { text: string; more: boolean } {
  const whole = pieces.join('').trim();
  return whole.length > max ? { text: whole.slice(0, max), more: true } : { text: whole, more: false };
}

describe('leadingText: the start of a long text without the rest', () => {
  it('is the whole text trimmed and cut, for any pieces and limit', () => {
    const piece = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(' ', '\n', '\t \n', '\u00a0', 'word', ''));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.integer({ min: 0, max: 40 }), (pieces, max) => {
        assert.deepEqual(leadingText(pieces, max), reference(pieces, max));
      }),
      { numRuns: 2000 },
    );
  });

  // Sabotage (leadingText reading every piece before cutting), this printed:
  //   AssertionError [ERR_ASSERTION]: pieces read after the limit
  //   10000 !== 2
  it('stops reading once the limit is passed by text that is not white space', () => {
    let read = 0;
    function* pieces(): Generator<string> {
      for (let i = 0; i < 10_000; i++) {
        read++;
        yield 'a paragraph of forty characters, or so.';
      }
    }
    const { text, more } = leadingText(pieces(), 50);
    assert.equal(more, true);
    assert.equal(text.length, 50);
    assert.equal(read, 2, 'pieces read after the limit');
  });

  it('white space past the limit is not more: the trimmed text fits', () => {
    assert.deepEqual(leadingText(['  abc', '   ', '\n\n'], 4), { text: 'abc', more: false });
    assert.deepEqual(leadingText(['abcd', '   ', 'e'], 4), { text: 'abcd', more: true });
  });
});
