import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { Transcript, type TranscriptOp } from '../../src/runtime/transcript';
import { nth } from '../support/helpers';

const u = (update: object): SessionNotification => ({ sessionId: 's', update }) as SessionNotification;
const chunk = (text: string, kind = 'agent_message_chunk') => u({ sessionUpdate: kind, content: { type: 'text', text } });

describe('transcript', () => {
  // Sabotage (restore() giving the permission its new id but keeping the old toolCallId): this
  // printed "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal" ('c1' for 'h1').
  it("a restored permission still points at its tool card, under the card's new id; one whose card is gone points nowhere", () => {
    const t = new Transcript();
    t.restore([
      { kind: 'tool', id: 'c1', title: 'Edit a.md', status: 'completed' },
      { kind: 'permission', id: 'p1', title: 'Edit a.md', options: [], resolved: 'Allow', toolCallId: 'c1' },
      { kind: 'permission', id: 'p2', title: 'Run x', options: [], resolved: 'cancelled', toolCallId: 'gone' },
    ]);
    const entries = t.entries as { id: string; toolCallId?: string }[];
    assert.equal(entries.length, 3);
    const [tool, kept, orphan] = [nth(entries, 0), nth(entries, 1), nth(entries, 2)];
    assert.notEqual(tool.id, 'c1');
    assert.equal(kept.toolCallId, tool.id);
    assert.equal(orphan.toolCallId, undefined);
    assert.ok(!('toolCallId' in orphan), 'left out, not undefined (entries are saved as plain data)');
  });

  // Sabotage (nextGeneration() keeping the late stream): this printed "AssertionError: Expected
  // values to be strictly deep-equal" (one entry 'Wrapping up.Cancelled.' where two were wanted);
  // in the host, the -32000 stop test after the end_turn one timed out waiting for its late text.
  it("a stopped turn's late text from the next agent process is its own entry, not the earlier process's", () => {
    const t = new Transcript();
    const late = { late: true as const, turnId: 1 };
    t.apply(chunk('Wrapping up.'), late, t.nextGeneration());
    t.apply(chunk('Cancelled.'), late, t.nextGeneration());
    assert.deepEqual(
      t.entries.map((e) => e.kind === 'agent' && e.markdown),
      ['Wrapping up.', 'Cancelled.'],
    );
  });

  it('streams chunks into one agent entry as appends, and starts a new one after a tool call', () => {
    const t = new Transcript();
    const ops: TranscriptOp[] = [];
    t.onOp((op) => ops.push(op));
    t.apply(chunk('Hel'));
    t.apply(chunk('lo'));
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read a', kind: 'read', status: 'pending' }));
    t.apply(chunk('After'));
    assert.deepEqual(
      t.entries.map((e) => e.kind),
      ['agent', 'tool', 'agent'],
    );
    assert.equal((t.entries[0] as { markdown: string }).markdown, 'Hello');
    assert.deepEqual(
      ops.map((o) => o.type),
      ['upsert', 'append', 'upsert', 'upsert'],
    );
  });

  it('a tool_call sent twice for one id stays one entry; updates merge; rawInput fills in later', () => {
    const t = new Transcript();
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'c', title: '', kind: 'execute', status: 'pending', rawInput: {} }));
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Run ls', kind: 'execute', status: 'in_progress' }));
    t.apply(u({ sessionUpdate: 'tool_call_update', toolCallId: 'c', rawInput: { command: 'ls' } }));
    t.apply(
      u({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'a\nb' } }] }),
    );
    assert.equal(t.entries.length, 1);
    assert.deepEqual(t.entries[0], { kind: 'tool', id: 'c', title: 'Run ls', toolKind: 'execute', status: 'completed', detail: 'a\nb' });
  });

  it('an update for a tool never announced (gemini) creates it', () => {
    const t = new Transcript();
    t.apply(u({ sessionUpdate: 'tool_call_update', toolCallId: 'g', title: 'Shell', status: 'completed' }));
    assert.equal(nth(t.entries, 0, 't.entries').kind, 'tool');
  });

  it('marks unfinished tool calls cancelled, and leaves finished ones alone', () => {
    const t = new Transcript();
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'A', status: 'completed' }));
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'b', title: 'B', status: 'in_progress' }));
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'C' }));
    t.markToolsCancelled();
    assert.deepEqual(
      t.entries.map((e) => e.kind === 'tool' && e.status),
      ['completed', 'cancelled', 'cancelled'],
    );
  });

  it('thoughts, plans and user chunks', () => {
    const t = new Transcript();
    t.apply(chunk('hmm', 'agent_thought_chunk'));
    t.apply(u({ sessionUpdate: 'plan', entries: [{ content: 'one', status: 'pending', priority: 'high' }] }));
    t.apply(chunk('replayed', 'user_message_chunk'));
    t.apply(u({ sessionUpdate: 'usage_update', used: 1, size: 2 }));
    assert.deepEqual(
      t.entries.map((e) => e.kind),
      ['thought', 'plan', 'user'],
    );
  });
});
