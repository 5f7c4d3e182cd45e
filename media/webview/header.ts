// The panel header: the agent (a button that opens the agent picker, with the installed
// presets: reins.selectAgent), demo badge and note, folder, and the `#status` line.
import type { PanelStatus, WebviewToHost } from '../../src/shared/messages';
import { button, el, setAgentText } from './dom';
import { revealInvisibleText } from '../../src/shared/invisibleChars';
import { icon } from './icons';
import { busyText, statusLine } from './statusModel';

export interface Header {
  readonly el: HTMLElement;
  /** The phase's live region, placed outside the header: inside, the header read "Ready Ready". */
  readonly announcer: HTMLElement;
  update(status: PanelStatus): void;
}

export function createHeader(post: (message: WebviewToHost) => void): Header {
  const root = el('header', 'header');

  const titleRow = el('div', 'header-row');
  const picker = button('agent-picker', '', () => post({ type: 'action', action: 'selectAgent' }));
  picker.id = 'agent-picker';
  const name = el('span', 'agent-name', 'Reins');
  name.dir = 'auto';
  picker.append(name, icon('chevronDown', 'agent-picker-chevron'));
  const badge = el('span', 'badge demo-badge', 'DEMO');
  badge.hidden = true;
  const note = el('span', 'agent-note');
  note.dir = 'auto';
  note.hidden = true;
  const folder = el('span', 'folder');
  const folderName = el('span', 'folder-name');
  folder.append(icon('folder'), folderName);
  folder.hidden = true;
  titleRow.append(icon('sparkle', 'agent-icon'), picker, badge, note, el('span', 'spacer'), folder);

  const status = el('div', 'status tone-muted');
  status.id = 'status';
  const dot = el('span', 'status-dot');
  dot.setAttribute('aria-hidden', 'true');
  const statusText = el('span', 'status-text', 'Connecting…');
  status.append(dot, statusText);

  // Screen readers hear phase changes ("Working…", "Stop not confirmed"), not every tick
  // of the host's detail line ("cancel sent 1.2 s ago"). Kept outside #status so that
  // element's text is exactly what is shown, and outside the header (main.ts places it) so that
  // the header's text, as a screen reader reads it through, says the state once.
  const live = el('span', 'visually-hidden');
  live.setAttribute('aria-live', 'polite');

  root.append(titleRow, status);

  return {
    el: root,
    announcer: live,
    update(s) {
      setAgentText(name, s.agentName || 'Agent');
      picker.title = `${revealInvisibleText(s.agentName || 'Agent')}: switch to another agent…`;
      badge.hidden = !s.demo;
      badge.title = revealInvisibleText(s.agentNote ?? 'Demonstration agent');
      note.hidden = !s.agentNote;
      setAgentText(note, s.agentNote ?? '');
      note.title = revealInvisibleText(s.agentNote ?? ''); // its whole text where the header cuts it
      folder.hidden = !s.folderName;
      folderName.textContent = s.folderName;
      folder.title = s.folderName;

      // While a turn is busy, the transcript's end says so (busyText): one indicator, not two.
      status.hidden = busyText(s) !== undefined;
      const line = statusLine(s);
      // The line may hold the agent's name ("Starting <name>…"): its invisible characters as markers.
      setAgentText(statusText, line.text);
      status.title = revealInvisibleText(line.text);
      status.className = `status tone-${line.tone}`;
      if (live.textContent !== line.label) live.textContent = line.label;
    },
  };
}
