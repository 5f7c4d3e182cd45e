// fs/read_text_file and fs/write_text_file in the real extension host (issue 7 §6): the scripted
// agent sends the requests an agent could send, through the folder's real settings, and the
// record says what it was answered; the transcript lists what it wrote, with marks.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { events } from '../fixtures/scriptedAgent/records';
import type { TranscriptEntry } from '../../src/shared/messages';
import { addAgent, api, resetReins, send, setting, useAgent, workspaceFolder } from './support';
import { nth } from '../support/helpers';

const call = (method: 'fs/read_text_file' | 'fs/write_text_file', params: Record<string, unknown>) => ({
  call: { method, params: { sessionId: '${sessionId}', ...params } },
});

describe('fs: the agent stays inside the workspace', () => {
  let ws: string;
  let outside: string;
  /** A .vscode/settings.json that other suites left, put back after the test. */
  let savedSettings: string | undefined;
  const made: string[] = [];

  before(function () {
    if (process.platform === 'win32') this.skip(); // the link needs privileges there
    ws = workspaceFolder().uri.fsPath;
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'the secret');
    for (const [name, make] of [
      ['outside-link', () => fs.symlinkSync(outside, path.join(ws, 'outside-link'))],
      ['..hidden', () => fs.writeFileSync(path.join(ws, '..hidden'), 'dot dot')],
      ['big.txt', () => fs.writeFileSync(path.join(ws, 'big.txt'), 'x'.repeat(3000))],
    ] as const) {
      make();
      made.push(name);
    }
  });

  after(async () => {
    await resetReins();
    await setting('maxFileReadMegabytes', undefined);
    await setting('maxFileWriteMegabytes', undefined);
    if (!ws) return;
    for (const name of [...made, 'notes', '.git', '.vscode', 'big-out.txt']) fs.rmSync(path.join(ws, name), { recursive: true, force: true });
    // Other suites keep settings in the workspace (the agent picker may write there): put them back.
    if (savedSettings !== undefined) {
      fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
      fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), savedSettings);
      savedSettings = undefined;
    }
    fs.rmSync(outside, { recursive: true, force: true });
  });

  // Sabotage (workspacePath.ts taking path.resolve(requested) instead of the real path), this
  // test printed, in code-server:
  //   AssertionError [ERR_ASSERTION]: read through a link out
  //   + 'served: {"content":"the secret"}'
  //   - 'outside-workspace'
  it('refuses a link out, another session and oversized requests; serves ..hidden; lists the writes with marks', async () => {
    // The write below creates .vscode/settings.json: set aside one that other suites left.
    const settingsFile = path.join(ws, '.vscode', 'settings.json');
    savedSettings = fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile, 'utf8') : undefined;
    fs.rmSync(settingsFile, { force: true });
    await setting('maxFileReadMegabytes', 0.001); // about 1 KB: big.txt (3000 bytes) is too large
    await setting('maxFileWriteMegabytes', 0.001);
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            call('fs/read_text_file', { path: '${cwd}/outside-link/secret.txt' }),
            call('fs/write_text_file', { path: '${cwd}/outside-link/planted.txt', content: 'planted' }),
            call('fs/read_text_file', { path: '${cwd}/..hidden' }),
            call('fs/read_text_file', { path: '${cwd}/..hidden', sessionId: 'sess-elsewhere' }),
            call('fs/read_text_file', { path: '${cwd}/big.txt' }),
            call('fs/write_text_file', { path: '${cwd}/big-out.txt', content: 'y'.repeat(2000) }),
            call('fs/write_text_file', { path: '${cwd}/.git/hooks/pre-commit', content: '#!/bin/sh\necho hook\n' }),
            call('fs/write_text_file', { path: '${cwd}/.vscode/settings.json', content: '{}\n' }),
            call('fs/write_text_file', { path: '${cwd}/notes/plan.md', content: '# plan\n' }),
            call('fs/write_text_file', { path: '${cwd}/notes/plan.md', content: '# plan, longer\n' }),
            { text: 'done' },
          ],
        },
        { steps: [call('fs/write_text_file', { path: '${cwd}/notes/second.md', content: 'two' }), { text: 'again' }] },
      ],
    });
    await useAgent(agent);
    assert.deepEqual(await send('touch some files'), { status: 'completed', stopReason: 'end_turn' });

    const replies = events(agent.entries(), 'call-answered').map(
      (e) => e.reply as { result?: { content?: string }; error?: { code: number; message: string; data?: { reason?: string } } },
    );
    const reply = (i: number) => nth(replies, i, 'the answered calls');
    const reason = (i: number) => reply(i).error?.data?.reason ?? `served: ${JSON.stringify(reply(i).result)}`;
    assert.equal(replies.length, 10);
    assert.equal(reason(0), 'outside-workspace', 'read through a link out');
    assert.equal(reply(0).error?.code, -32602);
    assert.match(reply(0).error?.message ?? '', /outside the workspace folder/);
    assert.equal(reason(1), 'outside-workspace', 'write through a link out');
    assert.equal(fs.existsSync(path.join(outside, 'planted.txt')), false, 'nothing planted outside');
    assert.deepEqual(reply(2).result, { content: 'dot dot' }, '..hidden is a file inside');
    assert.equal(reason(3), 'wrong-session');
    assert.equal(reason(4), 'too-large');
    assert.match(reply(4).error!.message, /reins\.maxFileReadMegabytes/);
    assert.equal(reason(5), 'too-large');
    assert.match(reply(5).error!.message, /reins\.maxFileWriteMegabytes/);
    assert.equal(fs.existsSync(path.join(ws, 'big-out.txt')), false);
    for (const i of [6, 7, 8, 9]) assert.ok(reply(i).result !== undefined, `write ${i} served: ${reason(i)}`);
    assert.equal(fs.readFileSync(path.join(ws, '.git', 'hooks', 'pre-commit'), 'utf8'), '#!/bin/sh\necho hook\n');

    // This test's turns only: the transcript may still show earlier suites' turns (a files entry
    // of theirs made this "2 !== 1" in a full run).
    const files = (t: TranscriptEntry[]) =>
      t
        .slice(t.map((e) => e.kind === 'user' && e.text === 'touch some files').lastIndexOf(true))
        .filter((e): e is Extract<TranscriptEntry, { kind: 'files' }> => e.kind === 'files');
    let listed = files((await api()).state()!.transcript);
    assert.equal(listed.length, 1, `one "Files written" entry for the turn: ${JSON.stringify(listed)}`);
    assert.deepEqual(nth(listed, 0, 'listed').files, [
      { path: '.git/hooks/pre-commit', bytes: 20, created: true, marks: ['gitHook'] },
      { path: '.vscode/settings.json', bytes: 3, created: true, marks: ['workspaceSettings'] },
      { path: 'notes/plan.md', bytes: 15, created: true, marks: [] },
    ]);

    // The next turn gets its own list.
    assert.equal((await send('once more')).status, 'completed');
    listed = files((await api()).state()!.transcript);
    assert.equal(listed.length, 2);
    assert.deepEqual(nth(listed, 1, 'listed').files, [{ path: 'notes/second.md', bytes: 3, created: true, marks: [] }]);
  });
});

