// The full recovery from an agent that answers one turn behind after a stop (as claude-agent-acp
// 0.23 does), in the real extension host: Reins restarts it in the same session (resumed) and
// sends the prompt again by itself when the git checkpoint shows the unseen work changed nothing;
// otherwise the prompt comes back to the input box beside the changed files and Undo.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { events, received } from '../fixtures/scriptedAgent/records';
import { alive, nth, waitFor } from '../support/helpers';
import { addAgent, api, extensionPath, resetReins, send, stop, useAgent, workspaceFolder, type ScriptedAgent } from './support';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });

/** A scenario of the fixtures with its sessions and its prompt count kept in files, so that a restarted agent reopens the session and goes on. */
function keptAcrossRestarts(name: string): object {
  const scenario = JSON.parse(fs.readFileSync(path.join(extensionPath(), 'test', 'fixtures', 'scriptedAgent', 'scenarios', `${name}.json`), 'utf8')) as {
    sessions: Record<string, unknown>;
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-out-of-step-'));
  return { ...scenario, sessions: { ...scenario.sessions, file: path.join(dir, 'sessions.jsonl') }, promptCountFile: path.join(dir, 'prompts') };
}

async function notices(): Promise<{ level: string; text: string; actions: string[] }[]> {
  const t = (await api()).state()!.transcript;
  return t.flatMap((e) => (e.kind === 'notice' ? [{ level: e.level, text: e.text, actions: (e.actions ?? []).map((a) => a.action) }] : []));
}

/** A turn stopped during its tool, then the prompt the agent answers one turn behind. */
async function promptAfterStop(agent: ScriptedAgent, text: string) {
  await useAgent(agent);
  void send('first');
  await waitFor('the tool', () => events(agent.entries(), 'tool-process-started').length === 1);
  assert.equal((await stop()).outcome, 'aborted');
  const pidBefore = (await api()).state()!.pid!;
  const result = await send(text);
  const unseen = events(agent.entries(), 'tool-process-started').find((e) => e.toolCallId === 'call-unseen')?.pid as number;
  assert.ok(unseen, 'the stale answer started its prompt unseen');
  return { result, pidBefore, unseen };
}

describe('out of step: the full recovery (restart, same session, again or back)', function () {
  this.timeout(60_000);
  let ws: string;

  before(() => {
    ws = workspaceFolder().uri.fsPath;
  });
  afterEach(resetReins);
  after(() => {
    fs.rmSync(path.join(ws, '.git'), { recursive: true, force: true });
    fs.rmSync(path.join(ws, 'one-behind'), { recursive: true, force: true });
  });

  // Sabotage (decideResend taking a files checkpoint's empty list for "nothing changed"): the
  // prompt went again: "{"status":"completed","stopReason":"end_turn","sentTwice":true}".
  it('outside git the checkpoint cannot tell what the unseen work did: the prompt comes back, not sent again', async () => {
    fs.rmSync(path.join(ws, '.git'), { recursive: true, force: true });
    const agent = await addAgent(keptAcrossRestarts('one-behind-resend'), { outOfStepRecovery: 'resend' });
    const { result } = await promptAfterStop(agent, 'second prompt, outside git');
    assert.ok(result.status === 'failed' && 'givenBack' in result && result.givenBack === 'unknown-changes', JSON.stringify(result));
    assert.equal((await api()).state()!.lastRestoredInput, 'second prompt, outside git');
    assert.equal(received(agent.entries(), 'session/prompt').length, 2, 'not sent a third time');
  });

  describe('in a git checkout', () => {
    before(() => {
      git(ws, 'init', '-q', '-b', 'main');
      git(ws, 'config', 'user.email', 'test@example.com');
      git(ws, 'config', 'user.name', 'test');
      git(ws, 'add', '-A');
      git(ws, 'commit', '-q', '--allow-empty', '-m', 'before the agent');
    });

    // Sabotage (takeOutOfStep answering false: the recovery of before, restart and give back):
    // "{"status":"failed","error":"scripted-1 answered one turn behind (an empty end_turn with zero
    // usage right after a stopped turn)","outOfStep":true,"recovery":"resend"}".
    it('nothing changed: restarted, the session resumed, the prompt sent again by itself; sendPrompt says so', async () => {
      const agent = await addAgent(keptAcrossRestarts('one-behind-resend'), { outOfStepRecovery: 'resend' });
      // A text of its own: lastRestoredInput outlives a test, and neverHarm.test.ts gives back 'second prompt'
      // (run after it, this asserted "nothing given back" on that test's text).
      const { result, pidBefore, unseen } = await promptAfterStop(agent, 'second prompt, nothing changed');
      assert.deepEqual(result, { status: 'completed', stopReason: 'end_turn', sentTwice: true }, JSON.stringify(result));
      const state = (await api()).state()!;
      assert.notEqual(state.pid, pidBefore, 'a new agent process');
      assert.ok(!alive(unseen) && !alive(pidBefore), 'the unseen work ended with the old process');
      // The new process resumed the session the prompt belongs to, and got the prompt again.
      const resumed = events(agent.entries(), 'session-resumed');
      assert.equal(resumed.length, 1, JSON.stringify(resumed));
      const prompts = received(agent.entries(), 'session/prompt');
      assert.equal(prompts.length, 3);
      assert.equal(prompts.at(-1)?.msg.params?.sessionId, nth(resumed, 0, 'the resume').sessionId, JSON.stringify(prompts.at(-1)));
      const agentText = state.transcript.flatMap((e) => (e.kind === 'agent' ? [e.markdown] : []));
      assert.equal(agentText.at(-1), 'the answer to the prompt sent again');
      assert.notEqual(state.lastRestoredInput, 'second prompt, nothing changed', 'nothing given back');
      assert.ok(
        (await notices()).some((n) => /your prompt goes again/.test(n.text)),
        JSON.stringify(await notices()),
      );
    });

    // Sabotage (resendOutOfStep not comparing the stops before and after the restart): the prompt
    // went again after the Stop: "{"status":"completed","stopReason":"end_turn","sentTwice":true}".
    it('a Stop while the agent restarts: the prompt comes back, not sent again', async () => {
      // Every start of this agent takes 1.5 s: time to press Stop while the second one starts.
      const agent = await addAgent({ ...keptAcrossRestarts('one-behind-resend'), init: { delayMs: 1500 } }, { outOfStepRecovery: 'resend' });
      await useAgent(agent);
      void send('first');
      await waitFor('the tool', () => events(agent.entries(), 'tool-process-started').length === 1);
      assert.equal((await stop()).outcome, 'aborted');
      const second = send('second prompt, stopped while restarting');
      await waitFor('the restart', () => received(agent.entries(), 'initialize').length === 2);
      await stop();
      const result = await second;
      assert.deepEqual(result, { status: 'not-sent', reason: 'stopped before it was sent again' }, JSON.stringify(result));
      assert.equal((await api()).state()!.lastRestoredInput, 'second prompt, stopped while restarting');
      assert.equal(received(agent.entries(), 'session/prompt').length, 2, 'not sent again');
    });

    // Sabotage (decideResend ignoring the changed files): "{"status":"completed","stopReason":"end_turn","sentTwice":true}".
    it('the unseen work changed a file: the prompt comes back beside the change and Undo, not sent again', async () => {
      const agent = await addAgent(keptAcrossRestarts('one-behind-edits'), { outOfStepRecovery: 'resend' });
      const { result } = await promptAfterStop(agent, 'second prompt, with edits');
      assert.ok(result.status === 'failed' && 'outOfStep' in result, JSON.stringify(result));
      assert.equal(result.recovery, 'resend');
      assert.equal(result.givenBack, 'files-changed');
      assert.deepEqual(result.changedFiles, ['one-behind/unseen.txt']);
      assert.equal((await api()).state()!.lastRestoredInput, 'second prompt, with edits');
      assert.equal(received(agent.entries(), 'session/prompt').length, 2, 'not sent again');
      const n = (await notices()).find((x) => /The unseen work changed 1 file \(one-behind\/unseen\.txt\)/.test(x.text));
      assert.ok(n && n.actions.includes('undoTurn'), JSON.stringify(await notices()));
    });
  });
});
