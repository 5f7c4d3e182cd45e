// A tool call's edit as the rows of an inline line diff: removed and added lines with their
// numbers, unchanged lines only around the changes (the rest folded into "⋯ n unchanged
// lines"). Pure (jsdiff does the diffing), so that the rows are tested without a DOM.
import { diffLines, parsePatch } from 'diff';

type DiffRow = { kind: 'add' | 'del' | 'same'; text: string; oldLine?: number; newLine?: number } | { kind: 'fold'; count: number };

export interface InlineDiff {
  rows: DiffRow[];
  added: number;
  removed: number;
  /** Rows beyond the cap were left out (Open Diff shows them). */
  cut: boolean;
}

/** Unchanged lines kept around a change. */
const CONTEXT = 3;
/** Rows shown inline at most: a card is a summary, the diff editor is the review. */
const MAX_ROWS = 400;
/** Past this many edits, jsdiff gives up (undefined): too large to show inline. */
const MAX_EDIT_LENGTH = 5000;

/** The rows for `oldText` → `newText` (`oldText` undefined: a new file); undefined when too large. */
export function inlineDiff(oldText: string | undefined, newText: string): InlineDiff | undefined {
  const changes = diffLines(oldText ?? '', newText, { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) return undefined;
  const all: Exclude<DiffRow, { kind: 'fold' }>[] = [];
  let oldLine = 1;
  let newLine = 1;
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    for (const text of lines(change.value)) {
      if (change.added) {
        all.push({ kind: 'add', text, newLine: newLine++ });
        added++;
      } else if (change.removed) {
        all.push({ kind: 'del', text, oldLine: oldLine++ });
        removed++;
      } else {
        all.push({ kind: 'same', text, oldLine: oldLine++, newLine: newLine++ });
      }
    }
  }
  const rows = fold(all);
  return { rows: rows.slice(0, MAX_ROWS), added, removed, cut: rows.length > MAX_ROWS };
}

/**
 * The rows of one file's ACP v2 `git_patch` section (src/runtime/gitPatch.ts): its hunks with the
 * file's own line numbers, the lines between hunks folded (their count unknown: 0). Undefined
 * when it does not parse.
 */
export function inlinePatch(patch: string): InlineDiff | undefined {
  let hunks;
  try {
    hunks = parsePatch(patch)[0]?.hunks;
  } catch {
    return undefined;
  }
  if (!hunks) return undefined;
  const rows: DiffRow[] = [];
  let added = 0;
  let removed = 0;
  let nextOld = 1;
  for (const hunk of hunks) {
    // A file's start that the patch does not show, or the lines between two hunks.
    const skipped = hunk.oldStart - nextOld;
    if (skipped > 0) rows.push({ kind: 'fold', count: skipped });
    // jsdiff counts a side with no lines (`-0,0`, a new file) from the line after, as it numbers rows.
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      const text = line.slice(1);
      if (line.startsWith('+')) {
        rows.push({ kind: 'add', text, newLine: newLine++ });
        added++;
      } else if (line.startsWith('-')) {
        rows.push({ kind: 'del', text, oldLine: oldLine++ });
        removed++;
      } else if (line.startsWith(' ')) {
        rows.push({ kind: 'same', text, oldLine: oldLine++, newLine: newLine++ });
      }
    }
    nextOld = oldLine;
  }
  return { rows: rows.slice(0, MAX_ROWS), added, removed, cut: rows.length > MAX_ROWS };
}

/** "+3 −1" */
export function diffStat(diff: Pick<InlineDiff, 'added' | 'removed'>): string {
  return `+${diff.added} −${diff.removed}`;
}

function lines(value: string): string[] {
  const split = value.split('\n');
  if (split[split.length - 1] === '') split.pop(); // the newline that ends the last line
  return split;
}

/** Keeps CONTEXT unchanged lines either side of each change; longer runs become one fold row. */
function fold(all: Exclude<DiffRow, { kind: 'fold' }>[]): DiffRow[] {
  const near = all.map(() => false);
  all.forEach((row, i) => {
    if (row.kind === 'same') return;
    for (let j = Math.max(0, i - CONTEXT); j <= Math.min(all.length - 1, i + CONTEXT); j++) near[j] = true;
  });
  const out: DiffRow[] = [];
  let hidden = 0;
  all.forEach((row, i) => {
    if (near[i]) {
      if (hidden > 0) out.push({ kind: 'fold', count: hidden });
      hidden = 0;
      out.push(row);
    } else {
      hidden++;
    }
  });
  if (hidden > 0) out.push({ kind: 'fold', count: hidden });
  return out;
}