describe('fs: files open in the editor', () => {
  let ws: string;
  let outside: string;
  const BUFFER = 'buffer one\nbuffer two\nbuffer three\nbuffer four';

  const files = () => vscode.workspace.getConfiguration('files');

  before(async function () {
    if (process.platform === 'win32') this.skip(); // the link needs privileges there
    // In a browser (code-server) VS Code saves after a delay by default: the buffers must stay unsaved.
    await files().update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    ws = workspaceFolder().uri.fsPath;
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'the secret on disk');
    fs.symlinkSync(outside, path.join(ws, 'editor-link'));
    fs.writeFileSync(path.join(ws, 'open.txt'), 'disk one\ndisk two\n');
  });

  after(async () => {
    // Revert what is left unsaved first: closing a dirty editor would ask, and nobody answers here.
    for (const document of vscode.workspace.textDocuments.filter((d) => d.isDirty)) {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await files().update('autoSave', undefined, vscode.ConfigurationTarget.Global);
    await resetReins();
    if (!ws) return;
    for (const name of ['editor-link', 'open.txt', 'fresh']) fs.rmSync(path.join(ws, name), { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  /** Open `file` in an editor and change its text without saving. */
  async function editUnsaved(file: string, text: string): Promise<vscode.TextDocument> {
    const document = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(document);
    await editor.edit((b) => b.replace(document.validateRange(new vscode.Range(0, 0, document.lineCount, 0)), text));
    assert.ok(document.isDirty);
    return document;
  }

  // Sabotage (readTextFile not asking the editor), this test printed, in code-server:
  //   AssertionError: the unsaved buffer, not the disk  + content: 'disk one\ndisk two\n'
  // Sabotage (writeTextFile not asking the editor: straight to disk), it printed:
  //   + 'buffer one\nbuffer two\nbuffer three\nbuffer four'  - 'written by the agent\n'
  //   (the editor kept the user's buffer; the agent's write was not in it, nor in its Undo)
  it('reads an unsaved buffer (with line and limit), writes an open document undoably and saved, a closed file to disk; a link out stays refused', async () => {
    const document = await editUnsaved(path.join(ws, 'open.txt'), BUFFER);
    assert.equal(fs.readFileSync(path.join(ws, 'open.txt'), 'utf8'), 'disk one\ndisk two\n');
    // A document open outside the folder, reached through a link inside it: still refused.
    const secret = await editUnsaved(path.join(outside, 'secret.txt'), 'the secret, unsaved');
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            call('fs/read_text_file', { path: '${cwd}/open.txt' }),
            call('fs/read_text_file', { path: '${cwd}/open.txt', line: 2, limit: 2 }),
            call('fs/read_text_file', { path: '${cwd}/editor-link/secret.txt' }),
            call('fs/write_text_file', { path: '${cwd}/editor-link/secret.txt', content: 'planted' }),
            call('fs/write_text_file', { path: '${cwd}/open.txt', content: 'written by the agent\n' }),
            call('fs/write_text_file', { path: '${cwd}/fresh/deeper/closed.txt', content: 'on disk\n' }),
            { text: 'done' },
          ],
        },
      ],
    });
    await useAgent(agent);
    assert.deepEqual(await send('use the editor'), { status: 'completed', stopReason: 'end_turn' });

    const replies = events(agent.entries(), 'call-answered').map(
      (e) => e.reply as { result?: { content?: string }; error?: { code: number; data?: { reason?: string } } },
    );
    const reply = (i: number) => nth(replies, i, 'the answered calls');
    assert.equal(replies.length, 6);
    assert.deepEqual(reply(0).result, { content: BUFFER }, 'the unsaved buffer, not the disk');
    assert.deepEqual(reply(1).result, { content: 'buffer two\nbuffer three' }, 'line 2, limit 2 of the buffer');
    assert.equal(reply(2).error?.data?.reason, 'outside-workspace', 'an open document outside, read through a link');
    assert.equal(reply(3).error?.data?.reason, 'outside-workspace', 'an open document outside, written through a link');
    assert.equal(secret.getText(), 'the secret, unsaved');
    assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'the secret on disk');

    // The open document shows the write, and it is saved: the disk has what the agent wrote.
    assert.ok(reply(4).result, JSON.stringify(replies[4]));
    assert.equal(document.getText(), 'written by the agent\n');
    assert.equal(document.isDirty, false);
    assert.equal(fs.readFileSync(path.join(ws, 'open.txt'), 'utf8'), 'written by the agent\n');
    // A closed file: on disk, its folders made, and not opened.
    assert.ok(reply(5).result, JSON.stringify(replies[5]));
    assert.equal(fs.readFileSync(path.join(ws, 'fresh', 'deeper', 'closed.txt'), 'utf8'), 'on disk\n');
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.fsPath.endsWith('closed.txt')));

    const listed = (await api()).state()!.transcript.filter((e): e is Extract<TranscriptEntry, { kind: 'files' }> => e.kind === 'files');
    assert.deepEqual(
      listed.at(-1)?.files.map((f) => [f.path, f.created]),
      [
        ['open.txt', false],
        ['fresh/deeper/closed.txt', true],
      ],
    );

    // Undo in the editor takes the agent's write back: the buffer as the user left it.
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('undo');
    assert.equal(document.getText(), BUFFER);
  });
});
