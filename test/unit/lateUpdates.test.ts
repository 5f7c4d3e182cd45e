// A stopped turn's late updates (src/runtime/lateUpdates.ts): shown in that turn's part of the
// transcript, labelled late, never in the next turn's: the pure placement with the transcript.
// The whole path against the scripted agent is test/process/lateUpdates.test.ts.
import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { LateUpdates } from '../../src/runtime/lateUpdates';
import { Transcript, type TranscriptOp } from '../../src/runtime/transcript';
import type { TranscriptEntry } from '../../src/shared/messages';

const u = (update: object): SessionNotification => ({ sessionId: 's', update }) as SessionNotification;
const chunk = (text: string, messageId?: string) =>
  u({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, ...(messageId ? { messageId } : {}) });
const thought = (text: string, messageId: string) => u({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text }, messageId });
const tool = (toolCallId: string, status: string) => u({ sessionUpdate: 'tool_call_update', toolCallId, status });

/** What the feed does (transcriptFeed.ts), without a runtime. */
function fed() {
  const t = new Transcript();
  const late = new LateUpdates();
  t.onOp((op) => op.type === 'reset' && late.reset());
  let turn = 0;
  return {
    t,
    prompt: (text: string) => late.turnStarted(++turn, t.user(text)),
    end: (stopped: boolean) => late.turnEnded(turn, stopped),
    update: (n: SessionNotification) => t.apply(n, late.place(n.update)),
  };
}

/** Each entry as `kind:text` (`*` marks a late one), in transcript order. */
function shape(entries: TranscriptEntry[]): string[] {
  return entries.map((e) => {
    const text = e.kind === 'user' ? e.text : e.kind === 'agent' || e.kind === 'thought' ? e.markdown : e.kind === 'tool' ? `${e.id}=${e.status}` : e.kind;
    return `${'late' in e && e.late ? '*' : ''}${e.kind}:${text}`;
  });
}

describe('late updates of a stopped turn', () => {
  // Sabotage (LateUpdates.turnEnded never keeping the stopped turn): this printed "Expected values
  // to be strictly deep-equal" with 'tool:c1=completed', 'agent:textlate words' (the late text run
  // on into the stopped turn's answer, unlabelled) for '*tool:c1=completed', 'agent:text', '*agent:late words'.
  it('after the cancelled answer and before the next prompt: in the stopped turn, labelled, a stream of its own', () => {
    const f = fed();
    f.prompt('first');
    f.update(chunk('stopped turn '));
    f.update(u({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Job', status: 'in_progress' }));
    f.update(chunk('text'));
    f.end(true);
    f.update(chunk('late '));
    f.update(chunk('words'));
    f.update(tool('c1', 'completed'));
    f.prompt('second');
    f.update(chunk('next answer'));
    f.end(false);
    assert.deepEqual(shape(f.t.entries), [
      'user:first',
      'agent:stopped turn ',
      '*tool:c1=completed',
      'agent:text',
      '*agent:late words',
      'user:second',
      'agent:next answer',
    ]);
  });

  // Sabotage (place() without its `ofStopped` return, so that what names the stopped turn's after
  // the next prompt is the running turn's): this printed "Expected values to be strictly
  // deep-equal" with 'agent:next answermore late', 'thought: on', 'agent: and more' after 'user:second'.
  it("after the next prompt: what names the stopped turn's tool call or message goes before the next prompt", () => {
    const f = fed();
    const ops: TranscriptOp[] = [];
    f.t.onOp((op) => ops.push(op));
    f.prompt('first');
    f.update(u({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Job', status: 'in_progress' }));
    f.end(true);
    f.update(thought('pondering', 'm2'));
    f.update(chunk('late ', 'm1'));
    f.update(tool('c1', 'in_progress'));
    f.prompt('second');
    f.update(chunk('next answer'));
    f.update(chunk('more late', 'm1'));
    f.update(thought(' on', 'm2')); // a new late entry: the late stream is the agent's text
    f.update(chunk(' and more', 'm1')); // and so is this
    f.update(tool('c1', 'failed'));
    f.update(chunk(' goes on'));
    // A chunk that names nothing of the stopped turn's cannot be told apart: the running turn's.
    f.update(u({ sessionUpdate: 'tool_call', toolCallId: 'c2', title: 'New job', status: 'pending' }));
    assert.deepEqual(shape(f.t.entries), [
      'user:first',
      '*tool:c1=failed',
      '*thought:pondering',
      '*agent:late more late',
      '*thought: on',
      '*agent: and more',
      'user:second',
      'agent:next answer goes on',
      'tool:c2=pending',
    ]);
    const second = f.t.entries.find((e) => e.kind === 'user' && e.text === 'second')!;
    assert.ok(
      ops.some((op) => op.type === 'upsert' && op.before === second.id),
      'the late entry is inserted before the next prompt in the panel too',
    );
  });

  it('a turn that ended by itself has no late updates; a new session forgets the stopped turn', () => {
    const f = fed();
    f.prompt('first');
    f.end(false);
    f.update(chunk('after an end_turn'));
    f.prompt('second');
    f.update(u({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Job', status: 'in_progress' }));
    f.end(true);
    f.t.clear();
    f.update(tool('c1', 'completed'));
    assert.deepEqual(shape(f.t.entries), ['tool:c1=completed']);
  });
});
