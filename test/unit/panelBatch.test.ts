// Messages posted to the webview are snapshots (issue 7 §4): the transcript never changes an
// entry it has emitted, the panel host's outbox queues copies, and streamed text arrives
// exactly once however late the outbox is flushed.
import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { BATCH_MS, Outbox } from '../../src/panel/outbox';
import { Transcript, type TranscriptOp } from '../../src/runtime/transcript';
import type { HostToWebview, TranscriptEntry } from '../../src/shared/messages';
import { nth } from '../support/helpers';

const chunk = (text: string): SessionNotification => ({ sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });

/** The demo agent's line, in the 8-character chunks it streams. */
const LINE = 'You chose **Allow (pretend edit)**.';
const CHUNKS = LINE.match(/.{1,8}/gs)!;

/** A schedule that runs what it was given only when the test says (a machine too loaded to run timers). */
function manualSchedule(): { schedule: (flush: () => void) => () => void; due: () => boolean; runDue: () => void } {
  let pending: (() => void) | undefined;
  return {
    schedule: (flush) => {
      pending = flush;
      return () => (pending = undefined);
    },
    due: () => pending !== undefined,
    runDue: () => {
      const run = pending;
      pending = undefined;
      run?.();
    },
  };
}

/** What the webview applies, message by message: a batch's parts in order (media/webview/main.ts). */
function receive(into: HostToWebview[]): (message: HostToWebview) => void {
  return (m) => (m.type === 'batch' ? into.push(...m.messages) : into.push(m));
}

/** An outbox whose flushes, the batch's and the prompt one alike, run only when the test says. */
function manualOutbox(delivered: HostToWebview[]): { outbox: Outbox; due: () => boolean; runDue: () => void } {
  const later = manualSchedule();
  const soon = manualSchedule();
  const outbox = new Outbox(receive(delivered), later.schedule, soon.schedule);
  return {
    outbox,
    due: () => later.due() || soon.due(),
    runDue: () => {
      later.runDue();
      soon.runDue();
    },
  };
}

/** What the webview shows for streamed entries: upserts set the text, appends add to it. */
function webviewText(messages: HostToWebview[]): Map<string, string> {
  const shown = new Map<string, string>();
  for (const m of messages) {
    if (m.type === 'upsert' && (m.entry.kind === 'agent' || m.entry.kind === 'thought')) shown.set(m.entry.id, m.entry.markdown);
    else if (m.type === 'append') shown.set(m.id, (shown.get(m.id) ?? '') + m.text);
  }
  return shown;
}

/** The panel host's wiring: every transcript op but reset goes to the outbox. */
function connect(transcript: Transcript, outbox: Outbox): void {
  transcript.onOp((op) => {
    if (op.type !== 'reset') outbox.post(op);
  });
}

