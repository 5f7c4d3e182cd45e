// Undo This Turn's Changes in the real extension host: the scripted agent edits files (through
// fs/write_text_file and through its own tool processes) and is stopped; `reins.undoTurn` shows
// the diffs and restores the checkpoint taken before the prompt. In a git checkout (the index,
// refs and stash untouched) and outside git (only fs/* writes), with edits made by hand during the
// turn, and refused while a turn runs or its stop is unverified.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { UndoResult } from '../../src/api';
import { waitFor } from '../support/helpers';
import { addAgent, api, resetReins, send, setting, stop, useAgent, workspaceFolder } from './support';
import { stubWindow, type Stubbed } from './uiStubs';

const undoTurn = () => vscode.commands.executeCommand<UndoResult>('reins.undoTurn');
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });

/** Answer the undo's modal confirmation with `answer` (other messages as VS Code would). */
function answerUndo(answer: string | undefined): Stubbed {
  return stubWindow({
    showWarningMessage: (args, original) =>
      typeof args[0] === 'string' && /^Undo this turn's changes/.test(args[0]) ? Promise.resolve(answer) : original(...args),
    showInformationMessage: () => Promise.resolve(undefined),
  });
}

/** `reins.undoTurn` with its confirmation answered `answer`; `shown` holds what was asked (detailOf). */
async function undoAnswering(answer: string | undefined): Promise<{ result: UndoResult; shown: Stubbed }> {
  const shown = answerUndo(answer);
  try {
    return { result: await undoTurn(), shown };
  } finally {
    shown.restore();
  }
}

function detailOf(s: Stubbed): string {
  const call = (s.calls.showWarningMessage ?? []).find((args) => typeof args[0] === 'string' && /^Undo this turn's changes/.test(args[0]));
  assert.ok(call, 'the confirmation was shown');
  return (call[1] as { detail: string }).detail;
}

/** Diff tabs the undo opened: the checkpoint's text (a reins-diff: document) against the file. */
function undoDiffTabs(): string[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.scheme === 'reins-diff' && /before the turn/.test(t.label))
    .map((t) => t.label);
}

