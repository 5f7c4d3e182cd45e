// A plan's items after their turn ended without the agent finishing it (a confirmed stop, a
// failure): what was pending or in progress is shown stopped, not spinning, derived from the
// turn's end (src/runtime/planItems.ts, applied by the transcript at that end).
import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { planItems, stopUnfinished } from '../../src/runtime/planItems';
import { restorable } from '../../src/persistence/savedTranscript';
import { Transcript } from '../../src/runtime/transcript';
import type { PlanItem, TranscriptEntry } from '../../src/shared/messages';
import { planProgress } from '../../media/webview/statusModel';
import { planMark } from '../../media/webview/render/plan';
import type { IconName } from '../../media/webview/icons';
import { nth } from '../support/helpers';

const item = (status: PlanItem['status'], content = status): PlanItem => ({ content, status });
const plan = (...statuses: ('pending' | 'in_progress' | 'completed')[]): SessionNotification => ({
  sessionId: 's',
  update: { sessionUpdate: 'plan', entries: statuses.map((status, i) => ({ content: `step ${i + 1}`, status, priority: 'medium' })) },
});

describe('plan items after their turn ended', () => {
  // Sabotage (stopUnfinished returning its items unchanged): "AssertionError [ERR_ASSERTION]:
  // in_progress + actual - expected + 'in_progress' - 'stopped'" (and so for pending, the late plan,
  // the transcript and the restored plan).
  const rows: [PlanItem['status'], PlanItem['status']][] = [
    // before the end, shown after it
    ['pending', 'stopped'],
    ['in_progress', 'stopped'],
    ['completed', 'completed'],
    ['stopped', 'stopped'],
    ['cancelled', 'cancelled'], // the agent's own word (ACP v2): not ours to overwrite
  ];
  for (const [before, after] of rows) {
    it(`${before} → ${after}`, () => {
      assert.equal(nth(stopUnfinished([item(before)]), 0, 'the items').status, after, before);
    });
  }

  it('a finished plan stays the same array (no upsert for nothing)', () => {
    const done = [item('completed'), item('completed')];
    assert.equal(stopUnfinished(done), done);
  });

  it("the agent's entries as items; a late plan's (its turn ended) stopped", () => {
    const entries = [
      { content: 'a', status: 'completed' as const, priority: 'high' as const },
      { content: 'b', status: 'in_progress' as const, priority: 'low' as const },
    ];
    assert.deepEqual(
      planItems(entries).map((i) => i.status),
      ['completed', 'in_progress'],
    );
    assert.deepEqual(
      planItems(entries, true).map((i) => [i.content, i.status, i.priority]),
      [
        ['a', 'completed', 'high'],
        ['b', 'stopped', 'low'],
      ],
    );
  });

  // The demonstration's plan when Stop came during its first step: "0 of 4 done" said nothing of the stop.
  const progress: [PlanItem['status'][], string][] = [
    [['in_progress', 'pending', 'pending', 'pending'], '0 of 4 done'],
    [['stopped', 'stopped', 'stopped', 'stopped'], 'Stopped: 0 of 4 done'],
    [['completed', 'stopped', 'stopped'], 'Stopped: 1 of 3 done'],
    [['completed', 'completed'], '2 of 2 done'],
    // A cancelled item (ACP v2) is neither done nor stopped: counted apart.
    [['completed', 'cancelled', 'pending'], '1 of 3 done, 1 cancelled'],
    [['completed', 'cancelled', 'cancelled', 'stopped'], 'Stopped: 1 of 4 done, 2 cancelled'],
  ];
  for (const [statuses, said] of progress) {
    it(`progress of ${statuses.join(', ')}: ${said}`, () => {
      assert.equal(planProgress(statuses.map((s) => item(s))), said);
    });
  }

  // Sabotage (planProgress without its ", N cancelled"): "AssertionError [ERR_ASSERTION]: Expected
  // values to be strictly equal: + actual - expected + '1 of 3 done' - '1 of 3 done, 1 cancelled'"
  // (and so for the stopped plan's row).

  // As drawn (media/webview/render/plan.ts): the box's icon and the word a screen reader says.
  // Sabotage (no icon for cancelled): "AssertionError [ERR_ASSERTION]: Expected values to be
  // strictly deep-equal: + actual - expected { + icon: undefined, - icon: 'close', …".
  const marks: [PlanItem['status'], { icon: IconName | undefined; spoken: string }][] = [
    ['pending', { icon: undefined, spoken: 'to do' }],
    ['in_progress', { icon: undefined, spoken: 'in progress' }],
    ['completed', { icon: 'check', spoken: 'done' }],
    ['stopped', { icon: 'stop', spoken: 'stopped' }],
    ['cancelled', { icon: 'close', spoken: 'cancelled' }],
  ];
  for (const [status, mark] of marks) {
    it(`${status}: drawn with ${mark.icon ?? 'an empty box'} and spoken "${mark.spoken}"`, () => {
      assert.deepEqual(planMark(status), mark);
    });
  }

  it("the transcript stops the turn's plan at its end, once, and not a later turn's", () => {
    const transcript = new Transcript();
    const ops: TranscriptEntry[] = [];
    transcript.onOp((op) => op.type === 'upsert' && op.entry.kind === 'plan' && ops.push(op.entry));
    transcript.user('first');
    transcript.apply(plan('completed', 'in_progress', 'pending'));
    transcript.planEnded();
    const ended = transcript.entries.find((e) => e.kind === 'plan');
    assert.deepEqual(ended?.kind === 'plan' && ended.items.map((i) => i.status), ['completed', 'stopped', 'stopped']);
    transcript.planEnded(); // nothing left to stop: no second upsert
    assert.equal(ops.length, 2);
    // The next turn's plan is its own: the first turn's end does not reach it.
    transcript.user('second');
    transcript.apply(plan('in_progress'));
    const plans = transcript.entries.filter((e) => e.kind === 'plan');
    assert.deepEqual(
      plans.map((p) => p.kind === 'plan' && nth(p.items, 0, 'the items').status),
      ['completed', 'in_progress'],
    );
  });

  it('a plan restored in a new window (its agent gone) shows its unfinished items stopped', () => {
    const saved = { version: 1, entries: [{ kind: 'plan', id: 'p1', items: [item('completed'), item('in_progress')] }], dropped: 0 };
    const [entry] = restorable(saved);
    assert.deepEqual(entry?.kind === 'plan' && entry.items.map((i) => i.status), ['completed', 'stopped']);
  });
});
