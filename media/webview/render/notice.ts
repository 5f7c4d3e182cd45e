// A message from Reins itself (not the agent): info, warning or error, with optional
// action buttons that the host maps to commands. Actions stay enabled: "Check again"
// may be needed more than once.
import type { TranscriptEntry } from '../../../src/shared/messages';
import { agentText, button, el } from '../dom';
import { icon } from '../icons';
import { entryShell, type EntryView, type RenderContext } from './types';

type NoticeEntry = Extract<TranscriptEntry, { kind: 'notice' }>;

export function createNoticeView(entry: NoticeEntry, ctx: RenderContext): EntryView {
  const root = entryShell(entry);

  const render = (notice: NoticeEntry): void => {
    root.className = `entry notice level-${notice.level}`;
    root.dataset.level = notice.level;
    const body = el('div', 'notice-body');
    body.append(agentText('div', 'notice-text', notice.text)); // may quote the agent (its error, its name)
    if (notice.actions?.length) {
      const actions = el('div', 'notice-actions');
      for (const { action, label, arg } of notice.actions) {
        const b = button('button secondary', label, () => ctx.post(arg === undefined ? { type: 'action', action } : { type: 'action', action, arg }));
        b.dataset.action = action;
        if (arg !== undefined) b.dataset.arg = arg;
        actions.append(b);
      }
      body.append(actions);
    }
    root.replaceChildren(icon(notice.level, 'notice-icon'), body);
  };
  render(entry);

  return {
    kind: 'notice',
    el: root,
    update(next) {
      if (next.kind === 'notice') render(next);
    },
  };
}
