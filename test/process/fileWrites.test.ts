// What the panel shows about the agent's writes (issue 7 §6): one "Files written" entry per
// turn, risky places marked, untracked files marked when git says so; and the streamed line
// reader that serves ranges of large files.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readAllBounded, readLineRange, sliceLines, TooLarge } from '../../src/acp/clientMethods/boundedRead';
import { diskFileAccess, type FileWrite } from '../../src/acp/clientMethods/fs';
import { attachFileHooks } from '../../src/acp/clientMethods/fileHooks';
import { gitUntracked, pathMarks, watchFileAccess, WriteReporter } from '../../src/acp/clientMethods/writeReport';
import { Transcript, type TranscriptOp } from '../../src/runtime/transcript';
import type { FileWriteView, TranscriptEntry } from '../../src/shared/messages';
import { filesSummary, formatBytes, markViews, needsLook } from '../../media/webview/filesModel';
import { nth } from '../support/helpers';

const write = (relative: string, over: Partial<FileWrite> = {}): FileWrite => ({
  root: '/ws',
  path: `/ws/${relative}`,
  relative,
  bytes: 10,
  created: false,
  ...over,
});
const filesEntries = (t: Transcript) => t.entries.filter((e): e is Extract<TranscriptEntry, { kind: 'files' }> => e.kind === 'files');
const tick = () => new Promise((r) => setImmediate(r));

describe('file writes: marks by path', () => {
  // Sabotage (pathMarks returning []), this test printed:
  //   AssertionError [ERR_ASSERTION]: .git/hooks/pre-commit
  //   + []
  //   - [
  //   -   'gitHook'
  //   - ]
  it('marks git hooks, other .git files, the workspace settings and other .vscode files', () => {
    const cases: [string, string[]][] = [
      ['.git/hooks/pre-commit', ['gitHook']],
      ['.GIT/Hooks/post-checkout', ['gitHook']], // case-insensitive disks
      ['.git/config', ['gitDir']],
      ['.git/hooks', ['gitDir']], // the folder's name itself is no hook
      ['.git', ['gitDir']], // a worktree's .git file says where the repository is
      ['.vscode/settings.json', ['workspaceSettings']],
      ['.vscode/tasks.json', ['editorConfig']],
      ['.vscode/sub/settings.json', ['editorConfig']],
      ['src/.git/hooks/x', []], // not the folder's own .git
      ['src/.vscode/settings.json', []],
      ['..hidden', []],
      ['README.md', []],
    ];
    for (const [relative, marks] of cases) assert.deepEqual(pathMarks(relative), marks, relative);
  });
});

