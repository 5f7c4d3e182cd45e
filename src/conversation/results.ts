// What `reins.sendPrompt` and `reins.stop` resolve with, built where the conversation sends and
// stops (api.ts has their types, the public command API): a turn's result and a stop's report as
// the API's plain data.
import type { SendResult, StopResult } from '../api';
import type { StopReport } from '../runtime/stopReport';
import type { Evidence, StopCause, TurnResult } from '../runtime/turnMachine';

export function toSendResult(result: TurnResult): SendResult {
  switch (result.kind) {
    case 'completed':
      return { status: 'completed', stopReason: result.stopReason };
    case 'stopped':
      return {
        status: 'stopped',
        outcome: result.stop.outcome ?? 'aborted',
        cause: result.stop.cause,
        ...(result.stop.waitingOn && { waitingOn: result.stop.waitingOn }),
      };
    case 'not-sent':
      return { status: 'not-sent', reason: result.why };
    case 'failed':
      return { status: 'failed', error: result.error };
  }
}

/** The evidence as the API has always said it (the log's line says it more briefly). */
function apiEvidence(e: Evidence | undefined): string | undefined {
  if (!e) return undefined;
  switch (e.kind) {
    case 'answered':
      return `answered ${e.stopReason}`;
    case 'error':
      return `error: ${e.message}`;
    case 'exited':
      return `exited: ${e.detail}`;
    case 'idle-signal':
      return 'idle signal';
  }
}

export function toStopResult(r: StopReport): StopResult {
  return {
    outcome: r.outcome ?? 'abort-unverified',
    cause: r.cause,
    turnId: r.turnId,
    evidence: apiEvidence(r.evidence),
    cancelsSent: r.cancelsSent,
    settledAfterMs: r.settledAt !== undefined ? r.settledAt - r.requestedAt : undefined,
    leftovers: r.leftovers.map((p) => ({ pid: p.pid, command: p.command })),
    leftoverCheck: r.leftoverCheck,
  };
}

/** `reins.stop` where no agent runs. */
export function nothingToStop(cause: string): StopResult {
  return { outcome: 'completed', cause, turnId: 0, evidence: 'no agent running', cancelsSent: 0, leftovers: [], leftoverCheck: 'none' };
}

/** What `reins.stop` needs of an agent's runtime. */
export interface Stoppable {
  stop(cause: StopCause, budgetMs?: number): Promise<StopReport>;
  readonly lastStopReport: StopReport | undefined;
}

/**
 * `reins.stop`: resolves with the outcome as soon as it is known (as fast as the gate). The
 * leftover check goes on after it: its result comes through onDidFindLeftovers, the log, and
 * `previous` of a later call that finds nothing running.
 */
export async function stopCommand(rt: Stoppable, cause: StopCause, budgetMs?: number): Promise<StopResult> {
  const report = await rt.stop(cause, budgetMs);
  const result = toStopResult(report);
  const previous = rt.lastStopReport;
  if (report.noop && previous) result.previous = toStopResult(previous);
  return result;
}
