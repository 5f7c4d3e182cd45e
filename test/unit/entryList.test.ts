// Settled entries of a long transcript on disk (src/runtime/entryList.ts, entryFiles.ts): which
// ones go (settled, more than 200 behind the end, at least 400 characters of JSON), that they come
// back whole, and that a transcript with an entry file says and emits exactly what one without
// it does.
//
// Sabotage notes (each guard removed by hand once, the unit tests run, what they printed):
// - Not-settled entries spilled too (spill() not asking settled()): "a running tool's card stays
//   in memory however far behind" printed "Expected values to be strictly equal: 99 !== 98".
// - Spilled at 200 behind, not more (the loop's `- 1` dropped): 3 failing, the first "more than
//   200 behind the end: on disk; 200 behind: not yet" printing "1 !== 0".
// - Short entries spilled (the 400-character check dropped): "shorter than 400 characters of
//   JSON: in memory" printed "49 !== 0".
// - A replaced entry not stored (put() returning at once for a known id): 33 failing, "a spilled
//   entry replaced …" and "a transcript with an entry file says and emits what one without it
//   does" among them.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { EntryFiles } from '../../src/runtime/entryFiles';
import { EntryList } from '../../src/runtime/entryList';
import { Transcript, type TranscriptOp } from '../../src/runtime/transcript';
import type { TranscriptEntry } from '../../src/shared/messages';

let parent = '';
const owned: EntryFiles[] = [];
beforeEach(() => (parent = mkdtempSync(path.join(tmpdir(), 'reins-entries-test-'))));
afterEach(() => {
  for (const f of owned.splice(0)) f.dispose();
  rmSync(parent, { recursive: true, force: true });
});

function files(): EntryFiles {
  const f = new EntryFiles(undefined, parent);
  owned.push(f);
  return f;
}

const agent = (i: number, chars: number): TranscriptEntry => Object.freeze({ kind: 'agent', id: `a${i}`, markdown: `${i} `.padEnd(chars, 'x') });

function filled(count: number, chars: number, settled: (e: TranscriptEntry) => boolean = () => true): EntryList {
  const list = new EntryList(settled, files());
  for (let i = 0; i < count; i++) list.put(agent(i, chars));
  return list;
}

