// The panel, a prompt's answer, and the log, in the real extension host.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { firstReceived } from '../fixtures/scriptedAgent/records';
import { addAgent, api, logText, resetReins, send, setting, useAgent } from './support';
import { waitFor } from '../support/helpers';

describe('panel and prompt', () => {
  afterEach(resetReins);

  it('opening the panel spawns the agent (the demonstration agent by default, offline)', async () => {
    const reins = await api();
    // Earlier tests may have selected other agents: go back to the default, then end it, so
    // that opening the panel is what starts it.
    await setting('defaultAgent', undefined);
    await useAgent('demo');
    const before = reins.state()!.pid;
    await vscode.commands.executeCommand('reins.forceStop');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor('the demo agent to exit', () => reins.state()?.agentPhase === 'exited');
    await vscode.commands.executeCommand('reins.openPanel');
    await waitFor('the demo agent to be ready again', () => reins.state()?.agentPhase === 'ready');
    const state = reins.state()!;
    assert.equal(state.agent, 'demo');
    assert.ok(state.pid && state.pid > 0 && state.pid !== before, 'a new process');
    assert.ok(state.sessionId);
    assert.ok(
      state.transcript.some((e) => e.kind === 'notice' && /demonstration agent/.test(e.text)),
      'the demo is labelled as such',
    );
  });

  it("a prompt's answer appears in the transcript; sendPrompt resolves with the stop reason", async () => {
    const agent = await addAgent({ prompts: [{ steps: [{ text: 'The **answer** is 42.', chunk: 4, intervalMs: 5 }] }] });
    await useAgent(agent);
    const result = await send('What is the answer?');
    assert.deepEqual(result, { status: 'completed', stopReason: 'end_turn' });
    const t = (await api()).state()!.transcript;
    assert.ok(t.some((e) => e.kind === 'user' && e.text === 'What is the answer?'));
    assert.ok(
      t.some((e) => e.kind === 'agent' && e.markdown === 'The **answer** is 42.'),
      JSON.stringify(t),
    );
    const prompt = firstReceived(agent.entries(), 'session/prompt').msg.params;
    assert.deepEqual(prompt.prompt, [{ type: 'text', text: 'What is the answer?' }]);
    assert.equal(prompt.sessionId, (await api()).state()!.sessionId);
  });

  it('agent stderr reaches the Reins log', async () => {
    const agent = await addAgent({ startup: { stderrLines: ['scripted-stderr-marker-7319'] }, prompts: [{ steps: [{ text: 'ok' }] }] });
    await useAgent(agent);
    await waitFor('the stderr line in the log', async () => /scripted-stderr-marker-7319/.test(await logText()), 10_000);
  });

  it('a stderr flood does not stop the answer', async () => {
    const agent = await addAgent('flood-stderr');
    await useAgent(agent);
    const result = await send('flood');
    assert.equal(result.status, 'completed');
    const t = (await api()).state()!.transcript;
    assert.ok(t.some((e) => e.kind === 'agent' && /Still here after the flood/.test(e.markdown)));
  });

  it('tool calls and their updates show in the transcript', async () => {
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            { tool: { id: 'call-read', title: 'Read src/main.ts', kind: 'read', status: 'pending' } },
            { toolUpdate: { id: 'call-read', status: 'completed', text: 'export function main() {}' } },
            { tool: { id: 'call-dup', title: 'Run ls', kind: 'execute', status: 'pending' } },
            // An older adapter sends tool_call twice for the same id: one entry, updated.
            { tool: { id: 'call-dup', title: 'Run ls', kind: 'execute', status: 'in_progress' } },
            { toolUpdate: { id: 'call-dup', status: 'failed', text: 'ls: permission denied' } },
            { text: 'All done.' },
          ],
        },
      ],
    });
    await useAgent(agent);
    await send('tools');
    // This turn's tools: the transcript may still show earlier suites' turns.
    const transcript = (await api()).state()!.transcript;
    const mine = transcript.slice(transcript.map((e) => e.kind === 'user' && e.text === 'tools').lastIndexOf(true));
    const tools = mine.filter((e) => e.kind === 'tool');
    assert.deepEqual(
      tools.map((t) => t.kind === 'tool' && [t.id, t.status, t.detail]),
      [
        ['call-read', 'completed', 'export function main() {}'],
        ['call-dup', 'failed', 'ls: permission denied'],
      ],
    );
  });

  it('the protocol trace logs every message with direction and timing, never env values', async () => {
    await setting('trace', 'messages');
    const agent = await addAgent(
      { prompts: [{ steps: [{ text: 'traced' }] }] },
      { env: { ELECTRON_RUN_AS_NODE: '1', REINS_SECRET_TOKEN: 'sekrit-value-123' } },
    );
    await useAgent(agent);
    await send('trace me');
    await setting('trace', undefined);
    await waitFor('trace lines', async () => /→ \+[\d.]+s request session\/prompt/.test(await logText()));
    const log = await logText();
    assert.match(log, /← \+[\d.]+s response #\d+ to session\/prompt after \d+ ms/);
    assert.match(log, /REINS_SECRET_TOKEN/, 'env keys are named');
    assert.doesNotMatch(log, /sekrit-value-123/, 'env values are never logged');

    // The level is read once and forgotten when the setting changes (config.ts): off again, the
    // next prompt leaves no trace line; verbose then, the one after shows its payload.
    // Sabotage (watchSettings forgetting nothing) printed: "Error: timed out after 10000 ms
    // waiting for the verbose trace of the third prompt".
    const promptLines = async () => ((await logText()).match(/request session\/prompt/g) ?? []).length;
    const before = await promptLines();
    await send('not traced');
    await setting('trace', 'verbose');
    await send('traced again');
    await setting('trace', undefined);
    await waitFor('the verbose trace of the third prompt', async () => /request session\/prompt .*traced again/.test(await logText()));
    assert.equal(await promptLines(), before + 1, 'trace lines of session/prompt after reins.trace went off and then verbose');
  });
});
