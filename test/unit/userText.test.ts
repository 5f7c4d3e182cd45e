// The words the panel shows about stops, leftovers and exits, without an editor.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { toSendResult, toStopResult } from '../../src/conversation/results';
import type { StopReport } from '../../src/runtime/stopReport';
import { endLeftoversLabel, exitCleanupText, leftoverHead, stopCauseText, stopNotice } from '../../src/conversation/userText';
import { nth } from '../support/helpers';

const T = 1_000_000;
function report(extra: Partial<StopReport>): StopReport {
  return {
    turnId: 3,
    cause: 'user',
    requestedAt: T,
    firstCancelAt: T,
    cancelsSent: 1,
    agent: 'goose',
    leftovers: [],
    leftoversFound: Promise.resolve([]),
    leftoverCheck: 'done',
    ...extra,
  };
}

describe('user text: stops', () => {
  // The walkthrough (package.json, read by VS Code, so it cannot import the words) quotes the
  // panel's stop notice: this test is what keeps the two one text.
  // Sabotage (the walkthrough back at "Stopped: the agent confirmed in 8 ms."): "AssertionError
  // [ERR_ASSERTION]: the walkthrough's Stop step quotes the panel: "Stopped — the agent confirmed in 8 ms"".
  it("the walkthrough's Stop step quotes the panel's own notice", () => {
    const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
      contributes: { walkthroughs: { steps: { id: string; description: string }[] }[] };
    };
    const step = nth(manifest.contributes.walkthroughs, 0, 'the walkthroughs').steps.find((s) => s.id === 'stop')!;
    const notice = stopNotice(report({ outcome: 'aborted', settledAt: T + 8 }), 'ws')!.text;
    assert.ok(step.description.includes(`"${notice}."`), `the walkthrough's Stop step quotes the panel: "${notice}"`);
  });

  it('says how the stop ended, and how long it took', () => {
    assert.deepEqual(stopNotice(report({ outcome: 'aborted', settledAt: T + 8 }), 'ws'), { level: 'info', text: 'Stopped — the agent confirmed in 8 ms' });
    assert.deepEqual(stopNotice(report({ outcome: 'aborted', settledAt: T + 1830, cause: 'send-now' }), 'ws'), {
      level: 'info',
      text: 'Stopped (new prompt sent) — the agent confirmed in 1.8 s',
    });
    assert.equal(
      stopNotice(report({ outcome: 'completed', evidence: { kind: 'answered', stopReason: 'end_turn' }, settledAt: T }), 'ws')?.text,
      'Stopped — the agent had already finished in 0 ms',
    );
    assert.equal(stopNotice(report({ outcome: 'agent-exited', settledAt: T + 5 }), 'ws')?.level, 'warning');
    assert.equal(
      stopNotice(report({ outcome: 'abort-unverified', unverifiedCause: 'no answer' }), 'ws', T + 10_000)!.text,
      'Stop not confirmed after 10 s — no new prompt or session starts in ws until the agent is known to be quiet',
    );
  });

  it('says nothing when nothing was in flight', () => {
    assert.equal(stopNotice(report({ firstCancelAt: undefined, outcome: 'completed' }), 'ws'), undefined);
  });

  it("names every cause but the user's own Stop", () => {
    assert.equal(stopCauseText('user'), '');
    assert.equal(stopCauseText('deactivate'), ' (Reins is shutting down)');
  });
});

describe('user text: leftovers and exits', () => {
  const sleep = { pid: 7, ppid: 1, pgid: 1, startedAt: T, command: 'sleep 37' };
  it('counts and names the leftovers', () => {
    assert.equal(leftoverHead(report({ outcome: 'aborted', leftovers: [sleep] })), '1 command was still running: sleep 37');
    assert.equal(
      leftoverHead(report({ outcome: 'aborted', leftovers: [sleep, { ...sleep, command: 'sh -c sleep 37' }] })),
      '2 commands were still running: sleep 37; sh -c sleep 37',
    );
  });
  it('names the button after the count', () => {
    assert.equal(endLeftoversLabel(report({ leftovers: [sleep] })), 'End It');
    assert.equal(endLeftoversLabel(report({ leftovers: [sleep, sleep] })), 'End Them');
  });
  it('says what was ended after an exit', () => {
    assert.equal(exitCleanupText('codex', [sleep]), 'codex left 1 process running when it exited; Reins ended it: sleep 37.');
  });
});

describe('the command API results', () => {
  it('maps turn results', () => {
    assert.deepEqual(toSendResult({ kind: 'completed', stopReason: 'end_turn' }), { status: 'completed', stopReason: 'end_turn' });
    assert.deepEqual(toSendResult({ kind: 'not-sent', why: 'x' }), { status: 'not-sent', reason: 'x' });
    assert.deepEqual(toSendResult({ kind: 'failed', error: 'e', agentExited: false }), { status: 'failed', error: 'e' });
  });
  it('maps stop reports, evidence as text', () => {
    const r = toStopResult(
      report({
        outcome: 'aborted',
        evidence: { kind: 'answered', stopReason: 'cancelled' },
        settledAt: T + 4,
        leftovers: [{ pid: 7, ppid: 1, pgid: 1, startedAt: T, command: 'sleep 37' }],
      }),
    );
    assert.deepEqual(r, {
      outcome: 'aborted',
      cause: 'user',
      turnId: 3,
      evidence: 'answered cancelled',
      cancelsSent: 1,
      settledAfterMs: 4,
      leftovers: [{ pid: 7, command: 'sleep 37' }],
      leftoverCheck: 'done',
    });
  });
});
