// The git checkpoint: a snapshot of the working tree under the folder, written as a commit
// object over a temporary index (a copy of the user's, so that git's stat cache spares the
// hashing of unchanged files). The user's index, branches, stash and HEAD are never touched:
// every command that writes runs with GIT_INDEX_FILE pointing at the copy, and the commit is
// referenced by no ref (git gc keeps unreferenced objects for two weeks by default). Files git
// ignores are not in the snapshot, as they are in no commit.
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Checkpoint, FileChange } from './checkpoint';
import { isInside, parseNameStatus, parseLsTree, removeEmptyParents, setExecutable } from './paths';

/** Who the checkpoint's commit object names (commit-tree needs an identity; the user's may be unset). */
const IDENTITY = { GIT_AUTHOR_NAME: 'Reins', GIT_AUTHOR_EMAIL: 'reins@localhost', GIT_COMMITTER_NAME: 'Reins', GIT_COMMITTER_EMAIL: 'reins@localhost' };
/** Paths per `git ls-tree` call, well under any command-line limit. */
const PATHS_PER_CALL = 200;

export class GitCheckpoint implements Checkpoint {
  readonly kind = 'git';
  readonly takenAt = Date.now();

  private constructor(
    readonly folder: string,
    /** The folder's real path, and the checkout's top level. */
    private readonly real: string,
    private readonly top: string,
    private readonly indexFile: string,
    readonly commit: string,
  ) {}

  /** The snapshot of `folder` now, or undefined when it is in no git checkout (or git is missing). */
  static async take(folder: string, onNote: (message: string) => void): Promise<GitCheckpoint | undefined> {
    const real = await fsp.realpath(folder);
    let top: string;
    let indexFile: string;
    try {
      const [topLine, indexLine] = (await git(real, ['rev-parse', '--show-toplevel', '--git-path', 'index'])).toString('utf8').split('\n');
      if (!topLine || !indexLine) return undefined;
      top = await fsp.realpath(topLine);
      indexFile = path.resolve(real, indexLine);
    } catch {
      return undefined; // not a checkout, or no git: the files checkpoint instead
    }
    const tree = await snapshotTree(top, real, indexFile);
    const head = await git(top, ['rev-parse', '-q', '--verify', 'HEAD^{commit}']).then(
      (out) => out.toString('utf8').trim(),
      () => undefined, // a repository with no commit yet
    );
    const commit = (await git(top, ['commit-tree', tree, ...(head ? ['-p', head] : []), '-m', 'Reins: checkpoint before a prompt'], { env: IDENTITY }))
      .toString('utf8')
      .trim();
    onNote(`checkpoint of ${folder}: commit ${commit} (tree ${tree}) in ${top}`);
    return new GitCheckpoint(folder, real, top, indexFile, commit);
  }

  async changes(): Promise<FileChange[]> {
    const now = await snapshotTree(this.top, this.real, this.indexFile);
    const out = await git(this.top, [
      '--literal-pathspecs',
      'diff-tree',
      '-r',
      '-z',
      '--no-renames',
      '--name-status',
      `${this.commit}^{tree}`,
      now,
      '--',
      this.spec(),
    ]);
    return parseNameStatus(out.toString('utf8'))
      .map(({ status, path: relTop }) => {
        const abs = path.join(this.top, relTop);
        return { path: abs, relative: path.relative(this.real, abs).split(path.sep).join('/'), status };
      })
      .filter((c) => isInside(this.real, c.path));
  }

  async original(change: FileChange): Promise<Buffer | undefined> {
    if (change.status === 'added') return undefined;
    // --filters: the text as a checkout would write it (line endings, smudge filters).
    return git(this.top, ['cat-file', '--filters', `${this.commit}:${this.topRelative(change.path)}`]);
  }

  async restore(changes: readonly FileChange[]): Promise<void> {
    for (const c of changes) if (!isInside(this.real, c.path)) throw new Error(`not inside ${this.real}: ${c.path}`);
    // Added files go first: a file the agent put where a folder was must go before the folder's files come back.
    for (const c of changes.filter((c) => c.status === 'added')) {
      await fsp.rm(c.path, { force: true });
      await removeEmptyParents(c.path, this.real);
    }
    const back = changes.filter((c) => c.status !== 'added');
    const modes = await this.modes(back.map((c) => this.topRelative(c.path)));
    for (const c of back) {
      const mode = modes.get(this.topRelative(c.path));
      if (mode === undefined || mode === '160000') continue; // a submodule: its own checkout, not restored here
      await fsp.rm(c.path, { force: true });
      await fsp.mkdir(path.dirname(c.path), { recursive: true });
      if (mode === '120000') {
        const target = await git(this.top, ['cat-file', 'blob', `${this.commit}:${this.topRelative(c.path)}`]);
        await fsp.symlink(target.toString('utf8'), c.path);
        continue;
      }
      await fsp.writeFile(c.path, (await this.original(c)) ?? Buffer.alloc(0));
      await setExecutable(c.path, mode === '100755');
    }
  }

  async beforeWrite(): Promise<void> {
    // The snapshot already holds every file the agent can reach but ignored ones.
  }

  private async modes(paths: string[]): Promise<Map<string, string>> {
    const modes = new Map<string, string>();
    for (let i = 0; i < paths.length; i += PATHS_PER_CALL) {
      const out = await git(this.top, ['--literal-pathspecs', 'ls-tree', '-z', '--full-tree', this.commit, '--', ...paths.slice(i, i + PATHS_PER_CALL)]);
      for (const entry of parseLsTree(out.toString('utf8'))) modes.set(entry.path, entry.mode);
    }
    return modes;
  }

  private spec(): string {
    return path.relative(this.top, this.real).split(path.sep).join('/') || '.';
  }

  private topRelative(abs: string): string {
    return path.relative(this.top, abs).split(path.sep).join('/');
  }
}

/** The tree of the working tree under `real`, written through a copy of the user's index. */
async function snapshotTree(top: string, real: string, userIndex: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'reins-checkpoint-'));
  try {
    const indexFile = path.join(dir, 'index');
    await fsp.copyFile(userIndex, indexFile).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error; // no index yet: git starts an empty one
    });
    const env = { GIT_INDEX_FILE: indexFile };
    const spec = path.relative(top, real).split(path.sep).join('/') || '.';
    await git(top, ['--literal-pathspecs', 'add', '-A', '--ignore-errors', '--', spec], { env });
    return (await git(top, ['write-tree'], { env })).toString('utf8').trim();
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

function git(cwd: string, args: string[], options: { env?: Record<string, string> } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      // GIT_OPTIONAL_LOCKS=0: a `git status`-style refresh never takes the user's index lock.
      { cwd, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', ...options.env }, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args.join(' ')}: ${stderr.toString('utf8').trim() || error.message}`));
        else resolve(stdout);
      },
    );
  });
}
