// First check in a real extension host: the extension is there, activates, and
// contributes every command the README promises.
import * as assert from 'node:assert';
import * as vscode from 'vscode';

const EXTENSION_ID = 'reins-dev.reins';
const COMMANDS = [
  'reins.openPanel',
  'reins.sendPrompt',
  'reins.stop',
  'reins.forceStop',
  'reins.newSession',
  'reins.selectAgent',
  'reins.restartAgent',
  'reins.showLog',
];

describe('smoke', () => {
  it('has exactly one workspace folder (the fixture copy)', () => {
    assert.strictEqual(vscode.workspace.workspaceFolders?.length, 1);
  });

  it(`finds ${EXTENSION_ID} and activates it on reins.openPanel`, async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not loaded`);
    await vscode.commands.executeCommand('reins.openPanel');
    // Activation may finish just after the command resolves; activate() is idempotent.
    await ext.activate();
    assert.strictEqual(ext.isActive, true);
  });

  it('registers all Reins commands', async () => {
    // getCommands() lists registered commands only, so activate first (also when grepped alone).
    await vscode.extensions.getExtension(EXTENSION_ID)?.activate();
    const all = new Set(await vscode.commands.getCommands(true));
    const missing = COMMANDS.filter((c) => !all.has(c));
    assert.deepStrictEqual(missing, [], `missing commands: ${missing.join(', ')}`);
  });
});
