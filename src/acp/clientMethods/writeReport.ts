// What the panel says about each file the agent wrote. Writes need no approval, so a write to a
// place that changes what runs (a git hook, git's own config) or how the editor behaves (the
// workspace's .vscode files) is marked, and so is an existing file that git does not track
// (no diff, no undo from git). The git question is asked after the write has been answered,
// for many files in one `git ls-files`, so it never slows the agent down.
import { execFile } from 'node:child_process';
import type { FileMark, FileWriteView } from '../../shared/messages';
import { attachFileHooks } from './fileHooks';
import type { FileLimits, FileWrite, OpenDocuments } from './fs';

/**
 * What the folder conversation attaches to each runtime it wires: its limits, every write listed in
 * `sink` (the transcript), the editor's open documents, and what runs before each write (the
 * turn's checkpoint saves the file). Disposing it detaches them.
 */
export function watchFileAccess(
  runtime: object,
  sink: WriteSink,
  limits: () => Partial<FileLimits>,
  editor?: OpenDocuments,
  beforeWrite?: (real: string) => Promise<void>,
): { dispose(): void } {
  const reporter = new WriteReporter(sink);
  return attachFileHooks(runtime, { limits, onWrite: (write) => reporter.report(write), editor, beforeWrite });
}

/** Marks that follow from the path alone (`relative` is `/`-separated, as FileWrite has it). */
export function pathMarks(relative: string): FileMark[] {
  // Lower case: on case-insensitive disks .GIT/Hooks is .git/hooks; marking too much is harmless.
  const segments = relative.toLowerCase().split('/');
  if (segments[0] === '.git') return [segments[1] === 'hooks' && segments.length > 2 ? 'gitHook' : 'gitDir'];
  if (segments[0] === '.vscode' && segments.length > 1)
    return [segments.length === 2 && segments[1] === 'settings.json' ? 'workspaceSettings' : 'editorConfig'];
  return [];
}

/** Where the transcript keeps the list (Transcript.fileWritten / markFile). */
export interface WriteSink {
  fileWritten(row: FileWriteView): { id: string; first: boolean };
  markFile(id: string, path: string, mark: FileMark): void;
}

/** Which of `relatives` (under `root`) git does not track; undefined when git cannot say (no repository, no git). */
export type UntrackedCheck = (root: string, relatives: string[]) => Promise<Set<string> | undefined>;

/** Turns each FileWrite into a row of the turn's files entry, and marks untracked files when git answers. */
export class WriteReporter {
  private pending: { root: string; id: string; relative: string }[] = [];
  private running = false;

  constructor(
    private readonly sink: WriteSink,
    private readonly untracked: UntrackedCheck = gitUntracked,
  ) {}

  report(write: FileWrite): void {
    const { id, first } = this.sink.fileWritten({ path: write.relative, bytes: write.bytes, created: write.created, marks: pathMarks(write.relative) });
    // A file the write created is untracked by definition ("new" says so); ask git about each
    // other file once per turn.
    if (first && !write.created) {
      this.pending.push({ root: write.root, id, relative: write.relative });
      void this.drain();
    }
  }

  /** One git call for everything queued; writes meanwhile wait for the next. */
  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let head = this.pending[0]; head; head = this.pending[0]) {
        const root = head.root;
        const batch = this.pending.splice(0, 200);
        const mine = batch.filter((p) => p.root === root);
        this.pending.unshift(...batch.filter((p) => p.root !== root));
        const found = await this.untracked(
          root,
          mine.map((p) => p.relative),
        ).catch(() => undefined);
        for (const p of mine) if (found?.has(p.relative)) this.sink.markFile(p.id, p.relative, 'untracked');
      }
    } finally {
      this.running = false;
    }
  }
}

/**
 * `git ls-files` lists the tracked ones among the paths; the rest are untracked. Literal
 * pathspecs (a name may contain `*`), NUL-separated output (no quoting), and fsmonitor off: a
 * hook the agent may have just configured must not run because we asked.
 */
export const gitUntracked: UntrackedCheck = (root, relatives) =>
  new Promise((resolve) => {
    const args = ['-c', 'core.fsmonitor=false', '--literal-pathspecs', 'ls-files', '-z', '--', ...relatives];
    execFile('git', args, { cwd: root, timeout: 10_000, maxBuffer: 4 * 1024 * 1024, windowsHide: true }, (error, stdout) => {
      if (error) return resolve(undefined); // not a repository, or no git: no mark rather than a wrong one
      const tracked = new Set(stdout.split('\0').filter(Boolean));
      resolve(new Set(relatives.filter((r) => !tracked.has(r))));
    });
  });
