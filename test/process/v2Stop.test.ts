// An agent speaking ACP v2 (negotiated: it refuses v1 and offers 2), through the runtime, the
// feed and the transcript: what it says it cancelled (tool calls, plan entries) is shown so; a
// cancel that withdraws its requests (`$/cancel_request`) gets one answer per request and closes
// their cards; a `git_patch` diff is the card's diff. The scripted scenarios are v2-*.json.
import * as assert from 'node:assert/strict';
import { Transcript } from '../../src/runtime/transcript';
import { feedTranscript } from '../../src/runtime/transcriptFeed';
import type { TranscriptEntry } from '../../src/shared/messages';
import { cancels, events, permissionAnswers, readRecord, received, waitForRecord } from '../fixtures/scriptedAgent/records';
import { nth, waitFor } from '../support/helpers';
import { shutdownStarted, start } from '../support/runtimeHarness';

type Tool = Extract<TranscriptEntry, { kind: 'tool' }>;

describe('ACP v2: a stop and what the agent says it cancelled', function () {
  this.timeout(20_000);
  afterEach(shutdownStarted);

  // Sabotage (transcriptFeed.ts applying the update as it came, without v1Shape): this printed
  // "Error: timed out after 10000 ms waiting for the plan" (a plan_update showed nothing).
  it('v2-cancelled-status: tool calls and plan entries the agent cancelled are shown cancelled; the stop settles at idle', async () => {
    const { rt } = await start('v2-cancelled-status');
    assert.equal(rt.agentInfo?.protocolVersion, 2);
    const transcript = new Transcript();
    feedTranscript(rt, transcript);
    const turn = rt.turns.prompt('fix it');
    const plan = () => transcript.entries.find((e): e is Extract<TranscriptEntry, { kind: 'plan' }> => e.kind === 'plan');
    await waitFor('the plan', () => plan() !== undefined && transcript.get('v2-tests') !== undefined);
    // Cancelled by the agent in a running turn: the card says so before any stop.
    assert.equal((transcript.get('v2-lint') as Tool | undefined)?.status, 'cancelled');
    const report = await rt.turns.stop('user');
    assert.equal(report.outcome, 'aborted');
    assert.deepEqual(report.evidence, { kind: 'idle-signal' });
    const result = await turn;
    assert.equal(result.kind, 'stopped');
    assert.equal(result.kind === 'stopped' && result.stop.waitingOn, undefined, 'it waited on nobody');
    assert.equal((transcript.get('v2-tests') as Tool | undefined)?.status, 'cancelled');
    assert.deepEqual(
      plan()?.items.map((i) => i.status),
      ['completed', 'cancelled', 'cancelled'],
    );
  });

  // Sabotage (the routine's cancelPermissions effect removed from the machine): the requests were
  // answered only when the agent withdrew them (-32800, after the cancel), and this printed
  // "AssertionError: Expected values to be strictly deep-equal: + undefined - { outcome:
  // 'cancelled' }". Each request still got exactly one answer: a withdrawal of a request already
  // answered is ignored (vscode-jsonrpc's cancel of a finished request).
  it('v2-withdraw-on-cancel: two requests at once, the cancel withdraws both: one answer each, before the cancel; cards closed; the next prompt goes', async () => {
    const { rt, record } = await start('v2-withdraw-on-cancel');
    const transcript = new Transcript();
    feedTranscript(rt, transcript);
    const asked: string[] = [];
    rt.turns.permissions.onRequest((p) => asked.push(p.id));
    const turn = rt.turns.prompt('go');
    await waitFor('both requests', () => asked.length === 2);
    const report = await rt.turns.stop('user');
    assert.equal(report.outcome, 'aborted');
    const result = await turn;
    // It waited on the user's answer when it was stopped: its result says so (sendPrompt's `waitingOn`).
    // Sabotage (turnController.ts' endTurn not adding it): "+ undefined - 'permission'".
    assert.equal(result.kind === 'stopped' && result.stop.waitingOn, 'permission');
    // The first `cancelled` answer may cancel the scripted turn (and so withdraw) before its session/cancel is read.
    const entries = await waitForRecord(record, (e) => events(e, 'request-withdrawn').length === 2 && cancels(e).length > 0);
    nth(cancels(entries), 0, 'the session/cancel');
    // Each answered once, cancelled, before the session/cancel.
    for (const { id, ...answer } of permissionAnswers(entries))
      assert.deepEqual(answer, { answers: 1, outcome: { outcome: 'cancelled' }, beforeCancel: true }, `request ${String(id)}`);
    // Every card closed: nothing left waiting for the user.
    const cards = transcript.entries.filter((e) => e.kind === 'permission');
    assert.equal(cards.length, 2);
    assert.ok(
      cards.every((c) => c.kind === 'permission' && c.resolved !== undefined),
      JSON.stringify(cards),
    );
    assert.equal(rt.turns.permissions.list().length, 0);
    assert.equal((await rt.turns.prompt('next')).kind, 'completed');
    assert.equal(received(readRecord(record), 'session/prompt').length, 2);
  });

  it('v2-git-patch: the patch is the card diff (its section, the hunks as texts); a binary change is a link', async () => {
    const { rt } = await start('v2-git-patch');
    const transcript = new Transcript();
    feedTranscript(rt, transcript);
    assert.equal((await rt.turns.prompt('edit')).kind, 'completed');
    const card = transcript.get('v2-edit') as Tool | undefined;
    const diff = nth(card?.diffs ?? [], 0, 'the card diff');
    assert.match(diff.path, /notes\.md$/);
    assert.equal(diff.oldText, '# Notes\ndraft\n');
    assert.equal(diff.newText, '# Notes\nfinal\n');
    assert.match(diff.patch ?? '', /^diff --git .*notes\.md/);
    assert.deepEqual(
      card?.locations?.map((l) => l.path.replace(/^.*\//, '')),
      ['logo.png'],
    );
  });
});
