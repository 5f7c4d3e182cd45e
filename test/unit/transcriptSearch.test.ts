// Find in Conversation's search (src/runtime/transcriptSearch.ts): the whole conversation, newest
// first, case ignored, each match with its line and how many prompts came after it, read from the
// end a chunk at a time so that a search satisfied near the end reads no further.
import * as assert from 'node:assert/strict';
import { entryText, searchTranscript, snippetAround } from '../../src/runtime/transcriptSearch';
import type { TranscriptEntry } from '../../src/shared/messages';

/** A conversation of `turns` turns (a prompt, an answer, a tool card), and the chunks read from it. */
function conversation(turns: number): { source: { length: number; slice(from: number, to?: number): TranscriptEntry[] }; reads: [number, number][] } {
  const entries: TranscriptEntry[] = [];
  for (let i = 0; i < turns; i++)
    entries.push(
      { kind: 'user', id: `u${i}`, text: `Question ${i}: what does part ${i} do?` },
      { kind: 'agent', id: `a${i}`, markdown: `Answer ${i}: part ${i} reads **the Config** file.` },
      { kind: 'tool', id: `t${i}`, title: `Read src/part${i}.ts`, status: 'completed', detail: `export const part${i} = ${i};` },
    );
  const reads: [number, number][] = [];
  return {
    reads,
    source: {
      length: entries.length,
      slice: (from, to = entries.length) => (reads.push([from, to]), entries.slice(from, to)),
    },
  };
}

describe('Find in Conversation: the search', () => {
  it('finds every entry that holds the text, newest first, case ignored, with the prompts after each', () => {
    const { source } = conversation(5);
    const found = searchTranscript(source, 'the config', 10);
    assert.deepEqual(
      found.map((f) => [f.id, f.promptsAfter]),
      [
        ['a4', 0],
        ['a3', 1],
        ['a2', 2],
        ['a1', 3],
        ['a0', 4],
      ],
    );
    assert.equal(found[0]!.snippet, 'Answer 4: part 4 reads **the Config** file.');
    assert.equal(found[0]!.snippet.slice(found[0]!.at, found[0]!.at + 10), 'the Config');
    // A prompt's own match counts the prompts after it, not itself.
    assert.deepEqual(
      searchTranscript(source, 'question 4:', 10).map((f) => [f.id, f.promptsAfter]),
      [['u4', 0]],
    );
  });

  it('stops at `limit`, reading only the chunks it needs from the end', () => {
    const { source, reads } = conversation(1_000); // 3,000 entries
    const found = searchTranscript(source, 'answer', 5);
    assert.deepEqual(
      found.map((f) => f.id),
      ['a999', 'a998', 'a997', 'a996', 'a995'],
    );
    // Without the limit in the chunk loop, this printed: "15 chunks read" (the whole conversation).
    assert.deepEqual(reads, [[2_800, 3_000]], `${reads.length} chunks read`);
  });

  it('reaches the very first entry of a long conversation, and each entry once', () => {
    const { source } = conversation(1_000);
    const found = searchTranscript(source, 'question 0:', 10);
    assert.deepEqual(
      found.map((f) => [f.id, f.index, f.promptsAfter]),
      [['u0', 0, 999]],
    );
    const all = searchTranscript(source, 'part', 10_000);
    assert.equal(all.length, 3_000);
    assert.equal(new Set(all.map((f) => f.id)).size, 3_000);
  });

  it('an empty or blank query finds nothing; nothing found is an empty list', () => {
    const { source, reads } = conversation(3);
    assert.deepEqual(searchTranscript(source, '', 10), []);
    assert.deepEqual(searchTranscript(source, '   ', 10), []);
    assert.equal(reads.length, 0);
    assert.deepEqual(searchTranscript(source, 'nowhere', 10), []);
  });

  it('looks in what the panel shows of each kind of entry', () => {
    const table: [TranscriptEntry, string][] = [
      [{ kind: 'tool', id: 't', title: 'Run tests', status: 'completed', terminal: { text: 'PASS 12', truncated: false } }, 'PASS 12'],
      [{ kind: 'tool', id: 't', title: 'Edit', status: 'completed', diffs: [{ path: '/w/a.ts', newText: 'const zeta = 1;' }] }, 'zeta'],
      [{ kind: 'permission', id: 'p', title: 'Allow rm?', options: [], command: { command: 'rm -rf build', cwd: '/w' } }, 'rm -rf build'],
      [{ kind: 'plan', id: 'p', items: [{ content: 'Write the parser', status: 'pending' }] }, 'the parser'],
      [{ kind: 'files', id: 'f', files: [{ path: 'src/x.ts', bytes: 1, created: true, marks: [] }] }, 'src/x.ts'],
      [{ kind: 'notice', id: 'n', level: 'info', text: 'Resumed the session' }, 'Resumed'],
      [{ kind: 'thought', id: 'th', markdown: 'Maybe the cache' }, 'the cache'],
    ];
    for (const [entry, text] of table) assert.ok(entryText(entry).includes(text), `${entry.kind}: ${text}`);
  });

  it('a snippet: whitespace folded, context before the match, an ellipsis where text was cut', () => {
    const text = `${'x'.repeat(100)}\n\nthe   needle here\n${'y'.repeat(200)}`;
    const { snippet, at } = snippetAround(text, text.indexOf('needle'), 6);
    assert.equal(snippet.slice(at, at + 6), 'needle');
    assert.ok(snippet.startsWith('…') && snippet.endsWith('…'), snippet);
    assert.ok(!/\s\s/.test(snippet), snippet);
    assert.ok(snippet.length < 140, `${snippet.length} characters`);
  });
});
