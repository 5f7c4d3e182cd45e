// The choice offered beside the input box when Enter is pressed while a turn runs and
// reins.whenBusy is `ask`: Queue (the default: Enter), Steer (where the agent can take it), Stop
// and Send, picked with the mouse, the number keys, the arrows and Enter; Escape closes it and
// the keyboard goes back to the text, which stays in the box. Which choices and their keys are
// busyModel.ts's.
import type { BusyChoice } from '../../src/shared/messages';
import { busyChoices, choiceForKey } from './busyModel';
import { el } from './dom';

export interface BusyChoiceBar {
  readonly el: HTMLElement;
  readonly isOpen: boolean;
  /** Show the choices; `chosen` with the pick, `dismissed` on Escape (the caller refocuses the box). */
  open(canSteer: boolean, chosen: (choice: BusyChoice) => void, dismissed: () => void): void;
  close(): void;
}

export function createBusyChoice(): BusyChoiceBar {
  const root = el('div', 'busy-choice');
  root.id = 'busy-choice';
  root.setAttribute('role', 'group');
  root.setAttribute('aria-label', 'A turn is running: what to do with your prompt');
  root.hidden = true;
  let handlers: { chosen: (choice: BusyChoice) => void; dismissed: () => void } | undefined;

  const buttons = (): HTMLButtonElement[] => [...root.querySelectorAll<HTMLButtonElement>('button.busy-option')];
  const close = (): void => {
    root.hidden = true;
    root.replaceChildren();
    handlers = undefined;
  };
  const pick = (choice: BusyChoice): void => {
    const chosen = handlers?.chosen;
    close();
    chosen?.(choice);
  };

  root.addEventListener('keydown', (event) => {
    if (!handlers || event.isComposing) return;
    const list = buttons();
    const at = list.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'Escape') {
      // Not a Stop: the panel's Escape stops the turn only when nothing else takes the key.
      event.preventDefault();
      event.stopPropagation();
      const dismissed = handlers.dismissed;
      close();
      dismissed();
      return;
    }
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      event.preventDefault();
      list[(at + (event.key === 'ArrowRight' ? 1 : list.length - 1)) % list.length]?.focus();
      return;
    }
    const choice =
      event.ctrlKey || event.metaKey || event.altKey ? undefined : choiceForKey(event.key, busyChoices(list.some((b) => b.dataset.choice === 'steer')));
    if (choice) {
      event.preventDefault();
      pick(choice);
    }
  });

  return {
    el: root,
    get isOpen() {
      return handlers !== undefined;
    },
    open(canSteer, chosen, dismissed) {
      handlers = { chosen, dismissed };
      const options = busyChoices(canSteer);
      const head = el('span', 'busy-choice-label', 'A turn is running. Your prompt:');
      const row = el('div', 'busy-choice-options');
      options.forEach((option, i) => {
        const b = el('button', `busy-option${i === 0 ? ' primary' : ''}`);
        b.type = 'button';
        b.dataset.choice = option.choice;
        b.title = `${option.description} (${option.key}${i === 0 ? ' or Enter' : ''})`;
        b.setAttribute('aria-keyshortcuts', i === 0 ? `${option.key} Enter` : option.key);
        b.append(el('span', 'busy-option-label', option.label), el('kbd', '', option.key));
        b.addEventListener('click', () => pick(option.choice));
        row.append(b);
      });
      const hint = el('span', 'busy-choice-hint');
      hint.append(el('kbd', '', 'Esc'), ' keep editing');
      root.replaceChildren(head, row, hint);
      root.hidden = false;
      buttons()[0]?.focus(); // Enter now picks the default
    },
    close,
  };
}
