// A permission request: the agent's own options as buttons, reachable by keyboard (focus on the
// first when it appears, arrows move, Enter or Space answers), styled by their kind. The click
// answers at once (the choice marked) because the host may take a moment to confirm; the
// host's `resolved` then folds it into one line, also after a reload. Shown inside the card of
// the tool call it asks about (tool.ts), which shows what is being approved; standalone only
// when that card is not in the panel.
import type { TranscriptEntry } from '../../../src/shared/messages';
import { agentText, button, el, setAgentText } from '../dom';
import { icon } from '../icons';
import { answerLine } from '../cardModel';
import { isAllowOption } from '../statusModel';
import type { EntryView, RenderContext } from './types';

export type PermissionEntry = Extract<TranscriptEntry, { kind: 'permission' }>;

let titleIds = 0;

export interface PermissionBlock {
  readonly el: HTMLElement;
  update(entry: PermissionEntry): void;
  /** The option `optionId` clicked here, until the host resolves it. */
  readonly chosen: string | undefined;
  /** Focus the first option, if it still waits for an answer. */
  focus(): void;
}

/** The request's block: `nested` inside its tool card, the title is the card's. */
export function permissionBlock(entry: PermissionEntry, ctx: RenderContext, nested: boolean, onAnswer?: () => void): PermissionBlock {
  const root = el('div', `entry permission${nested ? ' nested' : ''}`);
  root.dataset.id = entry.id;
  root.setAttribute('role', 'group');
  let chosen: string | undefined;
  let current = entry;
  let buttons: HTMLButtonElement[] = [];

  const render = (req: PermissionEntry): void => {
    current = req;
    const answered = req.resolved !== undefined || chosen !== undefined;
    root.classList.toggle('answered', answered);
    const header = el('div', 'permission-header');
    // An ACP v2 request asks its own question (`question`): shown inside the card too.
    const title = nested && !req.question ? el('span', 'permission-title', 'Allow this?') : agentText('span', 'permission-title', req.title);
    title.id = `permission-title-${++titleIds}`;
    root.setAttribute('aria-labelledby', title.id);
    header.append(icon('shield', 'permission-icon'), title);

    if (req.resolved !== undefined) {
      // Answered: one line, the options gone.
      const line = answerLine(req);
      const answer = agentText('div', `permission-answer answer-${line.tone}`, line.text);
      buttons = [];
      root.replaceChildren(answer);
      return;
    }
    const options = el('div', 'permission-options');
    buttons = req.options.map((option, i) => {
      const b = button(`button ${isAllowOption(option) ? 'primary' : 'secondary'} option-${option.kind}`, '', () => {
        if (chosen !== undefined || current.resolved !== undefined) return;
        chosen = option.optionId;
        ctx.post({ type: 'permission', requestId: req.id, optionId: option.optionId });
        render(current);
        onAnswer?.();
      });
      setAgentText(b, option.name);
      b.dir = 'auto';
      b.dataset.optionId = option.optionId;
      b.dataset.kind = option.kind;
      b.disabled = answered;
      b.tabIndex = i === 0 ? 0 : -1; // one tab stop; arrows move within (roving tabindex)
      if (option.optionId === chosen) b.classList.add('chosen');
      return b;
    });
    options.append(...buttons);
    options.addEventListener('keydown', (event) => moveFocus(event, buttons));
    root.replaceChildren(header, ...askedAbout(req), options);
  };
  render(entry);

  return {
    el: root,
    update: render,
    get chosen() {
      return chosen;
    },
    focus() {
      buttons.find((b) => !b.disabled)?.focus();
    },
  };
}

/** A v2 request's supporting text and the command it asks to run (the agent's words: text only). */
function askedAbout(req: PermissionEntry): HTMLElement[] {
  const parts: HTMLElement[] = [];
  if (req.description) parts.push(agentText('div', 'permission-description', req.description));
  if (req.command) {
    parts.push(agentText('pre', 'permission-command', `$ ${req.command.command}`, 'ltr'));
    parts.push(agentText('div', 'permission-cwd', `in ${req.command.cwd}`, 'ltr'));
  }
  return parts;
}

/** Arrows, Home and End move between the options; Enter and Space are the buttons' own. */
function moveFocus(event: KeyboardEvent, buttons: HTMLButtonElement[]): void {
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  if (at < 0) return;
  const next =
    event.key === 'ArrowRight' || event.key === 'ArrowDown'
      ? (at + 1) % buttons.length
      : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
        ? (at + buttons.length - 1) % buttons.length
        : event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? buttons.length - 1
            : undefined;
  const from = buttons[at];
  const to = next === undefined ? undefined : buttons[next];
  if (!from || !to) return;
  event.preventDefault();
  from.tabIndex = -1;
  to.tabIndex = 0;
  to.focus();
}

/** A request whose tool card is not in the panel: its own entry, with its title. */
export function createPermissionView(entry: PermissionEntry, ctx: RenderContext): EntryView {
  // The block is the entry itself (class `entry permission`, data-id).
  const block = permissionBlock(entry, ctx, false, () => ctx.focusComposer?.());
  return {
    kind: 'permission',
    el: block.el,
    update(next) {
      if (next.kind === 'permission') block.update(next);
    },
    focus: () => block.focus(),
  };
}
