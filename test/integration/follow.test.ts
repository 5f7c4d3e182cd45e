// reins.followAgent in the real extension host (src/editor/editorLinks.ts `followAgent`): with it
// on, the file a tool call names (its `locations`) opens in an editor at the line, beside the
// panel and without taking the focus; with it off, the editor stays where it was.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { sleep, waitFor } from '../support/helpers';
import { addAgent, resetReins, send, setting, useAgent, workspaceFolder } from './support';

const LINE = 12;

/** A turn whose one tool call reads `file` at LINE, as an agent's read tool reports it. */
function readingTurn(file: string): object {
  return {
    prompts: [
      {
        steps: [
          {
            update: {
              sessionUpdate: 'tool_call',
              toolCallId: 'follow-read',
              title: `Read ${path.basename(file)}`,
              kind: 'read',
              status: 'in_progress',
              locations: [{ path: file, line: LINE }],
            },
          },
          { toolUpdate: { id: 'follow-read', status: 'completed', text: 'line 12 of the file' } },
          { text: 'Read it.' },
        ],
      },
    ],
  };
}

/** The text editors showing `file`, by any group's active tab or a visible editor. */
function shown(file: string): { tab: boolean; editor: vscode.TextEditor | undefined } {
  const tab = vscode.window.tabGroups.all.some((g) => g.activeTab?.input instanceof vscode.TabInputText && g.activeTab.input.uri.fsPath === file);
  const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === file);
  return { tab, editor };
}

describe('follow the agent (reins.followAgent)', function () {
  this.timeout(90_000);
  let file: string;

  beforeEach(async () => {
    const folder = workspaceFolder().uri.fsPath;
    file = path.join(folder, `follow-me-${Date.now()}.ts`);
    fs.writeFileSync(file, Array.from({ length: 40 }, (_, i) => `export const line${i + 1} = ${i + 1};`).join('\n') + '\n');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  afterEach(async () => {
    await setting('followAgent', undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(file, { force: true });
    await resetReins();
  });

  // Run in the host on 2026-12-02 (`REINS_SKIP_UI=1 REINS_TEST_GREP='follow the agent' node test/host/run.mjs`):
  // both passed. Sabotage (folderAgent.ts without its `d.add(followAgent(...))` line), this printed:
  //   1) on: the file a tool call names opens at its line:
  //      Error: timed out after 15000 ms waiting for the followed file shown in an editor
  // (and "off" still passed).
  it('on: the file a tool call names opens at its line', async () => {
    await setting('followAgent', true);
    const agent = await addAgent(readingTurn(file));
    await useAgent(agent);
    const result = await send('read the file');
    assert.equal(result.status, 'completed');
    await waitFor('the followed file shown in an editor', () => shown(file).editor !== undefined && shown(file).tab, 15_000);
    const { editor } = shown(file);
    assert.equal(editor!.selection.active.line, LINE - 1, 'the cursor on the tool call’s line');
    const visible = editor!.visibleRanges.some((r) => r.contains(new vscode.Position(LINE - 1, 0)));
    assert.ok(visible, `line ${LINE} in view (visible: ${JSON.stringify(editor!.visibleRanges)})`);
  });

  it('off: the editor does not move', async () => {
    await setting('followAgent', false);
    const agent = await addAgent(readingTurn(file));
    await useAgent(agent);
    // The file the user is in: it stays the one shown, its cursor where it was.
    const readme = vscode.Uri.joinPath(workspaceFolder().uri, 'README.md');
    const before = await vscode.window.showTextDocument(readme, { preview: false });
    const where = before.selection.active;
    const result = await send('read the file');
    assert.equal(result.status, 'completed');
    // The follow would have been asked for with the tool call, before the turn's answer: give
    // its editor time to show up before saying it did not.
    await sleep(1_500);
    const { tab, editor } = shown(file);
    assert.ok(!tab && !editor, `the file was opened (tab ${tab}, editor ${editor !== undefined})`);
    const still = shown(readme.fsPath).editor;
    assert.ok(still && shown(readme.fsPath).tab, 'the README is no longer shown');
    assert.ok(still.selection.active.isEqual(where), 'the README’s cursor moved');
  });
});
