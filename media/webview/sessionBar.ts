// The header's session line: the current mode and model (each a button that opens its picker
// in the editor) and the context usage and cost. Hidden while the agent has said none of it.
import type { SessionView, WebviewToHost } from '../../src/shared/messages';
import { el, setAgentText } from './dom';
import { revealInvisibleText } from '../../src/shared/invisibleChars';
import { usageText } from './sessionModel';

export interface SessionBar {
  readonly el: HTMLElement;
  update(view: SessionView | undefined): void;
}

export function createSessionBar(post: (message: WebviewToHost) => void): SessionBar {
  const root = el('div', 'session-bar');
  root.hidden = true;

  const chip = (id: string, label: string, action: 'setMode' | 'selectModel') => {
    const b = el('button', 'session-chip');
    b.id = id;
    b.type = 'button';
    b.hidden = true;
    const name = el('span', 'session-chip-label', label);
    const value = el('span', 'session-chip-value');
    value.dir = 'auto';
    b.append(name, value);
    b.addEventListener('click', () => post({ type: 'action', action }));
    return { button: b, value };
  };
  const mode = chip('session-mode', 'Mode', 'setMode');
  const model = chip('session-model', 'Model', 'selectModel');
  const usage = el('span', 'session-usage');
  usage.id = 'session-usage';
  usage.hidden = true;
  root.append(mode.button, model.button, usage);

  return {
    el: root,
    update(view) {
      mode.button.hidden = !view?.mode;
      setAgentText(mode.value, view?.mode?.name ?? '');
      mode.button.title = view?.mode ? `Mode: ${revealInvisibleText(view.mode.name)} — click to change` : '';
      model.button.hidden = !view?.model;
      setAgentText(model.value, view?.model?.name ?? '');
      model.button.title = view?.model ? `Model: ${revealInvisibleText(view.model.name)} — click to change` : '';
      const text = usageText(view?.usage);
      usage.hidden = !text;
      usage.textContent = text ?? '';
      // The whole text too: a narrow panel cuts it (session.css).
      usage.title = text ? `${text}: context used / context window, and the session cost, as the agent reported them` : '';
      root.hidden = mode.button.hidden && model.button.hidden && usage.hidden;
    },
  };
}
