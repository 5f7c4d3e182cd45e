// The undo's answer says what it did to each file: a file the turn created is removed, not
// "restored" (the demo's reins-demo-notes.md is such a file).
import * as assert from 'node:assert/strict';
import type { FileChange } from '../../src/undo/checkpoint/checkpoint';
import { undoneText } from '../../src/undo/checkpoint/undoText';

const change = (relative: string, status: FileChange['status']): FileChange => ({ path: `/ws/${relative}`, relative, status });

describe("undo: the answer after Undo This Turn's Changes", () => {
  // Sabotage (the old answer, a count for every kind), this printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
  //   + "Undid the last turn's changes: 1 file restored."
  //   - "Undid the last turn's changes: removed reins-demo-notes.md."
  it('a file the turn created is said to be removed, by name', () => {
    assert.equal(undoneText([change('reins-demo-notes.md', 'added')], 0), "Undid the last turn's changes: removed reins-demo-notes.md.");
  });

  it('each kind by its verb, a few names each, the rest counted; kept files said', () => {
    assert.equal(undoneText([change('notes.txt', 'modified')], 0), "Undid the last turn's changes: restored notes.txt.");
    assert.equal(
      undoneText([change('a', 'added'), change('b', 'modified'), change('c', 'deleted'), change('d', 'modified')], 1),
      "Undid the last turn's changes: removed a; restored b and d; wrote back c; kept the file you edited.",
    );
    const many = ['1', '2', '3', '4', '5'].map((n) => change(n, 'modified'));
    assert.equal(undoneText(many, 2), "Undid the last turn's changes: restored 1, 2, 3 and 2 more; kept the 2 files you edited.");
    assert.equal(undoneText([], 2), 'Nothing undone: you kept the 2 files you edited.');
  });
});
