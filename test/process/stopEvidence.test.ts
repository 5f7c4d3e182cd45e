// The stop's evidence as agents give it now, through the runtime, the feed and the transcript
// against the scripted agent: an answer after the cancel confirms the stop whatever it says
// (`end_turn`, as GitHub Copilot CLI was reported to answer; -32000 "context canceled"), the
// turn is stopped and never completed, and what the agent says after it stays that turn's (late).
import * as assert from 'node:assert/strict';
import { Transcript } from '../../src/runtime/transcript';
import { feedTranscript } from '../../src/runtime/transcriptFeed';
import type { TranscriptEntry } from '../../src/shared/messages';
import { received, waitForRecord } from '../fixtures/scriptedAgent/records';
import { waitFor } from '../support/helpers';
import { shutdownStarted, start } from '../support/runtimeHarness';

/** Each entry as `kind:text` (`*` marks a late one), in transcript order. */
function shape(entries: TranscriptEntry[]): string[] {
  return entries.map((e) => {
    const text = e.kind === 'user' ? e.text : e.kind === 'agent' || e.kind === 'thought' ? e.markdown : e.kind === 'tool' ? `${e.id}=${e.status}` : e.kind;
    return `${'late' in e && e.late ? '*' : ''}${e.kind}:${text}`;
  });
}

describe('stop evidence: any answer after the cancel confirms the stop', function () {
  this.timeout(20_000);
  afterEach(shutdownStarted);

  // Sabotage (turnMachine.ts settle() taking an answer other than `cancelled` for `completed`
  // again, as it did): this printed "AssertionError: outcome completed, want aborted: an end_turn
  // after the cancel confirms the stop".
  it("end_turn after the cancel (Copilot CLI): stopped, confirmed; the late text and tool result stay the stopped turn's", async () => {
    const { rt, record } = await start('end-turn-after-cancel-late');
    const transcript = new Transcript();
    feedTranscript(rt, transcript);
    const first = rt.turns.prompt('start the job');
    await waitFor('the tool card', () => transcript.get('copilot-job') !== undefined);
    const report = await rt.turns.stop('user');
    assert.equal(report.outcome, 'aborted', `outcome ${report.outcome}, want aborted: an end_turn after the cancel confirms the stop`);
    assert.deepEqual(report.evidence, { kind: 'answered', stopReason: 'end_turn' });
    const result = await first;
    assert.equal(result.kind, 'stopped', `the cancelled turn ended ${result.kind}, never completed`);
    await waitFor('the late text', () => transcript.entries.some((e) => 'late' in e && e.kind === 'agent'));
    assert.equal((await rt.turns.prompt('next')).kind, 'completed');
    const entries = transcript.entries;
    const next = entries.findIndex((e) => e.kind === 'user' && e.text === 'next');
    assert.deepEqual(shape(entries.slice(next)), ['user:next', 'agent:The next answer.'], "the next turn's answer carries nothing of the stopped one");
    assert.deepEqual(
      entries
        .slice(0, next)
        .filter((e) => 'late' in e && e.late)
        .map((e) => (e.kind === 'agent' ? e.markdown : e.kind === 'tool' ? `${e.id}=${e.status}` : e.kind)),
      ['copilot-job=completed', 'Wrapping up after the stop.'],
    );
    assert.equal(received(await waitForRecord(record, (e) => received(e, 'session/prompt').length === 2), 'session/prompt').length, 2);
  });

  // Sabotage (turnMachine.ts settling a stopping turn on an answer only, not on an error): this
  // printed "AssertionError: outcome abort-unverified, want aborted" after the 10 s budget. The
  // auth_required offer reads a *failed* result's -32000 only: this turn's result is `stopped`,
  // so no sign-in is offered for a cancel's "context canceled".
  it('-32000 "context canceled" after the cancel: stopped, confirmed, not a sign-in request', async () => {
    const { rt } = await start('context-canceled-on-cancel');
    const transcript = new Transcript();
    feedTranscript(rt, transcript);
    const first = rt.turns.prompt('go');
    await waitFor('the first words', () => transcript.entries.some((e) => e.kind === 'agent'));
    const report = await rt.turns.stop('user');
    assert.equal(report.outcome, 'aborted', `outcome ${report.outcome}, want aborted`);
    assert.equal(report.evidence?.kind === 'error' && report.evidence.message, 'context canceled');
    const result = await first;
    assert.equal(result.kind, 'stopped', `the cancelled turn ended ${JSON.stringify(result)}, want stopped`);
    await waitFor('the late text', () => transcript.entries.some((e) => 'late' in e && e.kind === 'agent'));
    assert.equal((await rt.turns.prompt('next')).kind, 'completed');
    const entries = transcript.entries;
    const next = entries.findIndex((e) => e.kind === 'user' && e.text === 'next');
    assert.deepEqual(shape(entries.slice(next)), ['user:next', 'agent:The next answer.']);
  });
});
