// PURE: ACP v2's session updates that say what v1's said, in v1's shape, so that the transcript
// and the late-update fence (lateUpdates.ts) read one form. v2's `plan_update` carries a plan by
// `planId` with a `type`; its `items` plan is v1's `plan` (each update replaces the entries).
// Reins shows one plan per turn, so a second `planId` in one turn replaces the first one's
// checklist rather than adding a second. Other plan types (unstable in v2) are not shown.
// Anything else passes through as it came: v1 updates, and v2's that Reins reads as they are
// (`tool_call_update` creating its card, `state_update`).
import type { SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';

const TOOL_STATUSES: readonly unknown[] = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'];

export function v1Shape(update: SessionUpdate): SessionUpdate {
  const u = update as { sessionUpdate: string; plan?: unknown; status?: unknown };
  // v2's statuses are open: one of an agent's own (`_…`) or of a later version says nothing the
  // card can show, so the card keeps the status it had. `cancelled` is v2's and shown as such.
  if ((u.sessionUpdate === 'tool_call_update' || u.sessionUpdate === 'tool_call') && u.status != null && !TOOL_STATUSES.includes(u.status)) {
    const { status: _unknown, ...rest } = u;
    return rest as SessionUpdate;
  }
  if (u.sessionUpdate !== 'plan_update') return update;
  const plan = u.plan as { type?: unknown; entries?: unknown } | null | undefined;
  if (plan?.type !== 'items' || !Array.isArray(plan.entries)) return update;
  // The entries arrive unchecked, as v1's do (planItems.ts reads each status).
  const entries: unknown[] = plan.entries;
  return { sessionUpdate: 'plan', entries } as SessionUpdate;
}

/** ACP v2's `tool_call_content_chunk` (one content item appended to a tool call), if `update` is one. */
export function toolContentChunk(update: SessionUpdate): { toolCallId: string; content: ToolCallContent } | undefined {
  const u = update as { sessionUpdate: string; toolCallId?: unknown; content?: unknown };
  if (u.sessionUpdate !== 'tool_call_content_chunk' || typeof u.toolCallId !== 'string') return undefined;
  const content = u.content as { type?: unknown } | null | undefined;
  return typeof content?.type === 'string' ? { toolCallId: u.toolCallId, content: content as ToolCallContent } : undefined;
}
