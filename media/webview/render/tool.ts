// A tool call: kind icon, title, status pill; below it what the call touches and does: its
// edits as inline diffs (with Open Diff), its locations as links, its text output (folded), a
// terminal's live output, and the permission request that asks about it. Tool calls are updated
// many times (pending → in_progress → completed), so the card is rebuilt from the entry each
// time, keeping what the user opened, the terminal's scroll position and the permission's
// buttons (their focus). Everything shown is the agent's or the command's: textContent only.
import type { TerminalOutputView, TranscriptEntry } from '../../../src/shared/messages';
import { agentText, button, el, setPathText } from '../dom';
import { revealInvisibleText } from '../../../src/shared/invisibleChars';
import { appendTail, cutLabel } from '../../../src/shared/toolOutput';
import { icon, toolIcon } from '../icons';
import { locationLabel, toolPill } from '../cardModel';
import { diffBlock } from './diff';
import { elicitationBlock, type ElicitationBlock } from './elicitation';
import { permissionBlock, type PermissionBlock, type PermissionEntry } from './permission';
import { entryShell, type EntryView, type RenderContext } from './types';

type ToolEntry = Extract<TranscriptEntry, { kind: 'tool' }>;

export function createToolView(entry: ToolEntry, ctx: RenderContext): EntryView {
  const root = entryShell(entry);
  let open: boolean | undefined; // the user's choice; undefined: open while a permission waits
  /** The terminal block's scroll position across rebuilds; `follow`: keep showing the end. */
  const scroll = { top: 0, follow: true };
  let tool = entry;
  let permission: { entry: PermissionEntry; block: PermissionBlock } | undefined;
  /** Elicitations asked during this call, in the order they came. */
  const elicitations = new Map<string, ElicitationBlock>();

  const render = (): void => {
    const asking = [...elicitations.values()].some((b) => !b.el.classList.contains('answered'));
    const permitting = permission !== undefined && permission.entry.resolved === undefined && permission.block.chosen === undefined;
    const pill = toolPill(tool.status, permission?.entry, permission?.block.chosen, asking);
    root.dataset.status = pill.tone;
    root.classList.toggle('waiting', permitting || asking);
    const card = el('div', 'tool-card');

    const row = el(tool.detail ? 'summary' : 'div', 'tool-row');
    if (tool.detail) row.append(icon('chevron', 'chevron'));
    row.append(icon(toolIcon(tool.toolKind), 'tool-icon'));
    const title = agentText('span', 'tool-title', tool.title || tool.toolKind || 'Tool call');
    title.title = revealInvisibleText(tool.title);
    row.append(title, statusPill(pill));

    if (tool.detail) {
      // What the tool was asked (the command) or said: open while its permission waits.
      const details = el('details', 'tool-details');
      details.open = open ?? permitting;
      details.addEventListener('toggle', () => (open = details.open));
      details.append(row);
      if (tool.outputChars !== undefined) details.append(cutLine(tool.outputChars - tool.detail.length, tool.id, ctx, 'text'));
      details.append(agentText('pre', 'tool-detail', tool.detail, 'ltr'));
      card.append(details);
    } else {
      card.append(row);
    }
    if (tool.locations?.length) card.append(locationLinks(tool, ctx));
    tool.diffs?.forEach((diff, i) => card.append(diffBlock(diff, tool.id, i, ctx)));
    if (tool.terminal?.truncated) card.append(cutLine(tool.terminal.omittedBytes, tool.id, ctx, 'terminal'));
    if (tool.terminal) card.append(...terminalBlock(tool.terminal, scroll));
    // Moving the permission's buttons drops their focus: give it back to the same button.
    const asks = [...(permission ? [permission.block.el] : []), ...[...elicitations.values()].map((b) => b.el)];
    const focused = asks.some((a) => a.contains(document.activeElement)) ? (document.activeElement as HTMLElement) : undefined;
    card.append(...asks);
    root.replaceChildren(card);
    if (focused?.isConnected) focused.focus();
  };
  render();
  /** Output came since the card was drawn (`appendOutput`): drawn once, in the frame's flush. */
  let stale = false;

  return {
    kind: 'tool',
    el: root,
    update(next) {
      if (next.kind !== 'tool') return;
      tool = next;
      stale = false;
      render();
    },
    appendOutput(text, total) {
      // Only the tail is kept, so an output resent or streamed whole costs each update its own size.
      const detail = appendTail(tool.detail ?? '', text);
      tool = { ...tool, detail, outputChars: total > detail.length ? total : undefined };
      stale = true;
    },
    flush() {
      if (stale) render();
      stale = false;
    },
    attachPermission(next) {
      if (permission) permission.entry = next;
      else
        permission = {
          entry: next,
          block: permissionBlock(next, ctx, true, () => {
            render(); // the pill leaves "Waiting for you"
            ctx.focusComposer?.();
          }),
        };
      permission.block.update(next);
      render();
    },
    attachElicitation(next) {
      const block = elicitations.get(next.id);
      if (block) block.update(next);
      else
        elicitations.set(
          next.id,
          elicitationBlock(next, ctx, true, () => {
            render(); // the pill leaves "Waiting for you"
            ctx.focusComposer?.();
          }),
        );
      render();
    },
    focus: () => {
      const open = [...elicitations.values()].find((b) => !b.el.classList.contains('answered'));
      if (open) open.focus();
      else permission?.block.focus();
    },
  };
}

