// PURE parsing of git's -z outputs, and the small file-system steps both checkpoints share.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { FileChange } from './checkpoint';

/** `git diff-tree -z --name-status` output: status, NUL, path, NUL, … (no renames asked for). */
export function parseNameStatus(out: string): { status: FileChange['status']; path: string }[] {
  const parts = out.split('\0');
  const found: { status: FileChange['status']; path: string }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const code = parts[i]!.charAt(0); // i + 1 < length
    const file = parts[i + 1]!;
    if (!file) continue;
    // A: not in the checkpoint; D: gone since; M (content), T (type, a file became a link).
    found.push({ status: code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified', path: file });
  }
  return found;
}

/** `git ls-tree -z` output: "<mode> <type> <object>\t<path>" entries, NUL-separated. */
export function parseLsTree(out: string): { mode: string; path: string }[] {
  return out
    .split('\0')
    .filter((entry) => entry.includes('\t'))
    .map((entry) => {
      const tab = entry.indexOf('\t');
      return { mode: entry.slice(0, entry.indexOf(' ')), path: entry.slice(tab + 1) };
    });
}

/** `child` is `parent` or below it. */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** After an added file is removed: the folders it alone filled, up to (not including) `root`. */
export async function removeEmptyParents(file: string, root: string): Promise<void> {
  for (let dir = path.dirname(file); isInside(root, dir); dir = path.dirname(dir)) {
    try {
      await fsp.rmdir(dir);
    } catch {
      return; // not empty (or gone): stop climbing
    }
  }
}

/** Executable bits on or off, the others as the file has them. */
export async function setExecutable(file: string, executable: boolean): Promise<void> {
  const mode = (await fsp.stat(file)).mode & 0o7777;
  const next = executable ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
  if (next !== mode) await fsp.chmod(file, next);
}
