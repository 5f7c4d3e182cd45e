// Slash-command completion for the prompt box: while the input is `/` and the start of a
// name, the agent's commands (available_commands_update) that match are listed above the
// box; taking one puts `/name ` in the box. The list's keys and clicks: completionList.ts.
import { completionList } from './completionList';
import { agentText } from './dom';
import { completedInput, slashMatches, type SlashCommand } from './sessionModel';

export interface SlashCompletion {
  readonly el: HTMLElement;
  setCommands(commands: readonly SlashCommand[]): void;
}

export function attachSlashCompletion(input: HTMLTextAreaElement): SlashCompletion {
  let commands: readonly SlashCommand[] = [];
  const refresh = (): void => list.show(slashMatches(input.value, commands));

  const list = completionList<SlashCommand>(input, {
    id: 'slash-completion',
    className: 'slash-completion',
    label: 'Slash commands',
    idPrefix: 'slash-item-',
    itemClass: 'slash-item',
    fill(row, c) {
      row.append(agentText('span', 'slash-name', `/${c.name}`, 'ltr'), agentText('span', 'slash-description', c.description));
      if (c.hint) row.append(agentText('span', 'slash-hint', c.hint));
    },
    take(c) {
      input.value = completedInput(c);
      input.setSelectionRange(input.value.length, input.value.length);
      // The composer saves the draft and resizes on `input`.
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
    onInput: refresh,
  });

  return {
    el: list.el,
    setCommands(next) {
      if (next === commands) return;
      commands = next;
      if (document.activeElement === input) refresh();
    },
  };
}
