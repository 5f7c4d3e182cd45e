// Slash-command completion for the prompt box: while the input is `/` and the start of a
// name, the agent's commands (available_commands_update) that match are listed above the
// box. Arrow keys move, Enter or Tab take one, Escape closes; a click takes one too.
// Its keydown listener is added before the composer's, so the Enter that takes a command
// does not also send the prompt, and the Escape that closes the list does not stop the turn.
import { el } from './dom';
import { completedInput, slashMatches, type SlashCommand } from './sessionModel';

export interface SlashCompletion {
  readonly el: HTMLElement;
  setCommands(commands: readonly SlashCommand[]): void;
}

export function attachSlashCompletion(input: HTMLTextAreaElement): SlashCompletion {
  let commands: readonly SlashCommand[] = [];
  let shown: SlashCommand[] = [];
  let active = 0;

  const list = el('ul', 'slash-completion');
  list.id = 'slash-completion';
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-label', 'Slash commands');
  list.hidden = true;

  const render = (): void => {
    list.replaceChildren();
    shown.forEach((c, i) => {
      const item = el('li', `slash-item${i === active ? ' active' : ''}`);
      item.id = `slash-item-${i}`;
      item.setAttribute('role', 'option');
      item.setAttribute('aria-selected', String(i === active));
      item.append(el('span', 'slash-name', `/${c.name}`), el('span', 'slash-description', c.description));
      if (c.hint) item.append(el('span', 'slash-hint', c.hint));
      // mousedown, not click: the input keeps its focus.
      item.addEventListener('mousedown', (event) => {
        event.preventDefault();
        take(c);
      });
      list.append(item);
    });
    list.hidden = shown.length === 0;
    if (shown.length > 0) {
      input.setAttribute('aria-activedescendant', `slash-item-${active}`);
      list.children[active]?.scrollIntoView({ block: 'nearest' });
    } else {
      input.removeAttribute('aria-activedescendant');
    }
  };

  const refresh = (): void => {
    shown = slashMatches(input.value, commands);
    active = Math.min(active, Math.max(0, shown.length - 1));
    render();
  };

  const close = (): void => {
    shown = [];
    render();
  };

  const take = (c: SlashCommand): void => {
    input.value = completedInput(c);
    input.setSelectionRange(input.value.length, input.value.length);
    close();
    // The composer saves the draft and resizes on `input`.
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };

  input.addEventListener('input', refresh);
  input.addEventListener('blur', close);
  input.addEventListener('keydown', (event) => {
    if (list.hidden || event.isComposing) return;
    const handled = () => {
      event.preventDefault();
      event.stopImmediatePropagation();
    };
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      active = (active + (event.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
      render();
      handled();
    } else if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
      take(shown[active]);
      handled();
    } else if (event.key === 'Escape') {
      close();
      handled();
    }
  });

  return {
    el: list,
    setCommands(next) {
      if (next === commands) return;
      commands = next;
      if (document.activeElement === input) refresh();
    },
  };
}
