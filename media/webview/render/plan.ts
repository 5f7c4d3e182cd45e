// The agent's plan as a checklist. The state is drawn by CSS from the item's class; a
// hidden word carries it for screen readers. Items its turn ended without are "stopped"
// (src/runtime/planItems.ts): a square, not a spinner; items the agent says it cancelled (ACP
// v2), a cross.
import type { PlanItem, TranscriptEntry } from '../../../src/shared/messages';
import { agentText, el, srOnly } from '../dom';
import { icon, type IconName } from '../icons';
import { planProgress } from '../statusModel';
import { entryShell, type EntryView } from './types';

type PlanEntry = Extract<TranscriptEntry, { kind: 'plan' }>;

const SPOKEN_STATE: Record<PlanItem['status'], string> = {
  pending: 'to do',
  in_progress: 'in progress',
  completed: 'done',
  cancelled: 'cancelled',
  stopped: 'stopped',
};

/** An item's mark as drawn: the icon in its box (none while to do or in progress) and the word spoken. */
export function planMark(status: PlanItem['status']): { icon: IconName | undefined; spoken: string } {
  return { icon: MARK_ICON[status], spoken: SPOKEN_STATE[status] };
}

const MARK_ICON: Partial<Record<PlanItem['status'], IconName>> = {
  completed: 'check',
  stopped: 'stop',
  cancelled: 'close',
};

export function createPlanView(entry: PlanEntry): EntryView {
  const root = entryShell(entry);

  const render = (plan: PlanEntry): void => {
    const header = el('div', 'plan-header');
    header.append(icon('checklist'), el('span', 'plan-title', 'Plan'), el('span', 'plan-progress', planProgress(plan.items)));

    const list = el('ul', 'plan-items');
    for (const item of plan.items) {
      const li = el('li', `plan-item status-${item.status}`);
      const check = el('span', 'plan-check');
      const mark = planMark(item.status);
      if (mark.icon) check.append(icon(mark.icon));
      li.append(check, agentText('span', 'plan-text', item.content), srOnly(` (${mark.spoken})`));
      if (item.priority === 'high') li.append(el('span', 'plan-priority', 'high'));
      list.append(li);
    }
    root.replaceChildren(header, list);
  };
  render(entry);

  return {
    kind: 'plan',
    el: root,
    update(next) {
      if (next.kind === 'plan') render(next);
    },
  };
}
