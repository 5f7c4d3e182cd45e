// The turn, readable: what the transcript makes of edits, locations, permissions, plans and
// thoughts, and which files the composer's `@` offers. Pure: no editor.
import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import type { PendingPermission } from '../../src/runtime/permissions';
import { MAX_DIFF_TEXT } from '../../src/runtime/toolContent';
import { Transcript } from '../../src/runtime/transcript';
import type { TranscriptEntry } from '../../src/shared/messages';
import { fileScore, rankFiles } from '../../src/util/fileRank';
import { nth } from '../support/helpers';

const u = (update: object): SessionNotification => ({ sessionId: 's', update }) as SessionNotification;
const chunk = (text: string, kind = 'agent_message_chunk') => u({ sessionUpdate: kind, content: { type: 'text', text } });
const tool = (t: Transcript, id: string) => t.get(id) as Extract<TranscriptEntry, { kind: 'tool' }>;

describe('tool cards: edits and locations', () => {
  it('a diff is kept whole for the card, with its file; locations become links', () => {
    const t = new Transcript();
    t.apply(
      u({
        sessionUpdate: 'tool_call',
        toolCallId: 'e',
        title: 'Edit a.ts',
        kind: 'edit',
        status: 'pending',
        content: [{ type: 'diff', path: '/w/a.ts', oldText: 'one\n', newText: 'two\n' }],
        locations: [
          { path: '/w/a.ts', line: 3 },
          { path: '/w/b.ts', line: null },
        ],
      }),
    );
    // Sabotage (toolCardContent's diff branch removed), this printed:
    //   AssertionError: Expected values to be strictly deep-equal: + undefined - [ { newText: 'two\n', oldText: 'one\n', path: '/w/a.ts' } ]
    assert.deepEqual(tool(t, 'e').diffs, [{ path: '/w/a.ts', oldText: 'one\n', newText: 'two\n' }]);
    assert.deepEqual(tool(t, 'e').locations, [{ path: '/w/a.ts', line: 3 }, { path: '/w/b.ts' }]);
    assert.equal(tool(t, 'e').detail, undefined, 'no "edit a.ts" placeholder text beside the diff');
    // A status update without content keeps the diff and the locations.
    t.apply(u({ sessionUpdate: 'tool_call_update', toolCallId: 'e', status: 'completed' }));
    assert.equal(tool(t, 'e').diffs?.length, 1);
    assert.equal(tool(t, 'e').locations?.length, 2);
  });

  it('a new file has no old text; a huge edit is not sent to the panel', () => {
    const t = new Transcript();
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'n', title: 'New', content: [{ type: 'diff', path: '/w/n.md', oldText: null, newText: 'x' }] }));
    assert.deepEqual(tool(t, 'n').diffs, [{ path: '/w/n.md', newText: 'x' }]);
    t.apply(
      u({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'n',
        content: [{ type: 'diff', path: '/w/n.md', oldText: 'a', newText: 'b'.repeat(MAX_DIFF_TEXT + 1) }],
      }),
    );
    assert.deepEqual(tool(t, 'n').diffs, [{ path: '/w/n.md', newText: '', tooLarge: true }]);
  });
});

describe('tool cards: permissions', () => {
  const request = (toolCall: object): PendingPermission =>
    ({
      id: 'perm-1',
      turnId: 1,
      request: { sessionId: 's', toolCall, options: [{ optionId: 'y', name: 'Allow', kind: 'allow_once' }] },
    }) as PendingPermission;

  it('names the tool call it asks about; an unannounced call gets its card from the request', () => {
    const t = new Transcript();
    t.permission(request({ toolCallId: 'x', title: 'Run rm -rf build', kind: 'execute', rawInput: { command: 'rm -rf build' } }));
    // Sabotage (permission() without the toolUpdate line), this printed:
    //   AssertionError: Expected values to be strictly deep-equal: + [ 'permission' ] - [ 'tool', 'permission' ]
    assert.deepEqual(
      t.entries.map((e) => e.kind),
      ['tool', 'permission'],
    );
    assert.equal(tool(t, 'x').detail, '{\n "command": "rm -rf build"\n}', 'what is being approved: the command');
    const p = t.entries[1] as Extract<TranscriptEntry, { kind: 'permission' }>;
    assert.equal(p.toolCallId, 'x');
    assert.equal(p.title, 'Run rm -rf build');
  });

  it('asks about an announced call without cutting the streamed reply in two', () => {
    const t = new Transcript();
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'x', title: 'Edit', status: 'pending' }));
    t.apply(chunk('May I? '));
    t.permission(request({ toolCallId: 'x' }));
    t.apply(chunk('Thanks.'));
    assert.deepEqual(
      t.entries.map((e) => e.kind),
      ['tool', 'agent', 'permission', 'agent'],
    );
    assert.equal((t.entries[2] as { title: string }).title, 'Edit', 'the card’s title when the request has none');
  });
});

describe('plans and thoughts', () => {
  it('one plan per turn, updated in place', () => {
    const t = new Transcript();
    const plan = (status: string) => u({ sessionUpdate: 'plan', entries: [{ content: 'Do it', status, priority: 'high' }] });
    t.user('first');
    t.apply(plan('pending'));
    t.apply(plan('completed'));
    t.user('second');
    t.apply(plan('in_progress'));
    const plans = t.entries.filter((e) => e.kind === 'plan');
    // Sabotage (the fixed id 'plan' back), this printed: AssertionError: 1 !== 2
    assert.equal(plans.length, 2);
    assert.deepEqual(
      plans.map((p) => p.kind === 'plan' && nth(p.items, 0, 'p.items').status),
      ['completed', 'in_progress'],
    );
  });

  it('a thought gets its duration once the agent moves on', () => {
    let now = 1000;
    const t = new Transcript(() => now);
    t.apply(chunk('hmm', 'agent_thought_chunk'));
    now = 3400;
    t.apply(chunk(' still', 'agent_thought_chunk'));
    now = 9000; // the reply comes later; the thought lasted from its first to its last chunk
    assert.equal((t.entries[0] as { seconds?: number }).seconds, undefined, 'not over yet');
    t.apply(chunk('Answer'));
    // Sabotage (endThought's call in upsert removed), this printed: AssertionError: undefined !== 2.4
    assert.equal((t.entries[0] as { seconds?: number }).seconds, 2.4);
    assert.equal((t.entries[0] as { markdown: string }).markdown, 'hmm still');
  });
});

describe('@ file search ranking', () => {
  const paths = ['src/extension.ts', 'src/panel/panelHost.ts', 'README.md', 'test/unit/transcript.test.ts', 'src/session/transcript.ts'];
  it('a file name that starts with the query first, then contains it, then the path, then scattered letters', () => {
    assert.deepEqual(rankFiles('trans', paths), ['src/session/transcript.ts', 'test/unit/transcript.test.ts']);
    assert.deepEqual(rankFiles('panel', paths), ['src/panel/panelHost.ts']);
    assert.deepEqual(rankFiles('spt', paths), ['src/panel/panelHost.ts', 'src/session/transcript.ts', 'test/unit/transcript.test.ts']);
    assert.equal(fileScore('xyz', 'README.md'), undefined);
  });
  it('an empty query lists the shortest paths first, at most the limit', () => {
    assert.deepEqual(rankFiles('', paths, 2), ['README.md', 'src/extension.ts']);
  });
});
