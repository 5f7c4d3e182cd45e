// claude-agent-acp's own scenarios (README: "claude-agent-acp"): after a cancel it answers one
// turn behind and goes on working unseen. The scenarios every agent goes through, New Session
// mid-tool (h) among them (Claude Code runs as one process per session), are in interop.test.ts.
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { recoverOutOfStep } from '../../src/runtime/outOfStepRecovery';
import type { TurnResult } from '../../src/runtime/turnMachine';
import { takeCheckpoint } from '../../src/undo/checkpoint/takeCheckpoint';
import { assertAnsweredAfterStop, flaggedOutOfStep, taggedPrompt } from './afterStop';
import { GUARDED_LONG_COMMAND, PLAIN_ANSWER } from './fakeModel';
import { approveAll, finish, measured, model, selectedAgents, sleepsOf, startAgent, useRealAgents, type Live } from './harness';
import { sleep, waitFor } from '../support/helpers';

/** A `sleep 37` that has run for a second, stopped with Reins' Stop; waits until it is gone. */
async function stopDuringTool(l: Live) {
  const turn = l.rt.turns.prompt('LONGCMD please');
  await waitFor('sleep 37 started', () => sleepsOf(l.setup.root).length > 0, 30_000);
  await sleep(1000);
  const report = await l.rt.turns.stop('user');
  assert.equal((await turn).kind, 'stopped');
  assert.equal(report.outcome, 'aborted', JSON.stringify(report));
  await waitFor('sleep 37 ended', () => sleepsOf(l.setup.root).length === 0, 3000);
  return report;
}

/** `cwd` as a git checkout with one commit (the git checkpoint sees every change in it). */
function gitCheckout(cwd: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'before the agent');
}

// The newest claude-agent-acp answers the prompt after a stop in step; 0.23.1 (kept pinned as
// `claude-0.23` for this file) answers it one turn behind, which the rest of this file needs.
for (const name of selectedAgents(['claude', 'claude-0.23'])) {
  describe(`real agents: ${name === 'claude' ? 'claude-agent-acp (newest)' : 'claude-agent-acp 0.23.1'}`, function () {
    this.timeout(90_000);
    useRealAgents();

    it('the prompt after a stop: in step, or its empty end_turn (one turn behind) is not reported as a normal completion', async function () {
      const l = await startAgent(name);
      const { rt, chunks } = l;
      approveAll(rt);
      await stopDuringTool(l);
      chunks.length = 0;
      const first = model().requests.length;
      const t0 = Date.now();
      const result = await rt.turns.prompt('PLAIN tag=p1');
      const ms = Date.now() - t0;
      measured(name, 'prompt after a stop → (empty) answer', ms, `result ${JSON.stringify(result)}, text ${JSON.stringify(chunks.join(''))}`);
      // With the runtime before 9a83c61 (no detection of the signature) this printed for 0.23.1:
      // "the prompt after the stop was answered {"kind":"completed","stopReason":"end_turn"}
      // with "" (expected "pong from the fake model tag=p1", or the result flagged outOfStep)".
      // Sabotaged again on 2026-12-02 (promptAnswer.ts: `outOfStep = false && …`), with the check
      // that accepts an in-step answer whose text the agent lost: it still failed, printing the
      // same line plus "model requests for tag=p1: [{…"endedAt":…352…}]" (the model was asked
      // for p1 only after claude's empty answer at +4 ms) and the turn's trace.
      await assertAnsweredAfterStop(name, result, l, 'p1');
      if (name === 'claude') {
        // The newest answers in step (its usage counts this turn): never flagged, its own text.
        assert.ok(!flaggedOutOfStep(result), `the newest claude-agent-acp flagged one turn behind: ${JSON.stringify(result)}`);
        assert.equal(chunks.join('').trim(), `${PLAIN_ANSWER} tag=p1`);
      } else if (flaggedOutOfStep(result)) {
        // The flag is right: the agent is still working on this prompt, unseen.
        await waitFor(
          'the model asked for tag=p1 after the empty answer',
          () =>
            model()
              .requests.slice(first)
              .some((r) => r.tag === 'p1'),
          5000,
        );
      }
      await finish(this.test!.fullTitle());
    });
  });
}

