// The stop's evidence as agents give it now, in the real extension host through Reins' commands:
// an `end_turn` after the cancel (GitHub Copilot CLI) is a confirmed stop with the confirmed
// notice, its late words the stopped turn's; so is -32000 "context canceled" after the cancel (not
// a failed turn, nor a sign-in request); an agent speaking ACP v2 has the tool calls and plan
// entries it cancelled shown cancelled, and its `git_patch` diff in the card.
import * as assert from 'node:assert/strict';
import type { TranscriptEntry } from '../../src/shared/messages';
import { waitFor } from '../support/helpers';
import { addAgent, api, resetReins, send, stop, useAgent } from './support';

const transcript = async (): Promise<TranscriptEntry[]> => (await api()).state()!.transcript;
const isLate = (e: TranscriptEntry) => 'late' in e && e.late === true;
/** Where the last prompt `text` is: the transcript keeps earlier tests' entries. */
const lastPrompt = (entries: TranscriptEntry[], text: string) => entries.map((e) => e.kind === 'user' && e.text === text).lastIndexOf(true);

describe('stop evidence as agents give it now', function () {
  this.timeout(120_000);
  afterEach(resetReins);

  // Sabotage in the host (turnMachine.ts settle() taking an answer other than `cancelled` for
  // `completed`, as it did), run on 2026-12-06: this printed "AssertionError:
  // {"outcome":"completed","cause":"user","turnId":1,"evidence":"answered end_turn",…}".
  it('end_turn after the cancel: aborted, "the agent confirmed", the late words in the stopped turn', async () => {
    const agent = await addAgent('end-turn-after-cancel-late');
    await useAgent(agent);
    const first = send('start the job');
    await waitFor('the tool card', async () => (await transcript()).some((e) => e.id === 'copilot-job'), 30_000);
    const result = await stop();
    assert.equal(result.outcome, 'aborted', JSON.stringify(result));
    assert.equal(result.evidence, 'answered end_turn');
    assert.deepEqual(await first, { status: 'stopped', outcome: 'aborted', cause: 'user' });
    await waitFor('the late text', async () => (await transcript()).some((e) => e.kind === 'agent' && isLate(e)), 30_000);
    const notices = (await transcript()).filter((e) => e.kind === 'notice').map((e) => (e.kind === 'notice' ? e.text : ''));
    assert.ok(
      notices.some((t) => t.startsWith('Stopped — the agent confirmed')),
      JSON.stringify(notices),
    );
    assert.deepEqual(await send('next'), { status: 'completed', stopReason: 'end_turn' });
  });

  // Sabotage in the host (turnMachine.ts settling a stopping turn on an answer only, not on an
  // error), run on 2026-12-06: this printed "AssertionError: {"outcome":"abort-unverified",
  // "cause":"user","turnId":1,"cancelsSent":6,…}" ('abort-unverified', want 'aborted').
  it('-32000 "context canceled" after the cancel: aborted, confirmed, no error or sign-in notice, the late words fenced', async () => {
    const agent = await addAgent('context-canceled-on-cancel');
    await useAgent(agent);
    const prompt = 'go, to be cancelled';
    const since = async () => {
      const entries = await transcript();
      const at = lastPrompt(entries, prompt);
      return at < 0 ? [] : entries.slice(at);
    };
    const first = send(prompt);
    await waitFor('the first words', async () => (await since()).some((e) => e.kind === 'agent'), 30_000);
    const result = await stop();
    assert.equal(result.outcome, 'aborted', JSON.stringify(result));
    assert.equal(result.evidence, 'error: context canceled');
    assert.deepEqual(await first, { status: 'stopped', outcome: 'aborted', cause: 'user' });
    await waitFor('the late text', async () => (await since()).some((e) => e.kind === 'agent' && isLate(e)), 30_000);
    const notices = (await since()).flatMap((e) => (e.kind === 'notice' ? [e] : []));
    assert.ok(
      notices.some((n) => n.text.startsWith('Stopped — the agent confirmed')),
      JSON.stringify(notices),
    );
    // A failed turn's notice is an error; a -32000 read as auth_required offers a sign-in.
    assert.deepEqual(
      notices.filter((n) => n.level === 'error' || /sign.in/i.test(n.text)),
      [],
    );
    assert.deepEqual(await send('next'), { status: 'completed', stopReason: 'end_turn' });
    const after = await transcript();
    assert.deepEqual(
      after
        .slice(lastPrompt(after, 'next'))
        .map((e) => `${isLate(e) ? '*' : ''}${e.kind}:${e.kind === 'agent' ? e.markdown : e.kind === 'user' ? e.text : ''}`),
      ['user:next', 'agent:The next answer.'],
    );
  });

  it('ACP v2: cancelled tool calls and plan entries shown cancelled; the stop settles at idle', async () => {
    const agent = await addAgent('v2-cancelled-status');
    await useAgent(agent);
    const first = send('fix it');
    await waitFor('the plan and the tool', async () => (await transcript()).some((e) => e.id === 'v2-tests'), 30_000);
    const result = await stop();
    assert.equal(result.outcome, 'aborted', JSON.stringify(result));
    assert.equal(result.evidence, 'idle signal');
    assert.equal((await first).status, 'stopped');
    const entries = await transcript();
    const tool = (id: string) => entries.find((e) => e.id === id);
    assert.equal((tool('v2-lint') as { status?: string } | undefined)?.status, 'cancelled');
    assert.equal((tool('v2-tests') as { status?: string } | undefined)?.status, 'cancelled');
    const plan = entries.find((e) => e.kind === 'plan');
    assert.deepEqual(plan?.kind === 'plan' && plan.items.map((i) => i.status), ['completed', 'cancelled', 'cancelled']);
  });

  it("ACP v2: a git_patch diff is the tool card's diff; a binary change is a link", async () => {
    const agent = await addAgent('v2-git-patch');
    await useAgent(agent);
    assert.equal((await send('edit')).status, 'completed');
    const card = (await transcript()).find((e) => e.id === 'v2-edit');
    assert.ok(card?.kind === 'tool', JSON.stringify(card));
    const diff = card.diffs?.[0];
    assert.match(diff?.patch ?? '', /^diff --git .*notes\.md/);
    assert.equal(diff?.newText, '# Notes\nfinal\n');
    assert.deepEqual(
      card.locations?.map((l) => l.path.replace(/^.*\//, '')),
      ['logo.png'],
    );
  });
});
