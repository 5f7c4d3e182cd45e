// Agent text outside Markdown: bidi controls and zero-width characters become visible markers
// (src/shared/invisibleChars.ts), so a tool's title, a path, a plan entry, an option or the
// agent's name cannot read as something it is not.
import * as assert from 'node:assert/strict';
import { hasInvisible, revealInvisible, revealInvisibleText } from '../../src/shared/invisibleChars';

describe('webview: invisible characters in agent text', () => {
  // Sabotage (NAMES without 0x202e, RLO), this printed:
  //   AssertionError: Expected values to be strictly equal: 'Edit report\u202efdp.exe' !== 'Edit report⟨RLO⟩fdp.exe'
  it('shows a right-to-left override in a file name as a marker, so it cannot read as another name', () => {
    assert.equal(revealInvisibleText('Edit report\u202Efdp.exe'), 'Edit report⟨RLO⟩fdp.exe');
    assert.deepEqual(revealInvisible('a\u202Eb'), [{ text: 'a' }, { marker: '⟨RLO⟩', code: 'U+202E' }, { text: 'b' }]);
  });

  it('marks every bidi control: embeddings, overrides, isolates, marks', () => {
    const controls = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
    assert.equal(revealInvisibleText(controls), '⟨LRE⟩⟨RLE⟩⟨PDF⟩⟨LRO⟩⟨RLO⟩⟨LRI⟩⟨RLI⟩⟨FSI⟩⟨PDI⟩⟨LRM⟩⟨RLM⟩⟨ALM⟩');
  });

  it('marks zero-width characters that hide inside a name', () => {
    assert.equal(revealInvisibleText('READ\u200BME.md'), 'READ⟨ZWSP⟩ME.md');
    assert.equal(revealInvisibleText('\uFEFFnpm\u2060 test\u00AD'), '⟨BOM⟩npm⟨WJ⟩ test⟨SHY⟩');
    // Joiners between Latin letters or digits do no work there: they only hide.
    assert.equal(revealInvisibleText('read\u200Dme 1\u200C2'), 'read⟨ZWJ⟩me 1⟨ZWNJ⟩2');
    assert.equal(revealInvisibleText('\u200Dstart'), '⟨ZWJ⟩start');
  });

  // Sabotage (legitimateJoiner returning false), this printed:
  //   AssertionError: Expected values to be strictly equal: '👩⟨ZWJ⟩💻 fix' !== '👩‍💻 fix'
  it('leaves joiners doing their ordinary work: an emoji sequence, Persian between letters', () => {
    assert.equal(revealInvisibleText('👩\u200D💻 fix'), '👩\u200D💻 fix');
    assert.equal(revealInvisibleText('می\u200Cخواهم'), 'می\u200Cخواهم');
    assert.equal(hasInvisible('👩\u200D💻'), false);
  });

  it('leaves ordinary text, right-to-left letters included, as one piece', () => {
    assert.deepEqual(revealInvisible('Run npm test'), [{ text: 'Run npm test' }]);
    assert.deepEqual(revealInvisible('שלום.md'), [{ text: 'שלום.md' }]);
    assert.deepEqual(revealInvisible(''), []);
    assert.equal(hasInvisible('Run npm test'), false);
    assert.equal(hasInvisible('x\u2067y'), true);
  });
});
