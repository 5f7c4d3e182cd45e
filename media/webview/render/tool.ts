// A tool call: kind icon, title, status pill; its output (if any) folds out in a <pre>.
// Tool calls are updated many times (pending → in_progress → completed), so the view is
// rebuilt from the entry each time but keeps whether the user expanded the detail. A terminal
// the tool runs shows its live output below, always open, following the end of the output
// unless the user scrolled up in it. That output is the command's, untrusted: textContent only.
import type { TerminalOutputView, TranscriptEntry } from '../../../src/shared/messages';
import { el } from '../dom';
import { icon, toolIcon } from '../icons';
import { toolStatusLabel } from '../statusModel';
import { entryShell, type EntryView } from './types';

type ToolEntry = Extract<TranscriptEntry, { kind: 'tool' }>;

export function createToolView(entry: ToolEntry): EntryView {
  const root = entryShell(entry);
  let open = false;
  /** The terminal block's scroll position across rebuilds; `follow`: keep showing the end. */
  const scroll = { top: 0, follow: true };

  const render = (tool: ToolEntry): void => {
    root.dataset.status = tool.status;
    root.replaceChildren();

    const row = el(tool.detail ? 'summary' : 'div', 'tool-row');
    if (tool.detail) row.append(icon('chevron', 'chevron'));
    row.append(icon(toolIcon(tool.toolKind), 'tool-icon'));
    const title = el('span', 'tool-title', tool.title || tool.toolKind || 'Tool call');
    title.title = tool.title;
    row.append(title, statusPill(tool));

    let card: HTMLElement = row;
    if (tool.detail) {
      const details = el('details');
      details.open = open;
      details.addEventListener('toggle', () => (open = details.open));
      details.append(row, el('pre', 'tool-detail', tool.detail));
      card = details;
    }
    if (!tool.terminal) {
      card.classList.add('tool-card');
      root.append(card);
      return;
    }
    const box = el('div', 'tool-card');
    box.append(card, ...terminalBlock(tool.terminal, scroll));
    root.append(box);
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

function terminalBlock(t: TerminalOutputView, scroll: { top: number; follow: boolean }): HTMLElement[] {
  const pre = el('pre', 'tool-terminal', (t.truncated ? '…\n' : '') + t.text);
  pre.setAttribute('role', 'log');
  pre.setAttribute('aria-label', 'Terminal output');
  pre.tabIndex = 0;
  pre.addEventListener('scroll', () => {
    scroll.top = pre.scrollTop;
    scroll.follow = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
  });
  // Once it is in the document: only then does it have a height to scroll.
  requestAnimationFrame(() => (pre.scrollTop = scroll.follow ? pre.scrollHeight : scroll.top));
  return t.exited ? [pre, el('div', 'tool-terminal-exit', t.exited)] : [pre];
}

function statusPill(tool: ToolEntry): HTMLElement {
  const pill = el('span', `pill status-${tool.status}`);
  if (tool.status === 'in_progress') pill.append(el('span', 'spinner'));
  else if (tool.status === 'completed') pill.append(icon('check'));
  else if (tool.status === 'failed') pill.append(icon('error'));
  pill.append(el('span', 'pill-text', toolStatusLabel(tool.status)));
  return pill;
}
