// The pure parts of sessions that survive: capabilities, the session/list paging loop, the
// restart cap, Reins' own per-folder list, the saved transcript, replayed user chunks.
import * as assert from 'node:assert/strict';
import type { ListSessionsResponse } from '@agentclientprotocol/sdk';
import { RestartBudget } from '../../src/persistence/restartBudget';
import { reopenMethod, saysUnknownSession, sessionCaps } from '../../src/runtime/sessionCaps';
import { describeWhen, listAllSessions, newestFirst } from '../../src/runtime/sessionList';
import { MemoryKeyValue, SessionStore } from '../../src/persistence/sessionStore';
import { restorable, saveNewest, saveTranscript } from '../../src/persistence/savedTranscript';
import { Transcript } from '../../src/runtime/transcript';
import type { TranscriptEntry } from '../../src/shared/messages';
import { present } from '../support/helpers';

describe('sessions: capabilities', () => {
  it('reads loadSession and sessionCapabilities; omitted, null or false mean no', () => {
    const caps = sessionCaps({ protocolVersion: 1, agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, close: null, resume: {} } } });
    assert.deepEqual(caps, { load: true, resume: true, list: true, close: false, delete: false });
    assert.deepEqual(sessionCaps(undefined), { load: false, resume: false, list: false, close: false, delete: false });
    // `true` is not the spec's form ({}), and is not taken for it.
    assert.equal(sessionCaps({ protocolVersion: 1, agentCapabilities: { sessionCapabilities: { close: true as unknown as object } } }).close, false);
  });

  it('resume where the transcript is still shown, load where only a replay brings it back', () => {
    const both = { load: true, resume: true, list: false, close: false, delete: false };
    assert.equal(reopenMethod(both, true), 'session/resume');
    assert.equal(reopenMethod(both, false), 'session/load');
    assert.equal(reopenMethod({ ...both, load: false }, false), 'session/resume');
    assert.equal(reopenMethod({ ...both, resume: false }, true), 'session/load');
    assert.equal(reopenMethod({ ...both, load: false, resume: false }, true), undefined);
  });

  it('an unknown session is an answer that says so, never a timeout or an exit', () => {
    assert.ok(saysUnknownSession({ code: -32002, message: 'Resource not found' }));
    assert.ok(saysUnknownSession({ code: -32602, message: 'Invalid params' }));
    assert.ok(saysUnknownSession({ code: -32603, message: 'Session not found' }));
    assert.ok(!saysUnknownSession({ code: -32603, message: 'Internal error' }));
    assert.ok(!saysUnknownSession({ code: -32000, message: 'Authentication required' }));
    assert.ok(!saysUnknownSession(new Error('session/load got no answer within 30 s')));
  });
});

describe('sessions: session/list paging', () => {
  const page = (ids: string[], nextCursor?: string | null, cwd = '/w'): ListSessionsResponse => ({
    sessions: ids.map((sessionId) => ({ sessionId, cwd })),
    nextCursor,
  });

  it('follows nextCursor to the end, passing each cursor on', async () => {
    const asked: (string | undefined)[] = [];
    const pages: Record<string, ListSessionsResponse> = { first: page(['a', 'b'], 'c1'), c1: page(['c', 'd'], 'c2'), c2: page(['e'], null) };
    const out = await listAllSessions(async (cursor) => (asked.push(cursor), present(pages[cursor ?? 'first'], `the page at ${cursor}`)), '/w');
    assert.deepEqual(asked, [undefined, 'c1', 'c2']);
    assert.deepEqual(
      out.sessions.map((s) => s.sessionId),
      ['a', 'b', 'c', 'd', 'e'],
    );
    assert.equal(out.incomplete, undefined);
  });

  it('a cursor that comes round again ends the loop (and says so)', async () => {
    let calls = 0;
    // Sabotage (the seen-cursor check removed): the loop ran to the 50-page cap: "Expected values to be strictly equal: -50 +2".
    const out = await listAllSessions(async (cursor) => (calls++, cursor === undefined ? page(['a'], 'x') : page(['b'], 'x')), '/w');
    assert.equal(calls, 2);
    assert.match(out.incomplete ?? '', /gave cursor "x" twice/);
    assert.deepEqual(
      out.sessions.map((s) => s.sessionId),
      ['a', 'b'],
    );
  });

  it('cursors that never end stop at the page cap; an empty cursor is the end', async () => {
    let n = 0;
    const endless = await listAllSessions(async () => page([`s${n}`], `c${++n}`), '/w', { maxPages: 5, maxSessions: 100 });
    assert.equal(endless.pages, 5);
    assert.match(endless.incomplete ?? '', /after 5 pages/);
    const empty = await listAllSessions(async () => page(['a'], ''), '/w');
    assert.equal(empty.pages, 1);
  });

  it('leaves out duplicates, entries without an id, and sessions of another folder', async () => {
    const out = await listAllSessions(
      async (cursor) =>
        cursor === undefined
          ? {
              sessions: [
                { sessionId: 'a', cwd: '/w/', title: '  Fix it  ' },
                { sessionId: '', cwd: '/w' },
                { cwd: '/w' } as never,
                { sessionId: 'x', cwd: '/other' },
              ],
              nextCursor: 'n',
            }
          : page(['a', 'b']),
      '/w',
    );
    assert.deepEqual(out.sessions, [{ sessionId: 'a', title: 'Fix it' }, { sessionId: 'b' }]);
  });

  it('says when, for the picker', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    assert.equal(describeWhen('2026-03-10T11:59:30Z', now), 'just now');
    assert.equal(describeWhen('2026-03-10T11:55:00Z', now), '5 minutes ago');
    assert.equal(describeWhen('2026-03-10T09:00:00Z', now), '3 hours ago');
    assert.equal(describeWhen('2026-03-09T09:00:00Z', now), 'yesterday');
    assert.equal(describeWhen('2026-01-02T09:00:00Z', now), '2026-01-02');
    assert.equal(describeWhen('not a date', now), undefined);
  });

  it('newest first by updatedAt, undated last in their order', () => {
    const sorted = newestFirst([
      { sessionId: 'u1' },
      { sessionId: 'old', updatedAt: '2025-01-01T00:00:00Z' },
      { sessionId: 'new', updatedAt: '2026-01-01T00:00:00Z' },
      { sessionId: 'u2' },
    ]);
    assert.deepEqual(
      sorted.map((s) => s.sessionId),
      ['new', 'old', 'u1', 'u2'],
    );
  });
});