describe('transcript entries on disk', () => {
  it('more than 200 behind the end: on disk; 200 behind: not yet', () => {
    assert.equal(filled(201, 1_000).spilled, 0);
    assert.equal(filled(202, 1_000).spilled, 1);
    assert.equal(filled(1_000, 1_000).spilled, 799);
  });

  it('shorter than 400 characters of JSON: in memory', () => {
    assert.equal(filled(250, 300).spilled, 0);
  });

  it("a running tool's card stays in memory however far behind", () => {
    assert.equal(filled(300, 1_000, (e) => e.id !== 'a0').spilled, 98);
    const list = filled(300, 1_000, (e) => e.id !== 'a0');
    assert.equal(list.slice(0, 1)[0], list.get('a0'), 'the same object: never written');
  });

  it('read back whole, by id and by place, frozen, as it was stored', () => {
    const list = filled(400, 1_000);
    for (const i of [0, 150, 199, 250, 399]) {
      assert.deepEqual(list.get(`a${i}`), agent(i, 1_000));
      assert.deepEqual(list.slice(i, i + 1), [agent(i, 1_000)]);
      assert.ok(Object.isFrozen(list.get(`a${i}`)));
      assert.equal(list.indexOf(`a${i}`), i);
    }
    assert.deepEqual(
      list.slice(0),
      Array.from({ length: 400 }, (_, i) => agent(i, 1_000)),
    );
  });

  it('a spilled entry replaced: the new one is read, on disk again once written', () => {
    const list = filled(300, 1_000);
    const next = Object.freeze({ kind: 'agent', id: 'a5', markdown: 'new '.padEnd(900, 'y') }) as TranscriptEntry;
    list.put(next);
    assert.deepEqual(list.get('a5'), next);
    assert.equal(list.spilled, 99);
  });

  it('a late entry inserted among spilled ones: in its place, the others after it', () => {
    const list = filled(300, 1_000);
    list.put(agent(1_000, 1_000), 10);
    assert.equal(list.indexOf('a1000'), 10);
    assert.equal(list.indexOf('a10'), 11);
    assert.deepEqual(list.get('a10'), agent(10, 1_000));
    assert.equal(list.length, 301);
  });

  it('cleared: nothing is held, and the file starts again', () => {
    const f = files();
    const list = new EntryList(() => true, f);
    for (let i = 0; i < 300; i++) list.put(agent(i, 1_000));
    assert.ok(f.size > 0);
    list.clear();
    assert.equal(f.size, 0);
    assert.equal(list.length, 0);
    assert.equal(list.get('a0'), undefined);
  });

  it('disposed: its directory is gone; what was on disk reads as a notice, not a throw', () => {
    const f = files();
    const list = new EntryList(() => true, f);
    for (let i = 0; i < 300; i++) list.put(agent(i, 1_000));
    assert.equal(readdirSync(parent).length, 1);
    f.dispose();
    assert.deepEqual(readdirSync(parent), []);
    assert.equal(list.get('a0')?.kind, 'notice');
    assert.ok(!existsSync(path.join(parent, 'entries.jsonl')));
  });

  it('a transcript with an entry file says and emits what one without it does', () => {
    const plain = new Transcript(() => 0);
    const onDisk = files();
    const spilling = new Transcript(() => 0, undefined, onDisk);
    const ops: [TranscriptOp[], TranscriptOp[]] = [[], []];
    plain.onOp((op) => ops[0].push(op));
    spilling.onOp((op) => ops[1].push(op));
    const both = (n: SessionNotification) => {
      plain.apply(n);
      spilling.apply(n);
    };
    const u = (update: object) => ({ sessionId: 's', update }) as SessionNotification;
    for (let turn = 0; turn < 80; turn++) {
      for (const t of [plain, spilling]) t.user(`question ${turn} `.padEnd(500, 'q'));
      for (let k = 0; k < 5; k++) both(u({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `thinking ${k} `.padEnd(100, 't') } }));
      for (let k = 0; k < 5; k++) both(u({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer ${turn}.${k} `.padEnd(200, 'a') } }));
      both(u({ sessionUpdate: 'tool_call', toolCallId: `t${turn}`, title: `Read ${turn}`, kind: 'read', status: 'pending' }));
      const text = `file ${turn}\n`.padEnd(2_000, 'f');
      both(
        u({ sessionUpdate: 'tool_call_update', toolCallId: `t${turn}`, status: 'completed', content: [{ type: 'content', content: { type: 'text', text } }] }),
      );
      both(u({ sessionUpdate: 'plan', entries: [{ content: `step ${turn}`, priority: 'medium', status: 'completed' }] }));
      both(u({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `done ${turn}`.padEnd(500, 'd') } }));
    }
    // A late update to a card long on disk, and a tool left running, cancelled at the end.
    both(u({ sessionUpdate: 'tool_call_update', toolCallId: 't3', status: 'failed' }));
    both(u({ sessionUpdate: 'tool_call', toolCallId: 'run', title: 'npm test', kind: 'execute', status: 'in_progress' }));
    for (const t of [plain, spilling]) t.markToolsCancelled();
    assert.ok(plain.length > 400, `${plain.length} entries`);
    assert.ok(onDisk.size > 100_000, `${onDisk.size} bytes on disk`);
    assert.deepEqual(spilling.entries, plain.entries);
    assert.deepEqual(spilling.slice(10, 90), plain.slice(10, 90));
    for (const id of ['u1', 'a3', 't7', 'p4']) assert.deepEqual(spilling.get(id), plain.get(id), id);
    assert.equal(spilling.indexOf('a3'), plain.indexOf('a3'));
    assert.deepEqual(ops[1], ops[0]);
  });
});
