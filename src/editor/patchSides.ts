// PURE: the two whole files an ACP v2 `git_patch` section stands between, for Open Diff. The
// patch only holds its hunks; the file on disk holds one side: the new text once the agent wrote
// it (the patch taken back gives the old), or still the old (a pending permission, a rejected
// edit: the patch applied gives the new). Undefined when the file fits neither (changed since):
// the caller shows the hunks' lines alone.
import { applyPatch, parsePatch, reversePatch } from 'diff';

export function patchSides(patch: string, current: string | undefined): { oldText: string; newText: string } | undefined {
  let file;
  try {
    file = parsePatch(patch)[0];
  } catch {
    return undefined;
  }
  if (!file) return undefined;
  const text = current ?? '';
  const before = applyPatch(text, reversePatch(file));
  if (typeof before === 'string') return { oldText: before, newText: text };
  const after = applyPatch(text, file);
  if (typeof after === 'string') return { oldText: text, newText: after };
  return undefined;
}
