// The prompt right after a stop, checked the same way for every agent. Most agents answer it
// in step. claude-agent-acp 0.23.1 answers it one turn behind (README: "claude-agent-acp"): an
// immediate `end_turn` with zero usage and no content, while it goes on working on the prompt
// unseen. Reins must not report that as a normal, empty completion: either the answer the user
// gets is this prompt's own, or the runtime's result says it was out of step.
//
// Each prompt carries a tag, which the model imitation echoes, so the model's own log says
// which prompt a request served and when its reply ended. That tells "in step, but the agent's
// text came late or never" (OpenCode under load, below) from "one turn behind" (claude), whose
// empty answer comes before the model is even asked for the prompt.
import * as assert from 'node:assert/strict';
import type { TurnResult } from '../../src/runtime/turnMachine';
import type { MemoryLogger } from '../../src/util/logger';
import { nth, waitFor } from '../support/helpers';
import { PLAIN_ANSWER } from './fakeModel';
import { measured, model } from './harness';

/** The runtime's marker for an answer that belongs to the turn before (src/runtime/outOfStep.ts). */
export function flaggedOutOfStep(result: TurnResult): boolean {
  return result.kind === 'completed' && (result as { outOfStep?: boolean }).outOfStep === true;
}

/** A prompt whose answer can be told apart from any other's: `PLAIN … tag=<tag>`. */
export const taggedPrompt = (what: string, tag: string) => `PLAIN ${what} tag=${tag}`;

/** How long the agent's text may trail its answer. OpenCode streams text over its own event bus
 *  and answers the prompt on another path; under load the text can come after the answer. */
const TRAIL_MS = 3000;

/**
 * Passes when `result` is this prompt's own answer (`PLAIN_ANSWER tag=<tag>`, from `chunks`,
 * which may trail the answer by up to TRAIL_MS), or when the runtime flagged it as out of step,
 * or when the agent answered in step but its text never reached the client: the model was asked
 * for this very prompt and its reply ended before the agent's `end_turn` (the agent's own loss,
 * printed with the timings). Fails on an unflagged answer that came before the model was asked,
 * and on anything foreign, with the trace of the turn.
 */
export async function assertAnsweredAfterStop(
  agent: string,
  result: TurnResult,
  l: { chunks: string[]; log: MemoryLogger; turnEndedAt: number },
  tag: string,
): Promise<void> {
  const answeredAt = l.turnEndedAt;
  if (flaggedOutOfStep(result)) return;
  const expected = `${PLAIN_ANSWER} tag=${tag}`;
  const text = () => l.chunks.join('').trim();
  const ended = result.kind === 'completed' && result.stopReason === 'end_turn';
  if (ended && text() !== expected) {
    const waited = await waitFor('the answer text', () => text() === expected, TRAIL_MS).catch(() => undefined);
    if (waited !== undefined) measured(agent, 'answer text after the prompt answer (trailing)', waited);
  }
  if (ended && text() === expected) return;
  const served = model().requests.find((r) => r.tag === tag && !r.side && !r.aborted && r.endedAt !== undefined && r.endedAt <= answeredAt);
  if (ended && text() === '' && served) {
    // In step (the model served this prompt before the answer), the text lost on the agent's side.
    measured(agent, 'in step, but the answer text never reached the client', answeredAt - served.endedAt!, `tag=${tag}`);
    return;
  }
  assert.fail(
    `the prompt after the stop was answered ${JSON.stringify(result)} with ${JSON.stringify(text())} (expected ${JSON.stringify(expected)}, or the result flagged outOfStep); ` +
      `model requests for tag=${tag}: ${JSON.stringify(model().requests.filter((r) => r.tag === tag))}; the turn's trace:\n${turnTrace(l.log)}`,
  );
}

/** The trace lines from the last `session/prompt` request on, each cut short: what the agent said. */
function turnTrace(log: MemoryLogger): string {
  const lines = log.lines;
  let from = lines.length - 1;
  while (from > 0 && !/→ \S+ request session\/prompt /.test(nth(lines, from, 'the log lines'))) from--;
  return lines
    .slice(from, from + 20)
    .map((s) => `  ${s.slice(0, 240)}`)
    .join('\n');
}
