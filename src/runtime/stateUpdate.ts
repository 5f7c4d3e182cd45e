// PURE: the ACP v2 draft's `state_update` session update (the SDK's experimental/v2 schema:
// `running`, `requires_action`, `idle` with an optional stop reason), recognised under v1 too,
// and which turn an `idle` may speak for. v2 has no turn id on it: an `idle` belongs to the turn
// whose `running` (or `requires_action`) came after that turn's prompt was sent, so one that
// comes before (the earlier turn's, late) is never taken for the next turn.
import type { SessionNotification } from '@agentclientprotocol/sdk';

export type AgentState = { state: 'running' } | { state: 'requires_action' } | { state: 'idle'; stopReason?: string };

/** The state a `state_update` reports, or undefined for any other update (or an unknown state). */
export function agentState(notification: SessionNotification): AgentState | undefined {
  const update = notification.update as { sessionUpdate: string; state?: unknown; stopReason?: unknown };
  if (update.sessionUpdate !== 'state_update') return undefined;
  if (update.state === 'running' || update.state === 'requires_action') return { state: update.state };
  if (update.state !== 'idle') return undefined;
  // "Receivers treat an omitted, null, or malformed stopReason as the agent not reporting one."
  return typeof update.stopReason === 'string' ? { state: 'idle', stopReason: update.stopReason } : { state: 'idle' };
}

/** Which turn the agent said it is working on: set by `running`, read by `idle`. */
export class StateFence {
  private workingOn: number | undefined;

  /** The agent reported `running` / `requires_action` while `turnId` was the current turn. */
  working(turnId: number): void {
    this.workingOn = turnId;
  }

  /** The turn an `idle` speaks for, if it is `current`: only after `running` was reported for it. */
  idleFor(current: number | undefined): number | undefined {
    const turn = current !== undefined && this.workingOn === current ? current : undefined;
    if (turn !== undefined) this.workingOn = undefined; // one idle ends one stretch of work
    return turn;
  }
}
