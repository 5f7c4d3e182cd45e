// A tool call's edit, inline: the file as a link (opens it), "+3 −1", Open Diff (VS Code's diff
// editor), and the changed lines with a little context. The texts are the agent's: textContent
// only.
import type { ToolDiffView } from '../../../src/shared/messages';
import { agentText, button, el, setPathText } from '../dom';
import { revealInvisibleText } from '../../../src/shared/invisibleChars';
import { diffStat, inlineDiff, inlinePatch } from '../diffModel';
import { locationLabel } from '../cardModel';
import type { RenderContext } from './types';

export function diffBlock(diff: ToolDiffView, toolCallId: string, index: number, ctx: RenderContext): HTMLElement {
  const root = el('div', 'tool-diff');
  const header = el('div', 'tool-diff-header');
  const file = button('link tool-file', '', () => ctx.post({ type: 'openLocation', path: diff.path }));
  setPathText(file, locationLabel({ path: diff.path }));
  file.title = `Open ${revealInvisibleText(diff.path)}`;
  // An ACP v2 patch is drawn as its hunks (its texts are only their lines); else the two texts compared.
  const rows = diff.tooLarge ? undefined : ((diff.patch !== undefined ? inlinePatch(diff.patch) : undefined) ?? inlineDiff(diff.oldText, diff.newText));
  const open = button('button secondary open-diff', 'Open Diff', () => ctx.post({ type: 'openDiff', toolCallId, index }));
  open.title = `Compare ${revealInvisibleText(diff.path)} before and after in the diff editor`;
  header.append(file);
  if (diff.oldText === undefined && !diff.tooLarge) header.append(el('span', 'tool-diff-new', 'new file'));
  if (rows) header.append(el('span', 'tool-diff-stat', diffStat(rows)));
  header.append(el('span', 'spacer'), open);
  root.append(header);

  if (!rows) {
    root.append(el('div', 'tool-diff-note', 'Too large to show here: Open Diff shows it.'));
    return root;
  }
  const table = el('div', 'tool-diff-lines');
  table.setAttribute('role', 'table');
  table.setAttribute('aria-label', `Changes to ${revealInvisibleText(diff.path)}`);
  for (const row of rows.rows) {
    if (row.kind === 'fold') {
      table.append(el('div', 'diff-row fold', `⋯ ${row.count} unchanged line${row.count > 1 ? 's' : ''}`));
      continue;
    }
    const line = el('div', `diff-row ${row.kind}`);
    line.setAttribute('role', 'row');
    line.append(
      el('span', 'diff-num', row.oldLine?.toString() ?? ''),
      el('span', 'diff-num', row.newLine?.toString() ?? ''),
      el('span', 'diff-sign', row.kind === 'add' ? '+' : row.kind === 'del' ? '−' : ' '),
      agentText('span', 'diff-text', row.text, 'ltr'),
    );
    table.append(line);
  }
  if (rows.cut) table.append(el('div', 'diff-row fold', '⋯ more changes: Open Diff shows them all'));
  root.append(table);
  return root;
}
