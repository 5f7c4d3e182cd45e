// An agent that answers one turn behind after a cancel. claude-agent-acp 0.23.1 reads the
// cancelled turn's final result when the next prompt starts: that prompt is answered at once
// with `end_turn`, no content and a zero usage (its usage is counted per prompt), while the
// agent goes on working on it unseen, and from then on every answer belongs to the prompt
// before. Reins cannot take such an answer for the turn's end: the agent is not quiet.
import { knownRows } from './knownAgents';
import type { OutOfStepRecovery } from './knownAgents';

export interface TurnFacts {
  /** The turn before this one, in this session, was stopped (cancelled). */
  afterStop: boolean;
  stopReason: string;
  /** The prompt response's `usage`, as sent. */
  usage: unknown;
}

/** A usage object that says nothing was consumed: present, with numbers, all of them 0. */
function isZeroUsage(usage: unknown): boolean {
  if (!usage || typeof usage !== 'object') return false;
  const numbers = Object.values(usage as Record<string, unknown>).filter((v): v is number => typeof v === 'number');
  return numbers.length > 0 && numbers.every((n) => n === 0);
}

/**
 * The signature: right after a stopped turn, an `end_turn` that used no tokens. Usually it is
 * empty; after a second `session/cancel` sent while the agent was behind, it carried one stale
 * chunk (`slow 1 `) with the same zero usage (measured, test/agents/README.md), so content
 * alone does not clear it. A turn with real work always reports tokens.
 */
export function looksOutOfStep(t: TurnFacts): boolean {
  return t.afterStop && t.stopReason === 'end_turn' && isZeroUsage(t.usage);
}

const RECOVERIES: readonly unknown[] = ['resend', 'restart', 'none'] satisfies OutOfStepRecovery[];

/** The recovery for an agent: its settings entry wins (when it names one: it arrives unchecked); else the quirk table (knownAgents.ts); else tell the user only. */
export function outOfStepRecovery(agentInfo: { name?: string; version?: string } | undefined, configured?: unknown): OutOfStepRecovery {
  if (RECOVERIES.includes(configured)) return configured as OutOfStepRecovery;
  return knownRows(agentInfo).find((k) => k.outOfStep)?.outOfStep ?? 'none';
}