(selectedAgents(['claude-0.23']).length ? describe : describe.skip)('real agents: claude-agent-acp 0.23.1, one turn behind', function () {
  this.timeout(90_000);
  useRealAgents();

  it('the prompt answered one turn behind is recovered: restarted in the same session, sent again by itself (the checkpoint shows nothing changed)', async function () {
    // The workspace is a git checkout, as the recovery needs to see that nothing changed.
    const l = await startAgent('claude-0.23', { beforeStart: (setup) => gitCheckout(setup.cwd) });
    approveAll(l.rt);
    await stopDuringTool(l);
    // FolderConversation takes it before each prompt (undo/turnUndo.ts).
    const checkpoint = await takeCheckpoint(l.setup.cwd);
    const first = await l.rt.turns.prompt(taggedPrompt('again', 'r1'));
    assert.ok(flaggedOutOfStep(first), `not one turn behind this time: ${JSON.stringify(first)}`);
    const sessionId = l.rt.session.id;
    let next: Live | undefined;
    const t0 = Date.now();
    const outcome = await recoverOutOfStep<Live, TurnResult>({
      sessionId,
      restart: async () => {
        // As Restart Agent does: the routine (nothing runs), then the whole tree ends, unseen work included.
        await l.rt.shutdown('replace-session');
        l.rt.dispose();
        next = await startAgent('claude-0.23', { again: { setup: l.setup, reopen: { sessionId: sessionId!, keepTranscript: true } } });
        approveAll(next.rt);
        return next;
      },
      sessionOf: (agent) => agent.rt.session.id,
      changes: async () => ({ kind: checkpoint.kind, changed: (await checkpoint.changes()).map((c) => c.relative) }),
      resend: (agent) => agent.rt.turns.prompt(taggedPrompt('again', 'r1')),
    });
    measured('claude-0.23', 'out of step → restarted, reopened, sent again, answered', Date.now() - t0);
    // Sabotage (the restart reopening no session: `reopen` left out): "{"kind":"given-back","reason":"session-lost","changedFiles":[]}".
    assert.equal(outcome.kind, 'resent', JSON.stringify(outcome));
    assert.ok(next, 'restarted');
    const reopened = next.log.lines.filter((line) => /→ \S+ request session\/(resume|load) /.test(line) && line.includes(sessionId!));
    assert.equal(reopened.length, 1, `the session reopened once: ${JSON.stringify(reopened)}`);
    // claude-agent-acp 0.23.1 offers session/resume (`sessionCapabilities.resume`), which Reins prefers while it shows the conversation.
    assert.match(reopened[0]!, /request session\/resume /);
    assert.deepEqual(outcome.result, { kind: 'completed', stopReason: 'end_turn' }, JSON.stringify(outcome.result));
    const expected = `${PLAIN_ANSWER} tag=r1`;
    await waitFor('the answer to the prompt sent again', () => next!.chunks.join('').trim() === expected, 3000);
    await finish(this.test!.fullTitle());
  });

  it('window close while Claude Code runs a tool for a prompt it reported finished (one turn behind): nothing is left', async function () {
    // As after "Always allow": `sleep 37` runs without asking, so the unseen turn can start it
    // (Reins answers a permission request outside a turn `cancelled`).
    const l = await startAgent('claude-0.23', {
      beforeStart: (setup) => {
        mkdirSync(join(setup.cwd, '.claude'), { recursive: true });
        writeFileSync(join(setup.cwd, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: [`Bash(${GUARDED_LONG_COMMAND})`] } }));
      },
    });
    const { rt, setup } = l;
    await stopDuringTool(l);
    const result = await rt.turns.prompt('LONGCMD tag=u1');
    assert.ok(result.kind === 'completed', JSON.stringify(result));
    // The agent reported the turn finished, and now runs its tool: a turn Reins does not see.
    await waitFor('sleep 37 started by the unseen turn', () => sleepsOf(setup.root).length > 0, 10_000);
    // finish(): shutdown('deactivate', 2000), no turn to stop, then nothing of claude may be
    // left (claude-agent-acp ignores stdin EOF; Claude Code runs Bash in its own process group).
    // Sabotage (endTree signalling the group only, its per-pid loop removed) printed:
    // "processes of claude left after shutdown [{ cmd: "/bin/bash -c source …/shell-snapshots/
    // snapshot-bash-….sh && … eval 'sleep 37' …", pid: 20370 }, { cmd: 'sleep 37', … }]".
    // The mid-turn (f) passes with it: there the cancel makes Claude Code end its tool itself.
    await finish(this.test!.fullTitle());
  });
});
