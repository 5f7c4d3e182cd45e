// Queue and steer through reins.sendPrompt in the real extension host, against the scripted
// agent: `whenBusy: 'queue'` waits for the running turn to end by itself and goes out through the
// same preparation as a typed prompt (its undo checkpoint); `'steer'` goes into the running turn
// where the agent offers steering, and is queued where it does not (the result says so); a stop
// gives every queued prompt back to the input box, joined, in order.
import * as assert from 'node:assert/strict';
import { events, received } from '../fixtures/scriptedAgent/records';
import { waitFor } from '../support/helpers';
import { addAgent, api, logText, resetReins, send, stop, useAgent, type ScriptedAgent } from './support';

const promptTexts = (agent: ScriptedAgent) =>
  received(agent.entries(), 'session/prompt').map((m) => (m.msg.params.prompt as { text?: string }[]).map((b) => b.text ?? '').join(''));
const checkpoints = async () => ((await logText()).match(/checkpoint taken in/g) ?? []).length;

/** Send `text` and wait until its turn runs at the agent. */
async function running(agent: ScriptedAgent, text: string) {
  const sent = send(text);
  await waitFor('the turn to start at the agent', () => events(agent.entries(), 'turn-started').length >= 1, 20_000);
  return { sent };
}

describe('queue and steer (reins.sendPrompt whenBusy)', function () {
  this.timeout(120_000);
  afterEach(resetReins);

  // Sabotage (busyPrompt.ts's steerOrQueue enqueueing nothing: `join-stop` at once), this printed in code-server:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: + { status: 'completed', stopReason: 'end_turn' } - { queued: true, … }
  it("'queue': the prompts wait for the running turn to end by itself, go out in order, each after its own checkpoint", async () => {
    const agent = await addAgent('queue');
    await useAgent(agent);
    const before = await checkpoints();
    const { sent } = await running(agent, 'first');
    const second = send('second', 'queue');
    const third = send('third', 'queue');
    const reins = await api();
    await waitFor('both queued', () => reins.state()?.queued.length === 2);
    assert.deepEqual(
      reins.state()!.queued.map((q) => q.text),
      ['second', 'third'],
    );
    assert.deepEqual(await sent, { status: 'completed', stopReason: 'end_turn' });
    assert.deepEqual(await second, { status: 'completed', stopReason: 'end_turn', queued: true });
    assert.deepEqual(await third, { status: 'completed', stopReason: 'end_turn', queued: true });
    assert.deepEqual(promptTexts(agent), ['first', 'second', 'third']);
    assert.deepEqual(reins.state()!.queued, []);
    await waitFor('a checkpoint per prompt', async () => (await checkpoints()) - before >= 3, 10_000);
  });

  it("'steer': the text goes into the running turn, which goes on; no turn of its own", async () => {
    const agent = await addAgent('steer-acp');
    await useAgent(agent);
    const { sent } = await running(agent, 'first');
    const steered = await send('also write tests', 'steer');
    assert.equal(steered.status, 'steered');
    assert.deepEqual(await sent, { status: 'completed', stopReason: 'end_turn' });
    assert.deepEqual(promptTexts(agent), ['first']);
    const t = (await api()).state()!.transcript;
    assert.ok(t.some((e) => e.kind === 'notice' && /Steered into the running turn: “also write tests”/.test(e.text)));
    assert.ok(t.some((e) => e.kind === 'agent' && /Steered: also write tests/.test(e.markdown)));
  });

  // Sabotage (steerOrQueue returning the steer's failure as not-sent instead of queueing), this printed in code-server:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: + { reason: 'scripted-… offers no steering', status: 'not-sent' } - { fallbackReason: …, fellBackTo: 'queue', … }
  it("'steer' where the agent offers none: queued instead, and the result says so", async () => {
    const agent = await addAgent('queue');
    await useAgent(agent);
    const { sent } = await running(agent, 'first');
    const steer = send('second', 'steer');
    assert.deepEqual(await sent, { status: 'completed', stopReason: 'end_turn' });
    assert.deepEqual(await steer, {
      status: 'completed',
      stopReason: 'end_turn',
      queued: true,
      fellBackTo: 'queue',
      fallbackReason: `${agent.name} offers no steering`,
    });
    assert.deepEqual(promptTexts(agent), ['first', 'second']);
  });

  // Sabotage (agentNotices.ts not listening to onReleased), this printed in code-server:
  //   Error: timed out after 10000 ms waiting for the queued prompts back in the input box
  it('a stop gives every queued prompt back to the input box, joined in order; none is sent', async () => {
    const agent = await addAgent('queue');
    await useAgent(agent);
    const { sent } = await running(agent, 'first');
    const second = send('second', 'queue');
    const third = send('third', 'queue');
    const reins = await api();
    await waitFor('both queued', () => reins.state()?.queued.length === 2);
    assert.equal((await stop()).outcome !== 'abort-unverified', true);
    await sent;
    assert.equal((await second).status, 'not-sent');
    assert.equal((await third).status, 'not-sent');
    await waitFor('the queued prompts back in the input box', () => reins.state()?.lastRestoredInput === 'second\n\nthird', 10_000);
    assert.deepEqual(promptTexts(agent), ['first']);
    assert.ok(
      reins.state()!.transcript.some((e) => e.kind === 'notice' && /Your 2 queued prompts were not sent: the turn before them was stopped/.test(e.text)),
    );
  });
});
