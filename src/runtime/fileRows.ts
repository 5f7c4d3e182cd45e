// PURE: what the transcript (transcript.ts) makes of entries it is given, kept apart from its
// state: the rows of a turn's "Files written" entry (writes to one path make one row: the last
// size, created if the first write created it; a late mark, git saying the file is untracked,
// added to its row), and saved entries given ids of the transcript's own. Each returns new
// objects: the transcript's entries are frozen.
import type { FileMark, FileWriteView, TranscriptEntry } from '../shared/messages';
import { withoutUndefined } from '../util/withoutUndefined';

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

/**
 * `entries` (a saved transcript, or one kept across a restart), each with an id from `nextId`, so
 * that no id of a window before (a permission request's, counted from the start in each) can name
 * an entry from now. A request keeps pointing at its tool card under the card's new id; one whose
 * card was not kept points nowhere.
 */
export function renamedEntries(entries: readonly TranscriptEntry[], nextId: () => string): TranscriptEntry[] {
  const renamed = new Map(entries.map((entry) => [entry.id, nextId()]));
  return entries.map((entry) => {
    const id = renamed.get(entry.id)!; // every entry was named above
    if (entry.kind !== 'permission' && entry.kind !== 'elicitation') return { ...entry, id };
    return withoutUndefined({ ...entry, id, toolCallId: entry.toolCallId === undefined ? undefined : renamed.get(entry.toolCallId) });
  });
}
