// PURE: the rows of a turn's "Files written" entry (transcript.ts): writes to one path make one
// row (the last size, created if the first write created it), and a late mark (git says the file
// is untracked) added to its row. Each returns new arrays: the transcript's entries are frozen.
import type { FileMark, FileWriteView } from '../shared/messages';

/** `files` with write `row` merged in; `first`: the path is new to the list. */
export function withWrite(files: readonly FileWriteView[], row: FileWriteView): { files: FileWriteView[]; first: boolean } {
  const before = files.find((f) => f.path === row.path);
  if (!before) return { files: [...files, { ...row, marks: [...row.marks] }], first: true };
  const merged: FileWriteView = { path: row.path, bytes: row.bytes, created: before.created, marks: union(before.marks, row.marks) };
  return { files: files.map((f) => (f === before ? merged : f)), first: false };
}

/** `files` with `mark` added to `path`'s row; undefined when there is no such row or it has the mark. */
export function withMark(files: readonly FileWriteView[], path: string, mark: FileMark): FileWriteView[] | undefined {
  const row = files.find((f) => f.path === path);
  if (!row || row.marks.includes(mark)) return undefined;
  const marked = { ...row, marks: [...row.marks, mark] };
  return files.map((f) => (f === row ? marked : f));
}

function union(a: FileMark[], b: FileMark[]): FileMark[] {
  return [...a, ...b.filter((m) => !a.includes(m))];
}
