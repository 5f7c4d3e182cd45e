// The agent's plan as a checklist. The state is drawn by CSS from the item's class; a
// hidden word carries it for screen readers. Items its turn ended without are "stopped"
// (src/runtime/planItems.ts): a square, not a spinner; items the agent says it cancelled (ACP
// v2), a cross.
import type { PlanItem, TranscriptEntry } from '../../../src/shared/messages';
import { agentText, el, srOnly } from '../dom';
import { icon } from '../icons';
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

export function createPlanView(entry: PlanEntry): EntryView {
  const root = entryShell(entry);

  const render = (plan: PlanEntry): void => {
    const header = el('div', 'plan-header');
    header.append(icon('checklist'), el('span', 'plan-title', 'Plan'), el('span', 'plan-progress', planProgress(plan.items)));

    const list = el('ul', 'plan-items');
    for (const item of plan.items) {
      const li = el('li', `plan-item status-${item.status}`);
      const check = el('span', 'plan-check');
      if (item.status === 'completed') check.append(icon('check'));
      else if (item.status === 'stopped') check.append(icon('stop'));
      else if (item.status === 'cancelled') check.append(icon('close'));
      li.append(check, agentText('span', 'plan-text', item.content), srOnly(` (${SPOKEN_STATE[item.status]})`));
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
