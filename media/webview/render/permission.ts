// A permission request: one button per option. The click answers at once (buttons
// disabled, the choice marked) because the host may take a moment to confirm; the
// host's `resolved` then makes it final ("Answered: …"), also after a reload.
import type { TranscriptEntry } from '../../../src/shared/messages';
import { button, el } from '../dom';
import { icon } from '../icons';
import { isAllowOption } from '../statusModel';
import { entryShell, type EntryView, type RenderContext } from './types';

type PermissionEntry = Extract<TranscriptEntry, { kind: 'permission' }>;

let titleIds = 0;

export function createPermissionView(entry: PermissionEntry, ctx: RenderContext): EntryView {
  const root = entryShell(entry);
  root.setAttribute('role', 'group');
  let chosen: string | undefined; // optionId clicked here, until the host resolves it

  const render = (req: PermissionEntry): void => {
    const answered = req.resolved !== undefined || chosen !== undefined;
    root.classList.toggle('answered', answered);
    root.replaceChildren();

    const header = el('div', 'permission-header');
    const title = el('span', 'permission-title', req.title);
    title.id = `permission-title-${++titleIds}`;
    root.setAttribute('aria-labelledby', title.id);
    header.append(icon('shield', 'permission-icon'), title);

    const options = el('div', 'permission-options');
    for (const option of req.options) {
      const b = button(`button ${isAllowOption(option) ? 'primary' : 'secondary'}`, option.name, () => {
        if (chosen !== undefined || req.resolved !== undefined) return;
        chosen = option.optionId;
        ctx.post({ type: 'permission', requestId: req.id, optionId: option.optionId });
        render(req);
      });
      b.dataset.optionId = option.optionId;
      b.dataset.kind = option.kind;
      b.disabled = answered;
      // After a reload only the host's `resolved` (the option's name) says which one it was.
      if (option.optionId === chosen || (chosen === undefined && option.name === req.resolved)) b.classList.add('chosen');
      options.append(b);
    }
    root.append(header, options);

    if (req.resolved !== undefined) {
      root.append(el('div', 'permission-answer', `Answered: ${req.resolved}`));
    }
  };
  render(entry);

  return {
    kind: 'permission',
    el: root,
    update(next) {
      if (next.kind === 'permission') render(next);
    },
  };
}