describe('file writes: the turn\'s "Files written" entry', () => {
  it('one entry per turn, one row per file (last size, created if the first write created it), marks merged', () => {
    const t = new Transcript();
    t.user('first prompt');
    const a = t.fileWritten({ path: 'a.txt', bytes: 3, created: true, marks: [] });
    const b = t.fileWritten({ path: '.git/hooks/pre-commit', bytes: 20, created: false, marks: ['gitHook'] });
    const again = t.fileWritten({ path: 'a.txt', bytes: 7, created: false, marks: [] });
    assert.equal(a.id, b.id);
    assert.deepEqual([a.first, b.first, again.first], [true, true, false]);
    t.markFile(a.id, '.git/hooks/pre-commit', 'untracked');
    t.markFile(a.id, '.git/hooks/pre-commit', 'untracked'); // once
    assert.deepEqual(nth(filesEntries(t), 0, 'the files entries').files, [
      { path: 'a.txt', bytes: 7, created: true, marks: [] },
      { path: '.git/hooks/pre-commit', bytes: 20, created: false, marks: ['gitHook', 'untracked'] },
    ]);
    t.user('second prompt');
    const next = t.fileWritten({ path: 'a.txt', bytes: 1, created: false, marks: [] });
    assert.notEqual(next.id, a.id);
    assert.equal(next.first, true);
    assert.deepEqual(
      t.entries.map((e) => e.kind),
      ['user', 'files', 'user', 'files'],
    );
    t.clear();
    t.markFile(a.id, 'a.txt', 'untracked'); // a late git answer after a new session: ignored
    assert.deepEqual(t.entries, []);
  });

  it('a new list interrupts streamed text like a tool call; a longer list or a late mark does not', () => {
    const t = new Transcript();
    const ops: TranscriptOp[] = [];
    t.onOp((op) => ops.push(op));
    const chunk = (text: string) => t.apply({ sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
    chunk('Writing ');
    const { id } = t.fileWritten({ path: 'a', bytes: 1, created: true, marks: [] });
    chunk('then more ');
    t.fileWritten({ path: 'b', bytes: 1, created: true, marks: [] });
    t.markFile(id, 'a', 'untracked');
    chunk('and done.');
    assert.deepEqual(
      t.entries.map((e) => e.kind),
      ['agent', 'files', 'agent'],
    );
    assert.equal((t.entries[2] as { markdown: string }).markdown, 'then more and done.');
  });
});

describe('file writes: the reporter', () => {
  it('reports each write with its path marks, and asks git once per existing file; writes during a git call wait for one call', async () => {
    const t = new Transcript();
    const asked: string[][] = [];
    let release = () => {};
    const firstCall = new Promise<void>((r) => (release = r));
    const reporter = new WriteReporter(t, async (_root, relatives) => {
      asked.push(relatives);
      if (asked.length === 1) await firstCall;
      return new Set(relatives.filter((r) => r !== 'tracked.txt'));
    });
    t.user('go');
    reporter.report(write('tracked.txt'));
    reporter.report(write('.vscode/settings.json'));
    reporter.report(write('created.txt', { created: true }));
    reporter.report(write('tracked.txt', { bytes: 99 }));
    reporter.report(write('other.txt'));
    release();
    await tick();
    await tick();
    assert.deepEqual(asked, [['tracked.txt'], ['.vscode/settings.json', 'other.txt']], 'once per file; created files are not asked about');
    assert.deepEqual(nth(filesEntries(t), 0, 'the files entries').files, [
      { path: 'tracked.txt', bytes: 99, created: false, marks: [] },
      { path: '.vscode/settings.json', bytes: 10, created: false, marks: ['workspaceSettings', 'untracked'] },
      { path: 'created.txt', bytes: 10, created: true, marks: [] },
      { path: 'other.txt', bytes: 10, created: false, marks: ['untracked'] },
    ]);
  });

  it('git failing (no repository, no git) leaves no mark and no error', async () => {
    const t = new Transcript();
    const reporter = new WriteReporter(t, () => Promise.reject(new Error('git: not found')));
    reporter.report(write('x.txt'));
    await tick();
    assert.deepEqual(nth(nth(filesEntries(t), 0, 'the files entries').files, 0).marks, []);
  });

  it("watchFileAccess: a runtime's FileAccess uses the attached limits and lists its writes; detached, neither", async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-fw-'));
    try {
      const runtime = {};
      const t = new Transcript();
      const access = diskFileAccess(ws, { sessionId: () => 's', hooksOwner: runtime });
      const hooks = watchFileAccess(runtime, t, () => ({ maxWriteBytes: 4 }));
      await assert.rejects(access.writeTextFile({ sessionId: 's', path: path.join(ws, 'big.txt'), content: '12345' }), /maxFileWriteMegabytes/);
      await access.writeTextFile({ sessionId: 's', path: path.join(ws, 'ok.txt'), content: '1234' });
      assert.deepEqual(
        nth(filesEntries(t), 0, 'the files entries').files.map((f) => f.path),
        ['ok.txt'],
      );
      hooks.dispose();
      await access.writeTextFile({ sessionId: 's', path: path.join(ws, 'later.txt'), content: '12345' }); // default limits again
      assert.deepEqual(
        nth(filesEntries(t), 0, 'the files entries').files.map((f) => f.path),
        ['ok.txt'],
      );
      // A newer attachment is not removed by an older one's dispose.
      const newer = attachFileHooks(runtime, { limits: () => ({ maxWriteBytes: 1 }) });
      hooks.dispose();
      await assert.rejects(access.writeTextFile({ sessionId: 's', path: path.join(ws, 'x.txt'), content: '12' }), /too large/);
      newer.dispose();
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });

  // Sabotage (gitUntracked returning every path, i.e. the tracked filter removed), this test printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
  //   +   'src/tracked *.txt',
  //       'new file.txt',
  //       '.git/hooks/pre-commit'
  //       ':(oops).txt'
  // Sabotage (--literal-pathspecs removed: git failed on ':(oops).txt' as pathspec magic, so the
  // whole call had no answer), this test printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
  //   + []
  //   - [
  //   -   'new file.txt',
  //   -   '.git/hooks/pre-commit',
  //   -   ':(oops).txt'
  //   - ]
  it('gitUntracked asks the real git, with names taken literally', async function () {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-git-'));
    try {
      const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'pipe' });
      try {
        git('init', '-q');
      } catch {
        this.skip(); // no git here
      }
      fs.mkdirSync(path.join(repo, 'src'));
      fs.writeFileSync(path.join(repo, 'src', 'tracked *.txt'), 't');
      fs.writeFileSync(path.join(repo, 'src', 'tracked-other.txt'), 't');
      git('add', '.');
      git('commit', '-q', '-m', 'x');
      fs.writeFileSync(path.join(repo, 'new file.txt'), 'n');
      fs.writeFileSync(path.join(repo, '.git', 'hooks', 'pre-commit'), '#!/bin/sh');
      const names = ['src/tracked *.txt', 'new file.txt', '.git/hooks/pre-commit'];
      // A name git would read as pathspec magic (an error for the whole call) unless taken literally.
      if (process.platform !== 'win32') {
        fs.writeFileSync(path.join(repo, ':(oops).txt'), 'm');
        names.push(':(oops).txt');
      }
      const found = await gitUntracked(repo, names);
      assert.deepEqual([...(found ?? [])], names.slice(1));
      assert.equal(await gitUntracked(os.tmpdir(), ['x']), undefined, 'outside a repository: no answer');
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });
});

describe('file writes: the webview wording', () => {
  const row = (marks: FileWriteView['marks'], created = false): FileWriteView => ({ path: 'p', bytes: 2048, created, marks });
  it('labels, warnings and the summary', () => {
    assert.deepEqual(
      markViews(['untracked', 'gitHook']).map((m) => [m.label, m.warn]),
      [
        ['git hook', true],
        ['untracked', false],
      ],
    );
    assert.equal(needsLook(row(['untracked'])), false);
    assert.equal(needsLook(row(['workspaceSettings'])), true);
    assert.equal(filesSummary([row([]), row(['gitHook']), row(['editorConfig'])]), 'Files written: 3 (2 to check)');
    assert.equal(filesSummary([row([])]), 'Files written: 1');
    assert.deepEqual([formatBytes(12), formatBytes(2048), formatBytes(3 * 1024 * 1024)], ['12 B', '2.0 KB', '3.0 MB']);
  });
});

describe('bounded reads', () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-br-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const withFile = async <T>(text: string, f: (h: fsp.FileHandle) => Promise<T>): Promise<T> => {
    const file = path.join(dir, 'f.txt');
    fs.writeFileSync(file, text);
    const h = await fsp.open(file, 'r');
    try {
      return await f(h);
    } finally {
      await h.close();
    }
  };

  it('a streamed line range equals sliceLines on the whole text (tiny chunks, multi-byte characters)', async () => {
    const texts = ['', 'a', 'a\n', '\n\n', 'one\ntwo\nthree', 'one\ntwo\nthree\n', 'żółw\nłódź\n€uro\n\nend', 'x'.repeat(50) + '\n' + 'é'.repeat(30)];
    const ranges: [number | undefined, number | undefined][] = [
      [1, undefined],
      [2, undefined],
      [1, 1],
      [2, 2],
      [3, 5],
      [10, 1],
      [undefined, 2],
      [1, 100],
    ];
    for (const text of texts) {
      for (const [line, limit] of ranges) {
        for (const chunk of [1, 3, 7, 1024]) {
          const got = await withFile(text, (h) => readLineRange(h, Math.max(0, (line ?? 1) - 1), limit, 1 << 20, chunk));
          assert.equal(got, sliceLines(text, line, limit), `${JSON.stringify(text)} line=${line} limit=${limit} chunk=${chunk}`);
        }
      }
    }
  });

  // Sabotage (readAllBounded without its `total > maxBytes` check), this test printed:
  //   AssertionError [ERR_ASSERTION]: Missing expected rejection.
  it('a whole read stops once past the limit (a file that grew after the stat)', async () => {
    await assert.rejects(
      withFile('x'.repeat(5000), (h) => readAllBounded(h, 4096, 1000)),
      (e) => e instanceof TooLarge,
    );
    assert.equal(await withFile('x'.repeat(4096), (h) => readAllBounded(h, 4096, 1000)), 'x'.repeat(4096));
  });
});
