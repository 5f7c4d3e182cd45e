// A stopped turn's late updates in the real extension host (src/runtime/lateUpdates.ts): the
// scripted agent `late-after-cancel` goes on talking after its `cancelled` answer, and again
// when the next prompt arrives. What it says shows in the stopped turn's part of the
// transcript, labelled late; the next turn's answer is only its own.
import * as assert from 'node:assert/strict';
import type { TranscriptEntry } from '../../src/shared/messages';
import { waitFor } from '../support/helpers';
import { events } from '../fixtures/scriptedAgent/records';
import { addAgent, api, resetReins, send, stop, useAgent } from './support';

const transcript = async (): Promise<TranscriptEntry[]> => (await api()).state()!.transcript;
const isLate = (e: TranscriptEntry) => 'late' in e && e.late === true;

describe("late updates: a stopped turn's, never the next turn's", function () {
  this.timeout(120_000);
  afterEach(resetReins);

  // Run in the host on 2026-12-02 (`REINS_SKIP_UI=1 REINS_TEST_GREP='late' node test/host/run.mjs`):
  // passed as written (25 s under load 20), nothing to fix. Its sabotage in the host is still not
  // run (no host slot was free in time). The same sabotage (transcriptFeed.ts without its onTurnEnded line: no turn is ever known
  // stopped) made the runtime case of test/process/lateUpdates.test.ts print "timed out after
  // 10000 ms waiting for the late text"; here the wait is "the late text in the stopped turn".
  it("late text and a late tool result go to the stopped turn's part, labelled late", async () => {
    const agent = await addAgent('late-after-cancel');
    await useAgent(agent);
    const first = send('start the job');
    await waitFor('the tool card', async () => (await transcript()).some((e) => e.id === 'late-job'), 30_000);
    assert.equal((await stop()).outcome, 'aborted');
    assert.equal((await first).status, 'stopped');
    await waitFor('the late text in the stopped turn', async () => (await transcript()).some((e) => e.kind === 'agent' && isLate(e)), 30_000);

    assert.deepEqual(await send('next'), { status: 'completed', stopReason: 'end_turn' });
    assert.ok(
      events(agent.entries(), 'late-updates-sent').some((e) => e.at === 'next-prompt'),
      'the agent sent more of the stopped turn when the next prompt came',
    );
    const entries = await transcript();
    const start = entries.findIndex((e) => e.kind === 'user' && e.text === 'start the job');
    const next = entries.findIndex((e) => e.kind === 'user' && e.text === 'next');
    const after = entries.slice(next + 1);
    assert.deepEqual(
      after.filter((e) => e.kind !== 'notice').map((e) => (e.kind === 'agent' ? e.markdown : e.kind)),
      ['The next answer.'],
      'the next turn shows only its own answer',
    );
    assert.ok(!after.some(isLate), 'nothing late after the next prompt');
    const late = entries.slice(start, next).filter(isLate);
    assert.deepEqual(
      late.map((e) => (e.kind === 'agent' ? e.markdown : e.kind === 'tool' ? `${e.id} ${e.status} ${e.detail}` : e.kind)),
      ['late-job completed late output', 'The job was still running; it finished after the stop.'],
    );
  });
});
