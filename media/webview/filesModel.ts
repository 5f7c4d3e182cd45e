// The "Files written" list's wording, kept apart from the DOM so that the unit tests can read
// it: what each mark says, which marks call for a look, and the one-line summary.
import type { FileMark, FileWriteView } from '../../src/shared/messages';

/** In the order they are shown. */
const MARKS: Record<FileMark, { label: string; title: string; warn: boolean }> = {
  gitHook: { label: 'git hook', title: 'git runs this file on commits, checkouts and pushes', warn: true },
  gitDir: { label: 'inside .git', title: "git's own files (its config can name hooks and commands to run)", warn: true },
  workspaceSettings: { label: 'workspace settings', title: 'changes how VS Code and its extensions behave in this folder', warn: true },
  editorConfig: { label: 'VS Code config', title: 'tasks and launch configurations run commands', warn: true },
  untracked: { label: 'untracked', title: 'git does not track this file: the change shows in no diff and cannot be undone from git', warn: false },
};

export interface MarkView {
  mark: FileMark;
  label: string;
  title: string;
  warn: boolean;
}

export function markViews(marks: FileMark[]): MarkView[] {
  return (Object.keys(MARKS) as FileMark[]).filter((m) => marks.includes(m)).map((mark) => ({ mark, ...MARKS[mark] }));
}

/** A file the user should look at: a mark that changes what runs or how the editor behaves. */
export function needsLook(file: FileWriteView): boolean {
  return file.marks.some((m) => MARKS[m]?.warn);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** "Files written: 3" or "Files written: 3 (1 to check)". */
export function filesSummary(files: FileWriteView[]): string {
  const flagged = files.filter(needsLook).length;
  return `Files written: ${files.length}${flagged ? ` (${flagged} to check)` : ''}`;
}
