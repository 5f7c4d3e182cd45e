// PURE: a plan's items as the panel shows them. An agent says pending, in progress or completed
// (and, in ACP v2, cancelled);
// once the plan's turn has ended without the agent finishing it (a confirmed stop, a failure),
// what was pending or in progress will not be done in that turn: it is shown as stopped. Derived
// from the turn's end (the transcript applies it there), never from a flag kept beside the plan.
import type { PlanEntry } from '@agentclientprotocol/sdk';
import type { PlanItem } from '../shared/messages';

/** The agent's plan entries as panel items; `ended`: their turn has ended (a stopped turn's late plan). */
export function planItems(entries: readonly PlanEntry[], ended = false): PlanItem[] {
  const items = entries.map((e): PlanItem => ({ content: e.content, status: agentStatus(e.status), priority: e.priority }));
  return ended ? stopUnfinished(items) : items;
}

/** The items after their turn ended: pending and in-progress ones stopped; the same array when nothing changes. */
export function stopUnfinished(items: readonly PlanItem[]): PlanItem[] {
  if (!items.some(unfinished)) return items as PlanItem[];
  return items.map((item) => (unfinished(item) ? { ...item, status: 'stopped' } : item));
}

/**
 * The agent's status as the panel's: v2 adds `cancelled` (kept: the agent says so) and lets agents
 * send statuses of their own (`_…`) or of later versions: those are shown as to do, never as done.
 */
function agentStatus(status: unknown): PlanItem['status'] {
  return status === 'completed' || status === 'in_progress' || status === 'cancelled' ? status : 'pending';
}

function unfinished(item: PlanItem): boolean {
  return item.status === 'pending' || item.status === 'in_progress';
}