describe('panel batching: what reaches the webview is a snapshot', () => {
  // Sabotage (both fixes removed: `entry.markdown += text` back in Transcript.stream and the
  // outbox queueing the object it was given), this test and the next printed the defect:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
  //   [
  //   +   'You chose **Allow (pretend edit)**.e **Allow (pretend edit)**.'
  //   -   'You chose **Allow (pretend edit)**.'
  //   ]
  // With only one of the two fixes removed it passes (each guard alone prevents the defect);
  // the two tests below fail for each one.
  it('a flush that comes after every chunk shows the streamed text exactly once', () => {
    const delivered: HostToWebview[] = [];
    const { outbox, runDue } = manualOutbox(delivered);
    const transcript = new Transcript();
    connect(transcript, outbox);
    for (const text of CHUNKS) transcript.apply(chunk(text));
    runDue(); // the 16 ms timer fires only now
    assert.deepEqual([...webviewText(delivered).values()], [LINE]);
    assert.equal(transcript.entries.length, 1);
  });

  it('flushes at every point of the stream give the same text', () => {
    for (let every = 1; every <= CHUNKS.length; every++) {
      const delivered: HostToWebview[] = [];
      const { outbox, runDue } = manualOutbox(delivered);
      const transcript = new Transcript();
      connect(transcript, outbox);
      CHUNKS.forEach((text, i) => {
        transcript.apply(chunk(text));
        if ((i + 1) % every === 0) runDue();
      });
      runDue();
      assert.deepEqual([...webviewText(delivered).values()], [LINE], `flush every ${every} chunks`);
    }
  });

  // Sabotage (Transcript.stream back to `entry.markdown += text`, store() without the copy),
  // this test printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
  //   + 'You chose **Allo'
  //   - 'You chos'
  // and the next one: + 'after' - 'before'.
  it('the transcript never changes an entry it has emitted', () => {
    const transcript = new Transcript();
    const emitted: TranscriptOp[] = [];
    transcript.onOp((op) => emitted.push(op));
    for (const text of CHUNKS.slice(0, 2)) transcript.apply(chunk(text));
    const first = nth(emitted, 0, 'emitted');
    assert.ok(first.type === 'upsert' && first.entry.kind === 'agent');
    assert.equal(first.entry.markdown, CHUNKS[0]);
    assert.ok(Object.isFrozen(first.entry), 'emitted entries are frozen');
    // The transcript itself has the whole text.
    assert.equal((transcript.get(first.entry.id) as { markdown: string }).markdown, CHUNKS[0] + CHUNKS[1]);
  });

  it("the transcript keeps its own copy of an upserted entry (the caller's object may change)", () => {
    const transcript = new Transcript();
    const mine: TranscriptEntry = { kind: 'notice', id: 'n', level: 'info', text: 'before' };
    transcript.upsert(mine);
    mine.text = 'after';
    assert.equal((transcript.get('n') as { text: string }).text, 'before');
  });

  // Sabotage (outbox.ts's snapshot() returning the message it was given), this test printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
  //       entry: { id: 'a1', kind: 'agent',
  //   +     markdown: 'grown later'
  //   -     markdown: 'as posted'
  // and the next one: "the poster's message is not the one that grows" + 'one two' - 'one '.
  it('the outbox queues a copy of what was posted', () => {
    const delivered: HostToWebview[] = [];
    const { outbox, runDue } = manualOutbox(delivered);
    const entry = { kind: 'agent' as const, id: 'a1', markdown: 'as posted' };
    const message: HostToWebview = { type: 'upsert', entry };
    outbox.post(message);
    entry.markdown = 'grown later';
    runDue();
    assert.deepEqual(delivered, [{ type: 'upsert', entry: { kind: 'agent', id: 'a1', markdown: 'as posted' } }]);
  });

  it('coalesces appends to one entry and keeps only the newest status; clear() drops the queue', () => {
    const delivered: HostToWebview[] = [];
    const { outbox, due, runDue } = manualOutbox(delivered);
    const append: HostToWebview = { type: 'append', id: 'a1', text: 'one ' };
    outbox.post(append);
    outbox.post({ type: 'append', id: 'a1', text: 'two' });
    outbox.post({ type: 'append', id: 'a2', text: 'other' });
    assert.equal(outbox.size, 2);
    assert.equal((append as { text: string }).text, 'one ', "the poster's message is not the one that grows");
    runDue();
    assert.deepEqual(delivered, [
      { type: 'append', id: 'a1', text: 'one two' },
      { type: 'append', id: 'a2', text: 'other' },
    ]);

    delivered.length = 0;
    const status = (detail: string) =>
      ({
        type: 'status',
        status: { agentName: 'x', demo: false, folderName: 'f', agent: 'ready', turn: 'idle', canSend: true, canStop: false, detail },
      }) as HostToWebview;
    outbox.post(status('first'));
    outbox.post(status('second'));
    runDue();
    assert.equal(delivered.length, 1);
    assert.equal((delivered[0] as { status: { detail: string } }).status.detail, 'second');

    delivered.length = 0;
    outbox.post({ type: 'focusInput' });
    outbox.clear();
    assert.equal(due(), false, 'clear() cancels the scheduled flush');
    runDue();
    assert.deepEqual(delivered, []);
  });

  // Sabotage (post() scheduling every message on the batch's timer, as before session 9), this
  // printed: AssertionError: what is not text waited for the batch, + [] - [ { id: 'a1', text: 'streamed ', … } ]
  it('text waits for the batch; anything else goes out with the work that posted it, after the text queued before it', () => {
    const delivered: HostToWebview[] = [];
    const later = manualSchedule();
    const soon = manualSchedule();
    const outbox = new Outbox(receive(delivered), later.schedule, soon.schedule);
    outbox.post({ type: 'append', id: 'a1', text: 'streamed ' });
    assert.equal(soon.due(), false, 'text alone waits for the batch');
    assert.equal(later.due(), true);
    outbox.post({ type: 'focusInput' });
    soon.runDue();
    assert.deepEqual(delivered, [{ type: 'append', id: 'a1', text: 'streamed ' }, { type: 'focusInput' }], 'what is not text waited for the batch');
    assert.equal(later.due(), false, 'the flush cancelled the batch it emptied');
  });

  // Sabotage (post() ignoring when the last flush went out), this printed: "AssertionError: a
  // flood that is not text is gathered too", true !== false (the second upsert scheduled a flush
  // of its own).
  it('what is not text is gathered too when it comes within a batch of the last flush', () => {
    const delivered: HostToWebview[] = [];
    const later = manualSchedule();
    const soon = manualSchedule();
    let clock = 1_000;
    const outbox = new Outbox(receive(delivered), later.schedule, soon.schedule, () => clock);
    const tool = (status: 'pending' | 'in_progress' | 'completed'): HostToWebview => ({
      type: 'upsert',
      entry: { kind: 'tool', id: 't1', title: 'run', status },
    });
    outbox.post(tool('pending'));
    soon.runDue();
    assert.equal(delivered.length, 1, 'the first goes out at once');
    clock += BATCH_MS - 1;
    outbox.post(tool('in_progress'));
    assert.equal(soon.due(), false, 'a flood that is not text is gathered too');
    assert.equal(later.due(), true);
    clock += 1;
    outbox.post(tool('completed'));
    assert.equal(soon.due(), true, 'a batch after the last flush, it goes out at once again, with what waited');
    soon.runDue();
    assert.equal(delivered.length, 3);
    assert.equal(later.due(), false);
    // What answers the user does not wait, however soon after a flush. Sabotage (every message
    // but text under the flood rule): "AssertionError: the files for an @ waited for the batch".
    outbox.post({ type: 'fileMatches', requestId: 1, files: [] });
    assert.equal(soon.due(), true, 'the files for an @ waited for the batch');
  });

  // A stop's end posts its notice (agentNotices.ts, on onStop) and then the status that ends the
  // stop (onDidChange), in one task. Posted as two messages, the webview could draw a frame
  // between them: "Stopped — the agent confirmed in 12 ms" with "Stopping… waiting for the agent
  // to confirm" and the Stop button. Sabotage (flush() delivering its messages one by one again):
  // "AssertionError [ERR_ASSERTION]: one flush, one message: 2 !== 1".
  it("one flush is one message: a stop's notice and the status that ends the stop arrive together", () => {
    const raw: HostToWebview[] = [];
    const later = manualSchedule();
    const soon = manualSchedule();
    let clock = 1_000;
    const outbox = new Outbox(
      (m) => raw.push(m),
      later.schedule,
      soon.schedule,
      () => clock,
    );
    const status = (turn: 'stopping' | 'idle'): HostToWebview =>
      ({
        type: 'status',
        status: { agentName: 'x', demo: false, folderName: 'f', agent: 'ready', turn, canSend: turn === 'idle', canStop: turn !== 'idle' },
      }) as HostToWebview;
    outbox.post(status('stopping'));
    soon.runDue();
    assert.equal(raw.length, 1, 'a lone message goes as itself');
    assert.equal(nth(raw, 0, 'the raw messages').type, 'status');
    raw.length = 0;
    clock += 2 * BATCH_MS; // the stop confirmed a while later
    const notice: HostToWebview = { type: 'upsert', entry: { kind: 'notice', id: 'n1', level: 'info', text: 'Stopped — the agent confirmed in 12 ms' } };
    outbox.post(notice);
    outbox.post(status('idle'));
    soon.runDue();
    assert.equal(raw.length, 1, 'one flush, one message');
    assert.deepEqual(raw[0], { type: 'batch', messages: [notice, status('idle')] });
  });

  it('the prompt flush, unmocked, comes after the posting code and before any timer', async () => {
    const delivered: HostToWebview[] = [];
    const outbox = new Outbox(receive(delivered));
    outbox.post({ type: 'append', id: 'a1', text: 'x' });
    outbox.post({ type: 'focusInput' });
    assert.deepEqual(delivered, [], 'nothing goes out inside the posting code');
    await Promise.resolve();
    assert.equal(delivered.length, 2);
  });
});
