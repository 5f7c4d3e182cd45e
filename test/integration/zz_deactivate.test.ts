// Deactivation, last (the file name sorts it last): it ends Reins in this extension host.
// Calls the real `deactivate` of the loaded bundle, as VS Code does on window reload or close.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cancels, events, firstEvent, received } from '../fixtures/scriptedAgent/records';
import { addAgent, api, extensionPath, logText, send, setting, useAgent } from './support';
import { alive, sleep, waitFor } from '../support/helpers';

/** The time a log line was written ("2026-12-01 00:38:29.472 [error] …", local time). */
function loggedAt(line: string): number {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d+)/.exec(line);
  return m ? new Date(`${m[1]}T${m[2]}`).getTime() : 0;
}

/** Every log file below `dir` (the window's log folder: the extension host's log and ours). */
function allLogs(dir: string, depth = 0): string {
  if (depth > 3) return '';
  let text = '';
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) text += allLogs(p, depth + 1);
    else if (e.name.endsWith('.log')) text += fs.readFileSync(p, 'utf8');
  }
  return text;
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
    await waitFor('the tool process', () => events(agent.entries(), 'tool-process-started').length === 1);
    const toolPid = firstEvent(agent.entries(), 'tool-process-started').pid as number;
    const agentPid = (await api()).state()!.pid!;
    assert.ok(alive(toolPid) && alive(agentPid));

    // The same module instance the extension host loaded (Node's require cache).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const extension = require(path.join(extensionPath(), 'dist', 'extension.js')) as { deactivate(): Promise<void> };
    // Listener errors reach the host's console (VS Code's emitter catches them).
    const consoleErrors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => {
      consoleErrors.push(args.map(String).join(' '));
      original.apply(console, args);
    };
    const started = Date.now();
    try {
      await extension.deactivate();
    } finally {
      console.error = original;
    }
    const took = Date.now() - started;
    // Issue 7 §5: a listener that read the cleared module variable threw during deactivation.
    // VS Code's emitter catches listener errors and logs them in the extension host's log.
    await sleep(500);
    const hostLogs = allLogs(path.dirname(path.dirname((await api()).logUri.fsPath)));
    assert.ok(!consoleErrors.some((e) => /activeConversation/.test(e)), consoleErrors.join('\n'));
    // Only this run's lines: the log folders of earlier hosts may sit beside ours.
    const thrown = hostLogs.split('\n').filter((l) => /reading 'activeConversation'/.test(l) && loggedAt(l) >= started - 1000);
    // Sabotage (the listener given the module variable again): "[error] TypeError: Cannot read
    // properties of undefined (reading 'activeConversation')", ten times.
    assert.deepEqual(thrown, []);
    // The deactivation stop's own line reaches the log (the channel outlives the stops).
    await waitFor('the stop line in the log', async () => /stop: reason=deactivate/.test(await logText()), 3000);

    assert.ok(cancels(agent.entries()).length >= 1, 'the running turn got session/cancel');
    assert.equal(received(agent.entries(), 'session/prompt').length, 1);
    await waitFor('the agent and its tool to be gone', () => !alive(agentPid) && !alive(toolPid), 5000);
    // Sabotage (AgentRuntime.shutdown and dispose both without proc.end(); either alone still
    // ends the tree): "timed out after 5000 ms waiting for the agent and its tool to be gone".
    assert.ok(took < 6000, `deactivation took ${took} ms; VS Code gives it about 5 s`);
  });
});
