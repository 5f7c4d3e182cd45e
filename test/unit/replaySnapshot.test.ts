// A session/load's replay reaches the webview as one snapshot at its end, not update by update
// (src/panel/transcriptSender.ts), and that snapshot keeps the reader's place (keepPlace). Outside
// a replay, each op goes out as before.
import * as assert from 'node:assert/strict';
import type { SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk';
import type { Transcript } from '../../src/runtime/transcript';
import { senderHarness } from '../support/senderHarness';

const u = (update: SessionUpdate): SessionNotification => ({ sessionId: 's', update });
/** A transcript and what its sender posts, wired as the panel host wires them. */
const setUp = senderHarness;

/** One turn of a recorded session, as a replay sends it: the prompt, a tool call, the answer in chunks. */
function replayTurn(t: Transcript, i: number): void {
  t.apply(u({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `Prompt ${i}` } }));
  t.apply(u({ sessionUpdate: 'tool_call', toolCallId: `c${i}`, title: `Read ${i}`, kind: 'read', status: 'pending' }));
  t.apply(u({ sessionUpdate: 'tool_call_update', toolCallId: `c${i}`, status: 'completed' }));
  for (let k = 0; k < 7; k++) t.apply(u({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer ${i} part ${k}. ` } }));
}

describe('a load replay reaches the webview in one snapshot', () => {
  it('10,000 replayed updates: one snapshot of the newest page, marked to keep the reader’s place', () => {
    const { t, posted, sender } = setUp();
    for (let i = 0; i < 5; i++) replayTurn(t, i); // the conversation restored before the agent started
    sender.newestPage(); // the webview's first snapshot went out
    posted.length = 0;

    // As the session keeper does at onOpening for session/load: held, then cleared.
    t.setReplaying(true);
    t.clear();
    for (let i = 0; i < 1_000; i++) replayTurn(t, i); // 10 updates a turn
    t.setReplaying(false);

    // Without the hold-back (onOp posting while replaying), this printed:
    // AssertionError: 10002 messages posted, want 1 (snapshot, upsert, upsert, upsert, upsert, …)
    assert.equal(
      posted.length,
      1,
      `${posted.length} messages posted, want 1 (${posted
        .slice(0, 5)
        .map((m) => m.type)
        .join(', ')}, …)`,
    );
    const snap = posted[0]!;
    assert.equal(snap.type, 'snapshot');
    if (snap.type !== 'snapshot') return;
    assert.equal(snap.keepPlace, true);
    assert.equal(snap.replaying, undefined);
    // The newest page, as a `ready` gets it: the rest comes page by page when asked for.
    assert.ok(snap.entries.length > 0 && snap.entries.length <= 60, `${snap.entries.length} entries`);
    assert.equal(snap.earlier! + snap.entries.length, t.length);
    assert.deepEqual(snap.entries[snap.entries.length - 1], t.slice(t.length - 1)[0]);
  });

  it('a webview ready while the replay runs is shown the page of before it, and the end still comes in one snapshot', () => {
    const { t, posted, sender } = setUp();
    for (let i = 0; i < 3; i++) replayTurn(t, i); // the conversation restored after a reload
    const before = t.slice(0);
    t.setReplaying(true);
    t.clear();
    replayTurn(t, 0);
    // The window reloaded: the new document's `ready` comes while the agent replays the session.
    // Without the held page (newestPage ignoring it) this failed: "Expected values to be strictly
    // deep-equal", the replay's 3 entries so far where the 9 of before were wanted; the webview
    // then put the reader at their end until the replay's snapshot.
    const page = sender.newestPage();
    assert.deepEqual(page.entries, before);
    assert.equal(page.replaying, undefined); // a page to settle the reader's place in, as any
    assert.equal(page.earlier, 0); // nothing to ask for before it: the replay's end replaces it
    posted.length = 0;
    replayTurn(t, 1);
    t.setReplaying(false);
    assert.deepEqual(
      posted.map((m) => m.type),
      ['snapshot'],
    );
    assert.equal(sender.newestPage().replaying, undefined);
    assert.equal(sender.newestPage().entries.length, t.length);
  });

  it('a replay into an empty transcript: a webview ready meanwhile is told so (no place to settle at yet)', () => {
    const { t, sender } = setUp();
    t.setReplaying(true);
    t.clear();
    replayTurn(t, 0);
    assert.equal(sender.newestPage().replaying, true);
  });

  it('outside a replay each op goes out as it comes, and a clear is an empty snapshot that does not keep the place', () => {
    const { t, posted, sender } = setUp();
    sender.newestPage();
    replayTurn(t, 0);
    assert.equal(posted.length, 10);
    assert.equal(posted.filter((m) => m.type === 'snapshot').length, 0);
    posted.length = 0;
    t.clear();
    assert.equal(posted.length, 1);
    const snap = posted[0]!;
    assert.ok(snap.type === 'snapshot' && snap.entries.length === 0 && snap.keepPlace === undefined);
  });
});