describe('sessions: restart cap', () => {
  it('4 restarts within 3 minutes, then ask; the window slides', () => {
    let now = 0;
    const budget = new RestartBudget(4, 180_000, () => now);
    for (let i = 0; i < 4; i++) {
      assert.ok(budget.take(), `restart ${i + 1}`);
      now += 10_000;
    }
    // Sabotage (take() always true): "the fifth crash within the window is not restarted".
    assert.equal(budget.take(), false, 'the fifth crash within the window is not restarted');
    now = 180_001; // the first restart (at 0) has left the window
    assert.ok(budget.take());
    assert.equal(budget.take(), false);
    budget.reset();
    assert.equal(budget.used, 0);
  });
});

describe("sessions: Reins' own per-folder list", () => {
  it('remembers per agent, newest first, bounded; titles kept; forget clears the current one too', async () => {
    let t = Date.UTC(2026, 0, 1);
    const kv = new MemoryKeyValue();
    const store = new SessionStore(kv, 'file:///w', () => new Date((t += 1000)), 3);
    await store.remember('a', 's1', 'First');
    await store.remember('a', 's2');
    await store.remember('b', 'other');
    await store.remember('a', 's3');
    await store.remember('a', 's1'); // used again: first, title kept
    await store.remember('a', 's4');
    assert.deepEqual(
      store.list('a').map((s) => [s.sessionId, s.title]),
      [
        ['s4', undefined],
        ['s1', 'First'],
        ['s3', undefined],
      ],
    );
    assert.deepEqual(
      store.list('b').map((s) => s.sessionId),
      ['other'],
    );
    await store.retitle('a', 's3', 'Third');
    await store.retitle('a', 'nope', 'ignored');
    assert.equal(store.list('a').find((s) => s.sessionId === 's3')?.title, 'Third');
    await store.setCurrent({ agent: 'a', sessionId: 's1' });
    await store.forget('a', 's1');
    assert.equal(store.current, undefined, 'a session the agent does not know is not reopened');
    assert.deepEqual(
      store.list('a').map((s) => s.sessionId),
      ['s4', 's3'],
    );
    // Another folder's store sees none of it.
    assert.deepEqual(new SessionStore(kv, 'file:///other').list('a'), []);
  });

  it('survives garbage in storage', () => {
    const kv = new MemoryKeyValue();
    void kv.update('reins.sessions:f', 'garbage');
    const store = new SessionStore(kv, 'f');
    assert.deepEqual(store.list('a'), []);
    assert.equal(store.current, undefined);
  });
});

