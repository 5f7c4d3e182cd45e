// claude-agent-acp's own scenarios (README: "claude-agent-acp"): Claude Code runs as one
// process per session, started at session/new and kept for the session's life, and after a
// cancel the agent answers one turn behind. The scenarios every agent goes through are in
// interop.test.ts.
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLAIN_ANSWER } from './fakeModel';
import { assertAnsweredAfterStop, flaggedOutOfStep } from './afterStop';
import {
  approveAll, claudeCodeOf, delay, finish, measured, model, selectedAgents, sleepsOf, slowPs, startAgent, useRealAgents, waitUntil, type Live,
} from './harness';

/** A `sleep 37` that has run for a second, stopped with Reins' Stop; waits until it is gone. */
async function stopDuringTool(l: Live) {
  const turn = l.rt.prompt('LONGCMD please');
  await waitUntil(() => sleepsOf(l.setup.root).length > 0, 30_000, 'sleep 37 started');
  await delay(1000);
  const report = await l.rt.stop('user');
  assert.equal((await turn).kind, 'stopped');
  assert.equal(report.outcome, 'aborted', JSON.stringify(report));
  await waitUntil(() => sleepsOf(l.setup.root).length === 0, 3000, 'sleep 37 ended');
  return report;
}

const isClaudeCode = (command: string) => command === 'claude' || /claude-agent-sdk\/cli\.js/.test(command);

(selectedAgents(['claude']).length ? describe : describe.skip)('real agents: claude-agent-acp', function () {
  this.timeout(90_000);
  useRealAgents();

  it('New Session while a tool runs: session/new succeeds, the new Claude Code process is neither reported nor ended, the new session answers', async function () {
    const l = await startAgent('claude');
    const { rt, setup, chunks } = l;
    approveAll(rt);
    const turn = rt.prompt('LONGCMD please');
    await waitUntil(() => sleepsOf(setup.root).length > 0, 30_000, 'sleep 37 started');
    await delay(1000);
    const before = rt.sessionId;
    const t0 = Date.now();
    // Before the fix this rejected: Reins' leftover scan ran while session/new was in flight,
    // took the new session's Claude Code process (started after the turn, not in the idle
    // baseline) for a leftover tool and ended it; the agent answered session/new with -32603
    // "Internal error" ("Query closed before response received"). Whether `ps` lists the new
    // process is a race that a fast `ps` often wins; a slow one (1 s, as under load) loses it
    // every time. With the runtime before 9a83c61 (leftovers: whatever started during the turn)
    // this printed: "session/new failed: Internal error {"details":"Query closed before
    // response received"}" (without slowPs it passed once in two runs).
    const restorePs = slowPs(1000);
    const report = await rt
      .newSession()
      .catch((e: { message: string; data?: unknown }) => assert.fail(`session/new failed: ${e.message} ${JSON.stringify(e.data)}`))
      .finally(restorePs);
    measured('claude', 'New Session mid-tool → new session ready', Date.now() - t0);
    assert.equal((await turn).kind, 'stopped');
    assert.equal(report.outcome, 'aborted', JSON.stringify(report));
    assert.notEqual(rt.sessionId, before, 'the session was replaced');
    const leftovers = await report.leftoversFound;
    assert.deepEqual(leftovers.filter((p) => isClaudeCode(p.command)).map((p) => p.command), [], 'Claude Code processes reported as leftovers');
    // The old session's Claude Code process stays too (claude-agent-acp keeps every session
    // it opened); ended leftovers get SIGKILL after 1 s, so look after that.
    await delay(1300);
    measured('claude', 'Claude Code processes after New Session', claudeCodeOf(setup.root).length);
    assert.ok(claudeCodeOf(setup.root).length >= 1, 'a Claude Code process for the new session');
    assert.deepEqual(sleepsOf(setup.root), [], 'sleep 37 left running');
    chunks.length = 0;
    const answer = await rt.prompt('PLAIN tag=n1');
    assert.deepEqual(answer, { kind: 'completed', stopReason: 'end_turn' });
    assert.equal(chunks.join('').trim(), `${PLAIN_ANSWER} tag=n1`, 'the new session answers in step');
    await finish(this.test!.fullTitle());
  });

  it('the prompt after a stop: its empty end_turn (one turn behind) is not reported as a normal completion', async function () {
    const l = await startAgent('claude');
    const { rt, chunks } = l;
    approveAll(rt);
    await stopDuringTool(l);
    chunks.length = 0;
    const first = model().requests.length;
    const t0 = Date.now();
    const result = await rt.prompt('PLAIN tag=p1');
    const ms = Date.now() - t0;
    measured('claude', 'prompt after a stop → (empty) answer', ms, `result ${JSON.stringify(result)}, text ${JSON.stringify(chunks.join(''))}`);
    // With the runtime before 9a83c61 (no detection of the signature) this printed:
    // "the prompt after the stop was answered {"kind":"completed","stopReason":"end_turn"}
    // with "" (expected "pong from the fake model tag=p1", or the result flagged outOfStep)".
    assertAnsweredAfterStop(result, chunks, `${PLAIN_ANSWER} tag=p1`);
    if (flaggedOutOfStep(result)) {
      // The flag is right: the agent is still working on this prompt, unseen.
      await waitUntil(() => model().requests.slice(first).some((r) => r.tag === 'p1'), 5000, 'the model asked for tag=p1 after the empty answer');
    }
    await finish(this.test!.fullTitle());
  });

  it('window close while Claude Code runs a tool for a prompt it reported finished (one turn behind): nothing is left', async function () {
    // As after "Always allow": `sleep 37` runs without asking, so the unseen turn can start it
    // (Reins answers a permission request outside a turn `cancelled`).
    const l = await startAgent('claude', {
      beforeStart: (setup) => {
        mkdirSync(join(setup.cwd, '.claude'), { recursive: true });
        writeFileSync(join(setup.cwd, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(sleep 37)'] } }));
      },
    });
    const { rt, setup } = l;
    await stopDuringTool(l);
    const result = await rt.prompt('LONGCMD tag=u1');
    assert.ok(result.kind === 'completed', JSON.stringify(result));
    // The agent reported the turn finished, and now runs its tool: a turn Reins does not see.
    await waitUntil(() => sleepsOf(setup.root).length > 0, 10_000, 'sleep 37 started by the unseen turn');
    // finish(): shutdown('deactivate', 2000), no turn to stop, then nothing of claude may be
    // left (claude-agent-acp ignores stdin EOF; Claude Code runs Bash in its own process group).
    // Sabotage (endTree signalling the group only, its per-pid loop removed) printed:
    // "processes of claude left after shutdown [{ cmd: "/bin/bash -c source …/shell-snapshots/
    // snapshot-bash-….sh && … eval 'sleep 37' …", pid: 20370 }, { cmd: 'sleep 37', … }]".
    // The mid-turn (f) passes with it: there the cancel makes Claude Code end its tool itself.
    await finish(this.test!.fullTitle());
  });
});