/**
 * "… 554.3 KB before this" (a terminal: "… 48.2 MB of earlier output", or "… earlier output" when
 * the size is not known) and Open Full Output: the card holds only the output's end.
 */
function cutLine(left: number | undefined, id: string, ctx: RenderContext, of: 'text' | 'terminal'): HTMLElement {
  const line = el('div', 'tool-output-cut', `${cutLabel(left, of)} `);
  line.append(button('link tool-full-output', 'Open Full Output', () => ctx.post({ type: 'openFullOutput', toolCallId: id })));
  return line;
}

function locationLinks(tool: ToolEntry, ctx: RenderContext): HTMLElement {
  const box = el('div', 'tool-locations');
  // A diff's file is its own link already; list the other places.
  const shown = new Set((tool.diffs ?? []).map((d) => d.path));
  for (const location of tool.locations ?? []) {
    if (shown.has(location.path) && location.line === undefined) continue;
    const link = button('link tool-location', '', () => ctx.post({ type: 'openLocation', path: location.path, line: location.line }));
    setPathText(link, locationLabel(location));
    link.title = `Open ${revealInvisibleText(location.path)}${location.line !== undefined ? ` at line ${location.line}` : ''}`;
    link.dataset.path = location.path;
    box.append(link);
  }
  box.hidden = box.childElementCount === 0;
  return box;
}

function terminalBlock(t: TerminalOutputView, scroll: { top: number; follow: boolean }): HTMLElement[] {
  const pre = agentText('pre', 'tool-terminal', (t.truncated ? '…\n' : '') + t.text, 'ltr');
  pre.setAttribute('role', 'log');
  pre.setAttribute('aria-label', 'Terminal output');
  pre.tabIndex = 0;
  pre.addEventListener('scroll', () => {
    scroll.top = pre.scrollTop;
    scroll.follow = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
  });
  // Once it is in the document: only then does it have a height to scroll.
  requestAnimationFrame(() => (pre.scrollTop = scroll.follow ? pre.scrollHeight : scroll.top));
  return t.exited ? [pre, agentText('div', 'tool-terminal-exit', t.exited)] : [pre];
}

function statusPill(pill: ReturnType<typeof toolPill>): HTMLElement {
  const span = el('span', `pill status-${pill.tone}`);
  if (pill.tone === 'in_progress') span.append(el('span', 'spinner'));
  else if (pill.tone === 'completed') span.append(icon('check'));
  else if (pill.tone === 'failed') span.append(icon('error'));
  else if (pill.tone === 'waiting') span.append(icon('shield'));
  span.append(el('span', 'pill-text', pill.label));
  return span;
}