describe('sessions: the saved transcript', () => {
  const entries: TranscriptEntry[] = [
    { kind: 'user', id: 'u1', text: 'old question' },
    { kind: 'agent', id: 'a2', markdown: 'x'.repeat(50) },
    { kind: 'tool', id: 'tool-1', title: 'Run', status: 'in_progress' },
    { kind: 'permission', id: 'p1', title: 'May I?', options: [] },
    {
      kind: 'notice',
      id: 'n3',
      level: 'warning',
      text: 'not confirmed',
      actions: [
        { action: 'checkAgain', label: 'Check Again' },
        { action: 'openLog', label: 'Open Log' },
      ],
    },
  ];

  it('keeps the newest entries within the bounds, cutting long texts from the start', () => {
    const saved = saveTranscript(entries, { maxEntries: 3, maxChars: 1_000_000, maxEntryChars: 10 });
    assert.deepEqual(
      saved.entries.map((e) => e.id),
      ['tool-1', 'p1', 'n3'],
    );
    assert.equal(saved.dropped, 2);
    const cut = saveTranscript(entries, { maxEntries: 10, maxChars: 1_000_000, maxEntryChars: 10 }).entries[1];
    assert.deepEqual(cut, { kind: 'agent', id: 'a2', markdown: `…${'x'.repeat(10)}` });
    const small = saveTranscript(entries, { maxEntries: 10, maxChars: 400, maxEntryChars: 1000 });
    assert.ok(JSON.stringify(small.entries).length <= 400 && small.entries.length < entries.length && small.entries.at(-1)?.id === 'n3');
  });

  // Sabotage (saveNewest not counting the entries it did not read as dropped): "+ dropped: 0, - dropped: 2".
  it('saveNewest reads only the newest entries and saves what saveTranscript of them all does', () => {
    for (const limits of [
      { maxEntries: 3, maxChars: 1_000_000, maxEntryChars: 10 },
      { maxEntries: 10, maxChars: 400, maxEntryChars: 1000 },
      { maxEntries: 10, maxChars: 1_000_000, maxEntryChars: 1000 },
    ]) {
      const read: number[] = [];
      const source = { length: entries.length, slice: (from: number) => (read.push(from), entries.slice(from)) };
      assert.deepEqual(saveNewest(source, limits), saveTranscript(entries, limits));
      assert.deepEqual(read, [Math.max(0, entries.length - limits.maxEntries)]);
    }
  });

  it("a terminal's output cut for saving says it left out that much more; one whose size was never known stays so", () => {
    const card = (omittedBytes?: number): TranscriptEntry => ({
      kind: 'tool',
      id: 't',
      title: 'Run',
      status: 'completed',
      terminal: { text: `€${'y'.repeat(20)}`, truncated: true, ...(omittedBytes !== undefined && { omittedBytes }) },
    });
    const saved = (entry: TranscriptEntry) =>
      (saveTranscript([entry], { maxEntries: 10, maxChars: 1_000_000, maxEntryChars: 10 }).entries[0] as typeof entry & { kind: 'tool' }).terminal;
    // The euro sign (3 bytes) and 10 letters went: 13 bytes more than the 1000 left out before.
    // Sabotage (the cut keeping omittedBytes as it was), this printed: 1000 !== 1013
    assert.equal(saved(card(1000))?.omittedBytes, 1013);
    assert.equal(saved(card())?.omittedBytes, undefined);
  });

  it('a new window shows nothing pending: tools cancelled, permission expired, no buttons for the old process', () => {
    const back = restorable(saveTranscript(entries));
    assert.equal((back[2] as { status: string }).status, 'cancelled');
    assert.equal((back[3] as { resolved?: string }).resolved, 'cancelled');
    assert.deepEqual((back[4] as { actions?: unknown }).actions, [{ action: 'openLog', label: 'Open Log' }]);
    assert.deepEqual(restorable({ version: 2, entries }), []);
    assert.deepEqual(restorable(undefined), []);
  });
});

describe('sessions: the transcript and a replay', () => {
  const text = (t: string) => ({ type: 'text' as const, text: t });
  it('chunks of one replayed user message make one entry; a typed prompt is never merged into', () => {
    const tr = new Transcript();
    const update = (u: object) => tr.apply({ sessionId: 's', update: u as never });
    update({ sessionUpdate: 'user_message_chunk', content: text('Hello ') });
    update({ sessionUpdate: 'user_message_chunk', content: text('agent') });
    update({ sessionUpdate: 'agent_message_chunk', content: text('Hi') });
    update({ sessionUpdate: 'agent_message_chunk', content: text('!') });
    update({ sessionUpdate: 'user_message_chunk', content: text('one'), messageId: 'm1' });
    update({ sessionUpdate: 'user_message_chunk', content: text('two'), messageId: 'm2' });
    tr.user('typed');
    update({ sessionUpdate: 'user_message_chunk', content: text('echo') });
    // Sabotage (each chunk its own entry, as before): "+ 'Hello ', + 'agent', - 'Hello agent',".
    assert.deepEqual(
      tr.entries.map((e) => (e.kind === 'user' ? e.text : e.kind === 'agent' ? e.markdown : e.kind)),
      ['Hello agent', 'Hi!', 'one', 'two', 'typed', 'echo'],
    );
  });

  it('restore gives entries ids of its own: a new process reusing a tool id cannot overwrite an old card', () => {
    const tr = new Transcript();
    tr.restore([{ kind: 'tool', id: 'tool-1', title: 'Old run', status: 'completed' }]);
    tr.apply({ sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 'tool-1', title: 'New run', status: 'pending' } });
    assert.deepEqual(
      tr.entries.map((e) => (e.kind === 'tool' ? e.title : e.kind)),
      ['Old run', 'New run'],
    );
  });
});
