// Workspace trust, in a host that has it on (npm run test:trust: REINS_WORKSPACE_TRUST=1, the
// folder opened untrusted). No agent starts by any way in: a prompt, the panel, restart, switch,
// new session, a mode picked. The user's text comes back to the input. In the ordinary run
// (trust disabled, every folder trusted) this suite is skipped.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { addAgent, api, send, setting } from './support';

describe('workspace trust', function () {
  before(function () {
    if (vscode.workspace.isTrusted) this.skip();
  });

  after(async () => {
    await setting('defaultAgent', undefined);
  });

  // Sabotage (the isTrusted check in FolderConversation.ensureAgent removed): "AssertionError: no agent
  // process + 29844 - undefined" — one of the commands (switch, restart, a mode) started it.
  it('no agent starts in an untrusted workspace by any command; the prompt is given back', async () => {
    const agent = await addAgent('quick');
    await setting('defaultAgent', agent.name);
    const tries: [string, unknown][] = [
      ['reins.openPanel', undefined],
      ['reins.selectAgent', agent.name],
      ['reins.restartAgent', undefined],
      ['reins.newSession', undefined],
      ['reins.setMode', undefined],
    ];
    for (const [command, arg] of tries) {
      await vscode.commands.executeCommand(command, ...(arg === undefined ? [] : [arg]));
    }
    assert.deepEqual(await send('keep this text'), { status: 'not-sent', reason: 'workspace not trusted' });
    const state = (await api()).state();
    assert.equal(state?.pid, undefined, 'no agent process');
    assert.equal(state?.lastRestoredInput, 'keep this text');
    assert.equal(state?.agentPhase, undefined);
    assert.ok(!fs.existsSync(agent.record), 'an agent process started: the scripted agent wrote its record');
  });
});
