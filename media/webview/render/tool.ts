// A tool call: kind icon, title, status pill; its output (if any) folds out in a <pre>.
// Tool calls are updated many times (pending → in_progress → completed), so the view is
// rebuilt from the entry each time but keeps whether the user expanded the detail.
import type { TranscriptEntry } from '../../../src/shared/messages';
import { el } from '../dom';
import { icon, toolIcon } from '../icons';
import { toolStatusLabel } from '../statusModel';
import { entryShell, type EntryView } from './types';

type ToolEntry = Extract<TranscriptEntry, { kind: 'tool' }>;

export function createToolView(entry: ToolEntry): EntryView {
  const root = entryShell(entry);
  let open = false;

  const render = (tool: ToolEntry): void => {
    root.dataset.status = tool.status;
    root.replaceChildren();

    const row = el(tool.detail ? 'summary' : 'div', 'tool-row');
    if (tool.detail) row.append(icon('chevron', 'chevron'));
    row.append(icon(toolIcon(tool.toolKind), 'tool-icon'));
    const title = el('span', 'tool-title', tool.title || tool.toolKind || 'Tool call');
    title.title = tool.title;
    row.append(title, statusPill(tool));

    if (!tool.detail) {
      row.classList.add('tool-card');
      root.append(row);
      return;
    }
    const details = el('details', 'tool-card');
    details.open = open;
    details.addEventListener('toggle', () => (open = details.open));
    details.append(row, el('pre', 'tool-detail', tool.detail));
    root.append(details);
  };
  render(entry);

  return {
    kind: 'tool',
    el: root,
    update(next) {
      if (next.kind === 'tool') render(next);
    },
  };
}

function statusPill(tool: ToolEntry): HTMLElement {
  const pill = el('span', `pill status-${tool.status}`);
  if (tool.status === 'in_progress') pill.append(el('span', 'spinner'));
  else if (tool.status === 'completed') pill.append(icon('check'));
  else if (tool.status === 'failed') pill.append(icon('error'));
  pill.append(el('span', 'pill-text', toolStatusLabel(tool.status)));
  return pill;
}
