// ACP v2's one method for load and resume (migration.mdx, "session/load is gone"): against a
// scripted agent that speaks v2 (v2-resume.json), a load is session/resume with
// `replayFrom: { type: "start" }` and replays the conversation; a resume is session/resume
// without it; session/load is never sent (the agent would refuse it as unknown).
import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { received, readRecord } from '../fixtures/scriptedAgent/records';
import { shutdownStarted, start } from '../support/runtimeHarness';

const methods = (record: string) =>
  received(readRecord(record))
    .map((w) => w.msg.method)
    .filter((m): m is string => typeof m === 'string');

describe('ACP v2: load and resume are one method', function () {
  this.timeout(20_000);
  afterEach(shutdownStarted);

  // Sabotage (sessionSwitch.ts' load sending session/load whatever the version): this printed
  // "AssertionError: load: {"status":"failed","error":"session/load failed: Method not found:
  // session/load","unknown":false,"sessionId":"sess-3"}" (and a new session in its place).
  it('v2-resume: a load is session/resume from the start (the conversation replayed); a resume is session/resume alone', async () => {
    const { rt, record } = await start('v2-resume');
    assert.deepEqual(rt.session.switch.caps, { load: true, resume: true, list: true, close: true, delete: false, loadByResume: true });
    const first = rt.session.id!;
    assert.equal((await rt.turns.prompt('What is the answer?')).kind, 'completed');
    await rt.session.renew();
    assert.notEqual(rt.session.id, first);

    const replayed: SessionNotification[] = [];
    const sub = rt.session.onUpdate((n) => replayed.push(n));
    const loaded = await rt.session.load(first);
    sub.dispose();
    assert.deepEqual(loaded.outcome, { status: 'loaded', sessionId: first }, `load: ${JSON.stringify(loaded.outcome)}`);
    assert.equal(rt.session.id, first);
    const text = replayed
      .filter((n) => n.update.sessionUpdate === 'agent_message_chunk')
      .map((n) => (n.update as { content?: { text?: string } }).content?.text ?? '')
      .join('');
    assert.equal(text, 'The answer is 42.', 'the replay brought the conversation back');
    // The prompt once: as the v2 agent acknowledged it (user_message), not also as a v1 chunk.
    // Sabotage (the scripted agent's server.ts remembering the chunk too, as it did: the host
    // showed the prompt twice after Load Session): "AssertionError [ERR_ASSERTION]: the prompt
    // replayed as user_message_chunk, user_message".
    const prompts = replayed.map((n) => String(n.update.sessionUpdate)).filter((k) => k === 'user_message' || k === 'user_message_chunk');
    assert.equal(prompts.length, 1, `the prompt replayed as ${prompts.join(', ')}`);

    const resumed = await rt.session.load(first, true);
    assert.deepEqual(resumed.outcome, { status: 'resumed', sessionId: first });

    const entries = readRecord(record);
    const resumes = received(entries, 'session/resume').map((w) => w.msg.params.replayFrom ?? null);
    assert.deepEqual(resumes, [{ type: 'start' }, null]);
    assert.ok(!methods(record).includes('session/load'), 'session/load is not a v2 method');
  });
});
