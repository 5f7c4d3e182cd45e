// What an empty transcript shows: who you are talking to, where, and the keys.
import type { PanelStatus } from '../../src/shared/messages';
import { agentText, el } from './dom';
import { icon } from './icons';

export interface EmptyState {
  readonly el: HTMLElement;
  update(status: PanelStatus): void;
}

export function createEmptyState(): EmptyState {
  const root = el('div', 'empty-state');
  root.hidden = true;
  const title = el('div', 'empty-title');
  const where = el('div', 'empty-where');
  const keys = el('div', 'empty-keys');
  keys.append(kbd('Enter'), text(' to send · '), kbd('Shift+Enter'), text(' for a new line · '), kbd('Esc'), text(' to stop'));
  root.append(icon('sparkle', 'empty-icon'), title, where, keys);

  return {
    el: root,
    update(s) {
      // The name is the user's (or a folder's) settings key: shown as the header shows it,
      // its bidi and zero-width characters as markers, isolated from "Ask".
      title.replaceChildren(text('Ask '), agentText('span', 'empty-agent', s.agentName || 'the agent'));
      where.textContent = s.folderName ? `It works in ${s.folderName}.` : '';
      root.classList.toggle('demo', s.demo);
    },
  };
}

function kbd(label: string): HTMLElement {
  return el('kbd', 'key', label);
}

function text(value: string): Text {
  return document.createTextNode(value);
}
