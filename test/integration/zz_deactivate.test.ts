// Deactivation, last (the file name sorts it last): it ends Reins in this extension host.
// Calls the real `deactivate` of the loaded bundle, as VS Code does on window reload or close.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { cancels, events, received } from '../fixtures/scriptedAgent/records';
import { addAgent, api, extensionPath, send, setting, useAgent, waitUntil } from './support';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('deactivation (runs last)', function () {
  this.timeout(30_000);

  it('stops the running turn through the routine, then ends every agent process tree', async () => {
    await setting('leftoverProcesses', 'leave');
    // An agent that leaves its tool running and would ignore stdin closing (codex-acp style).
    const agent = await addAgent({
      startup: { stayOnStdinClose: true },
      prompts: [{ steps: [{ spawn: 'sleep 37', toolCallId: 't' }, { hang: true }], killToolsOnCancel: false, onCancel: 'never' }],
    });
    await useAgent(agent);
    void send('long work');
    await waitUntil('the tool process', () => events(agent.entries(), 'tool-process-started').length === 1);
    const toolPid = events(agent.entries(), 'tool-process-started')[0].pid as number;
    const agentPid = (await api()).state()!.pid!;
    assert.ok(alive(toolPid) && alive(agentPid));

    // The same module instance the extension host loaded (Node's require cache).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const extension = require(path.join(extensionPath(), 'dist', 'extension.js')) as { deactivate(): Promise<void> };
    const started = Date.now();
    await extension.deactivate();
    const took = Date.now() - started;

    assert.ok(cancels(agent.entries()).length >= 1, 'the running turn got session/cancel');
    assert.equal(received(agent.entries(), 'session/prompt').length, 1);
    await waitUntil('the agent and its tool to be gone', () => !alive(agentPid) && !alive(toolPid), 5000);
    // Sabotage (AgentRuntime.shutdown and dispose both without proc.end(); either alone still
    // ends the tree): "timed out after 5000 ms waiting for the agent and its tool to be gone".
    assert.ok(took < 6000, `deactivation took ${took} ms; VS Code gives it about 5 s`);
  });
});
