// The checkpoint before each prompt in a git checkout (src/undo/checkpoint/gitCheckpoint.ts):
// what a prompt waits for, against the least git can do to snapshot a working tree, a bare
// `git write-tree` over a temporary copy of the index, in the same repository in the same run.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GitCheckpoint } from '../../src/undo/checkpoint/gitCheckpoint';
import { alternate, fmtSpread, median, record } from './harness';

// Reins runs five git processes (rev-parse, add -A over the copied index, write-tree, the HEAD
// lookup, commit-tree) where the baseline runs one, so a few times the baseline is its nature;
// the target guards against work that grows with the checkout (hashing every file again: the
// index copy keeps git's stat cache), which would show as tens of times at a few thousand files.
// Sabotage (snapshotTree starting from an empty index instead of the user's copy): this printed
// "checkpoint: git snapshot: Reins 519 ms | baseline 47.7 ms (git write-tree) | ratio 10.87× |
// target ratio ≤ 8 → FAIL" at 5,000 files (320 ms, 5.13× as it is).
const CHECKPOINT_MAX_RATIO = 8;

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, args: string[], env: NodeJS.ProcessEnv = GIT_ENV) => execFileSync('git', args, { cwd, env, encoding: 'utf8' });

/** A committed checkout of `files` files in `dirs` folders, a few of them changed since. */
function checkout(files: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-bench-checkpoint-'));
  for (let i = 0; i < files; i++) {
    const sub = path.join(dir, `d${i % 50}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, `f${i}.txt`), `file ${i}\n`.repeat(40));
  }
  git(dir, ['init', '-q']);
  git(dir, ['add', '-A']);
  git(dir, ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qm', 'base']);
  // What a turn leaves behind: edits and a new file, as the checkpoint before the next prompt sees them.
  for (let i = 0; i < 20; i++) writeFileSync(path.join(dir, `d${i % 50}`, `f${i}.txt`), `changed ${i}\n`);
  writeFileSync(path.join(dir, 'new.txt'), 'new\n');
  return dir;
}

export async function benchCheckpoint(files: number, rounds: number): Promise<void> {
  console.log(`\n8. Checkpoint: the git snapshot before a prompt, in a checkout of ${files} files`);
  const dir = checkout(files);
  try {
    const scratch = mkdtempSync(path.join(tmpdir(), 'reins-bench-index-'));
    const writeTree = () => {
      const index = path.join(scratch, 'index');
      copyFileSync(path.join(dir, '.git', 'index'), index);
      git(dir, ['write-tree'], { ...GIT_ENV, GIT_INDEX_FILE: index });
    };
    let commit = '';
    const take = async () => {
      const checkpoint = await GitCheckpoint.take(dir, () => {});
      if (!checkpoint) throw new Error(`no git checkpoint taken in ${dir}`);
      commit = checkpoint.commit;
    };
    const t = await alternate(rounds, { writeTree, take });
    rmSync(scratch, { recursive: true, force: true });
    // The user's index is untouched: git still sees the turn's edits as unstaged.
    const staged = git(dir, ['diff', '--cached', '--name-only']).trim();
    if (staged) throw new Error(`the checkpoint staged files in the user's index: ${staged}`);
    record({
      name: 'checkpoint: git snapshot',
      reins: fmtSpread(t.take),
      baseline: `git write-tree: ${fmtSpread(t.writeTree)}`,
      ratio: median(t.take) / median(t.writeTree),
      target: `ratio ≤ ${CHECKPOINT_MAX_RATIO}`,
      pass: median(t.take) / median(t.writeTree) <= CHECKPOINT_MAX_RATIO,
      note: `medians, ${rounds} runs each, alternating; ${files} files (21 changed since the last commit); commit ${commit.slice(0, 12)}, no ref, the index untouched`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
