// Checkpoints (undo/checkpoint/) against real folders: a git checkout (the snapshot must not
// touch the index, branches, stash or HEAD), a subfolder of one, and a plain folder (files saved
// before the agent's first write). Plus the pure texts and the undo gate.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { takeCheckpoint } from '../../src/undo/checkpoint/takeCheckpoint';
import { parseLsTree, parseNameStatus } from '../../src/undo/checkpoint/paths';
import { undoBlocked, undoConfirmation } from '../../src/undo/checkpoint/undoText';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });

function repo(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'reins-cp-')));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@t');
  git(dir, 'config', 'user.name', 't');
  fs.writeFileSync(path.join(dir, 'tracked.txt'), 'tracked\n');
  fs.writeFileSync(path.join(dir, 'doomed.txt'), 'doomed\n');
  fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  fs.writeFileSync(path.join(dir, '.gitignore'), 'ignored/\n');
  fs.mkdirSync(path.join(dir, 'sub'));
  fs.writeFileSync(path.join(dir, 'sub', 'inner.txt'), 'inner\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

/** What the checkpoint must leave alone. */
function gitState(dir: string): string {
  return [
    git(dir, 'status', '--porcelain=v1', '-uall'),
    git(dir, 'diff', '--cached'),
    git(dir, 'stash', 'list'),
    git(dir, 'for-each-ref'),
    git(dir, 'rev-parse', 'HEAD'),
  ].join('\n--\n');
}

describe('checkpoints', function () {
  this.timeout(20_000); // real git on a shared machine
  const made: string[] = [];
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('git: tracked, staged, untracked, new, deleted and mode changes are shown and restored; the index, refs and stash are untouched', async () => {
    const dir = repo();
    made.push(dir);
    // The user's own state before the prompt: a staged change and an untracked file.
    fs.writeFileSync(path.join(dir, 'tracked.txt'), 'tracked, staged by the user\n');
    git(dir, 'add', 'tracked.txt');
    fs.writeFileSync(path.join(dir, 'untracked.txt'), 'mine, untracked\n');
    const before = gitState(dir);
    const cp = await takeCheckpoint(dir);
    assert.equal(cp.kind, 'git');
    assert.equal(gitState(dir), before, 'taking the checkpoint changed the index, refs, stash or HEAD');
    assert.match(git(dir, 'cat-file', '-t', cp.commit!), /commit/);

    // The turn: edits, a new file in a new folder, a deletion, an untracked file changed, a mode change, an ignored file.
    fs.writeFileSync(path.join(dir, 'tracked.txt'), 'agent was here\n');
    fs.mkdirSync(path.join(dir, 'made', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'made', 'deep', 'new.txt'), 'new\n');
    fs.rmSync(path.join(dir, 'doomed.txt'));
    fs.writeFileSync(path.join(dir, 'untracked.txt'), 'agent changed it\n');
    fs.chmodSync(path.join(dir, 'run.sh'), 0o644);
    fs.mkdirSync(path.join(dir, 'ignored'));
    fs.writeFileSync(path.join(dir, 'ignored', 'build.out'), 'x');

    const changes = await cp.changes();
    const seen = Object.fromEntries(changes.map((c) => [c.relative, c.status]));
    // Sabotage (snapshotTree without `add -A`: both snapshots are the user's index), this printed:
    //   AssertionError: Expected values to be strictly deep-equal: + {} - { 'doomed.txt': 'deleted', …
    assert.deepEqual(seen, {
      'doomed.txt': 'deleted',
      'made/deep/new.txt': 'added',
      'run.sh': 'modified',
      'tracked.txt': 'modified',
      'untracked.txt': 'modified',
    });
    assert.equal((await cp.original(changes.find((c) => c.relative === 'tracked.txt')!))?.toString(), 'tracked, staged by the user\n');
    assert.equal(gitState(dir).split('\n--\n')[1], before.split('\n--\n')[1], 'computing the changes touched the index');

    await cp.restore(changes);
    assert.equal(fs.readFileSync(path.join(dir, 'tracked.txt'), 'utf8'), 'tracked, staged by the user\n');
    assert.equal(fs.readFileSync(path.join(dir, 'doomed.txt'), 'utf8'), 'doomed\n');
    assert.equal(fs.readFileSync(path.join(dir, 'untracked.txt'), 'utf8'), 'mine, untracked\n');
    assert.ok(!fs.existsSync(path.join(dir, 'made')), 'the folders the new file alone filled are gone');
    assert.equal(fs.statSync(path.join(dir, 'run.sh')).mode & 0o111, 0o111);
    assert.ok(fs.existsSync(path.join(dir, 'ignored', 'build.out')), 'ignored files are in no checkpoint and are left alone');
    assert.equal(gitState(dir), before, 'after the undo, git sees exactly what it saw before the turn');
    assert.deepEqual(await cp.changes(), []);
  });

  it('git, folder below the top level: only the folder is covered', async () => {
    const dir = repo();
    made.push(dir);
    const cp = await takeCheckpoint(path.join(dir, 'sub'));
    assert.equal(cp.kind, 'git');
    fs.writeFileSync(path.join(dir, 'sub', 'inner.txt'), 'changed\n');
    fs.writeFileSync(path.join(dir, 'tracked.txt'), 'outside the folder\n');
    const changes = await cp.changes();
    assert.deepEqual(
      changes.map((c) => [c.relative, c.status]),
      [['inner.txt', 'modified']],
    );
    await cp.restore(changes);
    assert.equal(fs.readFileSync(path.join(dir, 'sub', 'inner.txt'), 'utf8'), 'inner\n');
    assert.equal(fs.readFileSync(path.join(dir, 'tracked.txt'), 'utf8'), 'outside the folder\n');
  });

  it('git, a repository with no commit yet', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'reins-cp-')));
    made.push(dir);
    git(dir, 'init', '-q');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    const cp = await takeCheckpoint(dir);
    fs.writeFileSync(path.join(dir, 'a.txt'), 'b\n');
    await cp.restore(await cp.changes());
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'a\n');
  });

  it('no git: the files written through fs/write_text_file, saved before their first write', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'reins-cp-plain-')));
    made.push(dir);
    fs.writeFileSync(path.join(dir, 'old.txt'), 'old\n', { mode: 0o640 });
    fs.writeFileSync(path.join(dir, 'untouched.txt'), 'untouched\n');
    const cp = await takeCheckpoint(dir);
    assert.equal(cp.kind, 'files');
    const old = path.join(dir, 'old.txt');
    const created = path.join(dir, 'notes', 'new.md');
    await cp.beforeWrite(old);
    fs.writeFileSync(old, 'first write\n');
    // Sabotage (beforeWrite saving every time, not only before the first write), this printed:
    //   AssertionError: Expected values to be strictly equal: + 'first write\n' - 'old\n'
    await cp.beforeWrite(old);
    fs.writeFileSync(old, 'second write\n');
    await cp.beforeWrite(created);
    fs.mkdirSync(path.dirname(created));
    fs.writeFileSync(created, 'new\n');
    await cp.beforeWrite(path.join(os.tmpdir(), 'elsewhere.txt')); // outside: never kept
    fs.writeFileSync(path.join(dir, 'untouched.txt'), 'changed by a tool, not through fs/*\n');
    const changes = await cp.changes();
    assert.deepEqual(changes.map((c) => [c.relative, c.status]).sort(), [
      ['notes/new.md', 'added'],
      ['old.txt', 'modified'],
    ]);
    await cp.restore(changes);
    assert.equal(fs.readFileSync(old, 'utf8'), 'old\n');
    assert.equal(fs.statSync(old).mode & 0o777, 0o640);
    assert.ok(!fs.existsSync(path.join(dir, 'notes')));
  });

  it('parses git -z outputs', () => {
    assert.deepEqual(parseNameStatus('M\0a b.txt\0A\0new\0D\0gone\0T\0link\0'), [
      { status: 'modified', path: 'a b.txt' },
      { status: 'added', path: 'new' },
      { status: 'deleted', path: 'gone' },
      { status: 'modified', path: 'link' },
    ]);
    assert.deepEqual(parseLsTree('100755 blob abc\trun.sh\x00120000 blob def\tlink\x00'), [
      { mode: '100755', path: 'run.sh' },
      { mode: '120000', path: 'link' },
    ]);
  });

  it('the undo gate: never while a turn runs or a stop is unverified, here or in the checkout', () => {
    const open = { open: true as const };
    assert.equal(undoBlocked({ turn: 'idle', agentName: 'a', gate: open }), undefined);
    assert.match(undoBlocked({ turn: 'running', agentName: 'a', gate: open })!, /running a turn/);
    assert.match(undoBlocked({ turn: 'stopping', agentName: 'a', gate: open })!, /running a turn/);
    assert.match(undoBlocked({ turn: 'unverified', agentName: 'a', gate: open })!, /not confirmed/);
    assert.match(undoBlocked({ turn: 'idle', agentName: 'a', gate: { open: false, why: 'running', holder: 'goose' } })!, /goose is running/);
    assert.match(undoBlocked({ turn: 'idle', agentName: 'a', gate: { open: false, why: 'unverified', holder: 'goose' } })!, /goose's stop/);
  });

  it('the confirmation names every file, and the ones edited by hand', () => {
    const { message, detail } = undoConfirmation('ws', 'files', [
      { path: '/ws/a', relative: 'a', status: 'modified', handEdited: true },
      { path: '/ws/b', relative: 'b', status: 'added', handEdited: false },
    ]);
    assert.equal(message, "Undo this turn's changes in ws?");
    assert.match(detail, /2 files go back/);
    assert.match(detail, /• a \(changed back\) — you edited this file/);
    assert.match(detail, /• b \(new, deleted again\)/);
    assert.match(detail, /You edited one of these files yourself since then \(a\)/);
    assert.match(detail, /not a git checkout/);
  });
});
