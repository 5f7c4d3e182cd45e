// The prompt right after a stop, checked the same way for every agent. Most agents answer it
// in step. claude-agent-acp 0.23.1 answers it one turn behind (README: "claude-agent-acp"): an
// immediate `end_turn` with zero usage and no content, while it goes on working on the prompt
// unseen. Reins must not report that as a normal, empty completion: either the answer the user
// gets is this prompt's own, or the runtime's result says it was out of step.
import * as assert from 'node:assert/strict';
import type { TurnResult } from '../../src/session/turnMachine';

/** The runtime's marker for an answer that belongs to the turn before (src/session/outOfStep.ts). */
export function flaggedOutOfStep(result: TurnResult): boolean {
  return result.kind === 'completed' && (result as { outOfStep?: boolean }).outOfStep === true;
}

/** Passes when `result` is this prompt's own answer (`expected`, from `chunks`), or when the
 *  runtime flagged it as out of step; fails on an unflagged empty or foreign answer. */
export function assertAnsweredAfterStop(result: TurnResult, chunks: string[], expected: string): void {
  if (flaggedOutOfStep(result)) return;
  const text = chunks.join('').trim();
  assert.ok(
    result.kind === 'completed' && result.stopReason === 'end_turn' && text === expected,
    `the prompt after the stop was answered ${JSON.stringify(result)} with ${JSON.stringify(text)} (expected ${JSON.stringify(expected)}, or the result flagged outOfStep)`,
  );
}