describe("undo: a stopped turn's changes", function () {
  this.timeout(180_000); // a shared machine: agent starts and git under load
  let ws: string;
  let dir: string;
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  const exists = (name: string) => fs.existsSync(path.join(dir, name));

  function freshFiles(): void {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'tracked.txt'), 'the original\n');
    fs.writeFileSync(path.join(dir, 'doomed.txt'), 'to be deleted\n');
    fs.writeFileSync(path.join(dir, 'untracked.txt'), 'mine\n');
    fs.writeFileSync(path.join(dir, 'hand.txt'), 'before my edit\n');
  }

  /** Send the prompt of `edits-then-stopped` and wait until its edits are on disk (the turn still runs). */
  async function turnThatEdits(): Promise<{ sent: Thenable<unknown> }> {
    const agent = await addAgent('edits-then-stopped');
    await useAgent(agent);
    const sent = send('edit some files');
    await waitFor('the turn edited the files', () => !exists('doomed.txt') && exists('made/new.txt') && read('untracked.txt').includes('appended'), 30_000);
    return { sent }; // wrapped: an async function returning the thenable would wait for the turn's end
  }

  before(() => {
    ws = workspaceFolder().uri.fsPath;
    dir = path.join(ws, 'undo');
  });

  afterEach(async () => {
    await resetReins();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(path.join(ws, '.git'), { recursive: true, force: true });
  });

  // Sabotage (FolderConversation.send without `await this.undo.beforePrompt()`), this printed in code-server:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
  //   + { reason: 'no prompt has been sent here yet', status: 'nothing' }
  //   - { files: ['undo/tracked.txt', 'undo/made/new.txt'], handEdited: [], status: 'undone' }
  it('outside git: the files the agent wrote through fs/write_text_file come back; what its tools did is said, not undone', async () => {
    fs.rmSync(path.join(ws, '.git'), { recursive: true, force: true });
    freshFiles();
    const { sent } = await turnThatEdits();
    assert.equal((await stop()).outcome, 'aborted');
    await sent;
    const { result, shown: s } = await undoAnswering('Undo Changes');
    assert.deepEqual(result, { status: 'undone', files: ['tracked.txt', 'made/new.txt'].map((f) => `undo/${f}`), handEdited: [] });
    assert.match(detailOf(s), /not a git checkout: only the files the agent wrote through the editor are restored/);
    assert.equal(read('tracked.txt'), 'the original\n');
    assert.ok(!exists('made'), 'the new file and the folder it alone filled are gone');
    assert.ok(!exists('doomed.txt'), "a tool's deletion is not in a files checkpoint");
  });

  it('in git: the diff per file, then every change since the prompt restored; the index, refs and stash untouched; refused while the turn runs', async () => {
    freshFiles();
    git(ws, 'init', '-q', '-b', 'main');
    git(ws, 'config', 'user.email', 'test@example.com');
    git(ws, 'config', 'user.name', 'test');
    git(ws, 'add', 'undo/tracked.txt', 'undo/doomed.txt', 'undo/hand.txt');
    git(ws, 'commit', '-q', '--allow-empty', '-m', 'before the agent');
    // The user's own work in progress: a staged change, and untracked.txt never added.
    fs.writeFileSync(path.join(dir, 'hand.txt'), 'staged by the user\n');
    git(ws, 'add', 'undo/hand.txt');
    const gitState = () =>
      [git(ws, 'status', '--porcelain=v1', '-uall'), git(ws, 'diff', '--cached'), git(ws, 'stash', 'list'), git(ws, 'for-each-ref')].join('--\n');
    const before = gitState();

    const { sent } = await turnThatEdits();
    // Sabotage (undoBlocked returning undefined), this printed in code-server (the undo ran mid-turn):
    //   AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: + 'undone' - 'refused'
    const { result: refused } = await undoAnswering('Undo Changes');
    assert.equal(refused.status, 'refused');
    assert.match((refused as { reason: string }).reason, /is running a turn/);
    assert.ok(exists('made/new.txt'), 'nothing was restored while the turn ran');

    assert.equal((await stop()).outcome, 'aborted');
    await sent;
    // Offered first after the stop: a notice with the button.
    const transcript = () => api().then((a) => a.state()?.transcript ?? []);
    await waitFor('the undo offer', async () => (await transcript()).some((e) => e.kind === 'notice' && e.actions?.some((a) => a.action === 'undoTurn')));

    const { result, shown: s } = await undoAnswering('Undo Changes');
    assert.equal(result.status, 'undone');
    assert.deepEqual([...(result as { files: string[] }).files].sort(), ['undo/doomed.txt', 'undo/made/new.txt', 'undo/tracked.txt', 'undo/untracked.txt']);
    assert.match(detailOf(s), /4 files go back/);
    assert.deepEqual(undoDiffTabs().sort(), [
      'undo/doomed.txt (before the turn ↔ deleted)',
      'undo/made/new.txt (before the turn ↔ now)',
      'undo/tracked.txt (before the turn ↔ now)',
      'undo/untracked.txt (before the turn ↔ now)',
    ]);
    assert.equal(read('tracked.txt'), 'the original\n');
    assert.equal(read('doomed.txt'), 'to be deleted\n');
    assert.equal(read('untracked.txt'), 'mine\n');
    assert.equal(read('hand.txt'), 'staged by the user\n');
    assert.ok(!exists('made'));
    assert.equal(gitState(), before, 'git sees what it saw before the prompt: index, refs, stash untouched');
  });

  it('edits made by hand during the turn: an unsaved one refuses the undo; a saved one is named, and "Keep My Files" keeps it', async () => {
    freshFiles();
    git(ws, 'add', '-A', 'undo');
    git(ws, 'commit', '-q', '--allow-empty', '-m', 'again');
    const { sent } = await turnThatEdits();
    // The user types into hand.txt while the agent works.
    const doc = await vscode.workspace.openTextDocument(path.join(dir, 'hand.txt'));
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), 'typed by hand\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.equal((await stop()).outcome, 'aborted');
    await sent;

    // Unsaved: undoing would write under the editor. Refused, nothing touched.
    const unsaved = answerUndo('Undo Changes');
    try {
      // hand.txt is not changed on disk yet, so it is not among the changes: save first to make it one.
      await doc.save();
      const edit2 = new vscode.WorkspaceEdit();
      edit2.insert(doc.uri, new vscode.Position(0, 0), 'more, unsaved\n');
      assert.ok(await vscode.workspace.applyEdit(edit2));
      const refused = await undoTurn();
      assert.equal(refused.status, 'refused');
      assert.match((refused as { reason: string }).reason, /undo\/hand\.txt has unsaved edits/);
    } finally {
      unsaved.restore();
    }
    assert.equal(read('tracked.txt'), "the agent's version\n", 'a refused undo touches nothing');
    await doc.save();

    const { result, shown: s } = await undoAnswering('Keep My Files');
    // Sabotage (HandEdits.has always false), this printed in code-server:
    //   AssertionError [ERR_ASSERTION]: The input did not match the regular expression
    //   /• undo\/hand\.txt \(changed back\) — you edited this file/. Input: '… • undo/hand.txt (changed back)\n …'
    assert.match(detailOf(s), /• undo\/hand\.txt \(changed back\) — you edited this file/);
    assert.match(detailOf(s), /"Keep My Files" leaves it as it is/);
    assert.equal(result.status, 'undone');
    assert.ok(!(result as { files: string[] }).files.includes('undo/hand.txt'));
    assert.equal(read('hand.txt'), 'more, unsaved\ntyped by hand\nbefore my edit\n', 'the hand-edited file is kept');
    assert.equal(read('tracked.txt'), 'the original\n');
  });

  it('refused while the stop is unverified; after Force Stop the undo runs', async () => {
    freshFiles();
    git(ws, 'add', '-A', 'undo');
    git(ws, 'commit', '-q', '--allow-empty', '-m', 'once more');
    await setting('settleTimeoutSeconds', 1);
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            { call: { method: 'fs/write_text_file', params: { sessionId: '${sessionId}', path: '${cwd}/undo/tracked.txt', content: 'unverified edit\n' } } },
            { hang: true },
          ],
          onCancel: 'never',
        },
      ],
    });
    await useAgent(agent);
    const sent = send('edit and never stop');
    await waitFor('the edit', () => read('tracked.txt') === 'unverified edit\n');
    const silence = stubWindow({ showWarningMessage: () => Promise.resolve(undefined) }); // the unverified stop's own offer
    try {
      assert.equal((await stop()).outcome, 'abort-unverified');
      await sent;
      // Sabotage (undoBlocked returning undefined), this printed in code-server (the confirmation
      // was shown and answered by the silenced dialogs):
      //   AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: + 'cancelled' - 'refused'
      const refused = await undoTurn();
      assert.equal(refused.status, 'refused');
      assert.match((refused as { reason: string }).reason, /not confirmed/);
      assert.equal(read('tracked.txt'), 'unverified edit\n');
    } finally {
      silence.restore();
    }
    await vscode.commands.executeCommand('reins.forceStop');
    assert.equal((await undoAnswering('Undo Changes')).result.status, 'undone');
    assert.equal(read('tracked.txt'), 'the original\n');
  });
});
