// Issue 7 in the real extension host: Reins never harms the agent it stops. The agent's own
// processes are never taken for leftovers; an agent that answers one turn behind is caught;
// exits that Reins asked for are no failures; an agent that dies leaves nothing behind; the
// prompt typed after a Force Stop is not swallowed.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { events, firstEvent, received } from '../fixtures/scriptedAgent/records';
import { addAgent, api, resetReins, send, setting, stop, useAgent } from './support';
import { alive, sleep, waitFor } from '../support/helpers';

async function notices(): Promise<{ level: string; text: string; actions: string[] }[]> {
  const t = (await api()).state()!.transcript;
  return t.flatMap((e) => (e.kind === 'notice' ? [{ level: e.level, text: e.text, actions: (e.actions ?? []).map((a) => a.action) }] : []));
}

describe('never harm the agent (issue 7)', function () {
  this.timeout(30_000);
  afterEach(resetReins);

  // Sabotage (findLeftovers counting every new descendant, as before): "the agent's own
  // processes were ended" — the first session's process, started during no tool, was killed
  // and New Session's own process was offered as a leftover.
  it("New Session during a tool: the agent's per-session processes are never ended or offered", async () => {
    await setting('leftoverProcesses', 'end');
    const agent = await addAgent('own-session-process');
    await useAgent(agent);
    void send('run a tool');
    await waitFor('the tool', () => events(agent.entries(), 'tool-process-started').length === 2);
    assert.equal(await vscode.commands.executeCommand<boolean>('reins.newSession'), true, 'New Session succeeded');
    await waitFor('the second session process', () => events(agent.entries(), 'tool-process-started').length === 3);
    const own = events(agent.entries(), 'tool-process-started')
      .filter((e) => String(e.toolCallId).startsWith('session-process:'))
      .map((e) => e.pid as number);
    await sleep(800); // past the leftover re-check
    assert.ok(own.length === 2 && own.every(alive), "the agent's own processes were ended");
    assert.ok(!(await notices()).some((n) => /sleep 45/.test(n.text)), JSON.stringify(await notices()));
    assert.equal(received(agent.entries(), 'session/new').length, 2);
  });

  // Sabotage (looksOutOfStep returning false): "{"status":"completed","stopReason":"end_turn"}".
  it('an answer one turn behind after a stop is caught, said, and the prompt kept', async () => {
    const agent = await addAgent('one-behind-after-cancel');
    await useAgent(agent);
    void send('first');
    await waitFor('the tool', () => events(agent.entries(), 'tool-process-started').length === 1);
    assert.equal((await stop()).outcome, 'aborted');
    const second = await send('second prompt');
    assert.deepEqual(
      second,
      {
        status: 'failed',
        error: `${agent.name} answered one turn behind (an empty end_turn with zero usage right after a stopped turn)`,
        outOfStep: true,
        recovery: 'none',
      },
      JSON.stringify(second),
    );
    assert.equal((await api()).state()!.lastRestoredInput, 'second prompt');
    const n = (await notices()).find((x) => /one turn behind/.test(x.text));
    assert.ok(n && n.actions.includes('restartAgent'), JSON.stringify(await notices()));
  });

  it("with outOfStepRecovery 'restart' the agent is restarted at once, ending its unseen work", async () => {
    const agent = await addAgent('one-behind-after-cancel', { outOfStepRecovery: 'restart' });
    await useAgent(agent);
    void send('first');
    await waitFor('the tool', () => events(agent.entries(), 'tool-process-started').length === 1);
    await stop();
    const pidBefore = (await api()).state()!.pid!;
    const second = await send('second prompt');
    assert.equal(second.status === 'failed' && 'recovery' in second ? second.recovery : undefined, 'restart', JSON.stringify(second));
    const unseen = events(agent.entries(), 'tool-process-started').find((e) => e.toolCallId === 'call-unseen')?.pid as number;
    assert.ok(unseen, 'the stale answer started its prompt unseen');
    await waitFor('a new agent process', async () => {
      const s = (await api()).state()!;
      return s.agentPhase === 'ready' && s.pid !== pidBefore;
    });
    await waitFor('the unseen work to end', () => !alive(unseen) && !alive(pidBefore), 5000);
  });

  // Sabotage (onExit ignoring `requested`): the notice list held "… exited (exited with code 0).
  // Your next prompt starts it again." after Restart.
  it('restart and Force Stop are no failures; stale buttons go; the next prompt starts the agent again', async () => {
    const agent = await addAgent('never-settles');
    await setting('settleTimeoutSeconds', 1);
    await useAgent(agent);
    void send('hang');
    await waitFor('the prompt', () => received(agent.entries(), 'session/prompt').length === 1);
    assert.equal((await stop()).outcome, 'abort-unverified');
    assert.ok((await notices()).some((n) => n.actions.includes('forceStop')));
    await vscode.commands.executeCommand('reins.forceStop');
    await waitFor('the exit', async () => (await api()).state()!.agentPhase === 'exited');
    await sleep(200);
    const after = await notices();
    assert.ok(!after.some((n) => n.level === 'error'), JSON.stringify(after));
    assert.ok(!after.some((n) => n.actions.includes('forceStop') || n.actions.includes('checkAgain')), `stale buttons: ${JSON.stringify(after)}`);
    assert.ok(
      after.some((n) => /Force stopped/.test(n.text)),
      JSON.stringify(after),
    );
    assert.equal((await api()).state()!.canSend, true, 'the input takes a prompt after Force Stop');
    await vscode.commands.executeCommand('reins.restartAgent');
    assert.ok(!(await notices()).some((n) => n.level === 'error'), JSON.stringify(await notices()));
  });

  // Sabotage (the crash path not ending the exited agent's group): "timed out after 5000 ms
  // waiting for the crashed agent's sleep 60 to end".
  it('an agent that crashes leaves nothing behind, and the panel says what was ended', async () => {
    const agent = await addAgent({
      prompts: [
        {
          steps: [{ tool: { id: 't', title: 'sleep 60' } }, { spawn: 'sleep 60', toolCallId: 't' }, { sleepMs: 200 }, { crash: { code: 1 } }],
          killToolsOnCancel: false,
        },
      ],
    });
    await useAgent(agent);
    const result = await send('crash with a tool running');
    assert.equal(result.status, 'stopped');
    const tool = firstEvent(agent.entries(), 'tool-process-started').pid as number;
    await waitFor("the crashed agent's sleep 60 to end", () => !alive(tool), 5000);
    await waitFor('the notice', async () => (await notices()).some((n) => /Reins ended (it|them): .*sleep 60/.test(n.text)));
  });
});
