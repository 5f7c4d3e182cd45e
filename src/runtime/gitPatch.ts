// PURE: ACP v2's diff content (tool-calls.mdx, "Diffs"): `changes` (the authoritative list of
// file operations) and an optional `patch` in `git_patch` format (one or more `diff --git`
// sections, absolute paths). A card shows one diff per file the patch covers, carrying that
// file's section (the panel draws its hunks with their own line numbers; Open Diff applies it to
// the file, editor/patchSides.ts) and, for whatever reads only old and new text, the hunks'
// lines as an excerpt. A change the patch does not cover (binary, a move, a deletion without
// text) is a location: a link to the file (the operation itself is not shown yet).
import { formatPatch, parsePatch, type StructuredPatch } from 'diff';
import type { ToolDiffView, ToolLocationView } from '../shared/messages';

/** A v2 diff content item, as it may arrive (unchecked). */
interface V2Diff {
  type: string;
  changes: unknown;
  patch?: unknown;
}

/** A content item in v2's shape (`changes`), not v1's (`path`, `oldText`, `newText`). */
export function isV2Diff(c: unknown): c is V2Diff {
  return typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'diff' && Array.isArray((c as { changes?: unknown }).changes);
}

/** The diffs and the locations one v2 diff item shows; `maxText`: a patch longer is not sent to the panel. */
export function v2DiffViews(c: V2Diff, maxText: number): { diffs: ToolDiffView[]; locations: ToolLocationView[] } {
  const text = patchText(c.patch);
  const diffs: ToolDiffView[] = [];
  if (text !== undefined) {
    let files: StructuredPatch[] = [];
    try {
      files = parsePatch(text);
    } catch {
      files = []; // not a patch after all: its changes are still listed below
    }
    for (const file of files) {
      const view = fileDiff(file, maxText);
      if (view) diffs.push(view);
    }
  }
  const covered = new Set(diffs.map((d) => d.path));
  const locations: ToolLocationView[] = [];
  for (const change of c.changes as unknown[]) {
    const path = changePath(change);
    if (path !== undefined && !covered.has(path)) locations.push({ path });
  }
  return { diffs, locations };
}

function patchText(patch: unknown): string | undefined {
  if (typeof patch !== 'object' || patch === null) return undefined;
  const { format, text } = patch as { format?: unknown; text?: unknown };
  // An unknown format (v2's enums are open) is not guessed at: its changes are listed instead.
  return format === 'git_patch' && typeof text === 'string' && text.length > 0 ? text : undefined;
}

function changePath(change: unknown): string | undefined {
  const path = (change as { path?: unknown } | null)?.path;
  return typeof path === 'string' && path ? path : undefined;
}

function fileDiff(file: StructuredPatch, maxText: number): ToolDiffView | undefined {
  const created = file.oldFileName === '/dev/null' || file.isCreate === true;
  const deleted = file.newFileName === '/dev/null' || file.isDelete === true;
  const path = stripPrefix(deleted ? file.oldFileName : file.newFileName);
  if (!path) return undefined;
  const section = formatPatch(file);
  if (section.length > maxText) return { path, newText: '', tooLarge: true };
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith(' ')) {
        oldLines.push(line.slice(1));
        newLines.push(line.slice(1));
      } else if (line.startsWith('-')) oldLines.push(line.slice(1));
      else if (line.startsWith('+')) newLines.push(line.slice(1));
    }
  }
  const joined = (lines: string[]) => (lines.length > 0 ? `${lines.join('\n')}\n` : '');
  const view: ToolDiffView = { path, newText: joined(newLines), patch: section };
  return created ? view : { ...view, oldText: joined(oldLines) };
}

/** Git's `a/` and `b/` prefixes, where an agent left them (v2 asks for absolute paths). */
function stripPrefix(name: string | undefined): string | undefined {
  if (!name || name === '/dev/null') return undefined;
  return /^[ab]\/(?=\/)/.test(name) ? name.slice(2) : name;
}
