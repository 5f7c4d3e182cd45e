// What a stop reports to its callers, the panel and the log.
import type { ProcessInfo } from '../acp/processTree';
import type { StopRecord } from './turnMachine';

type LeftoverAction = 'ended' | 'left' | 'ask' | 'unsupported';

/** Where the leftover check of a stop stands: it runs after the outcome, so a caller may see 'pending'. */
export type LeftoverCheck = 'pending' | 'done' | 'failed' | 'none';

export interface StopReport extends StopRecord {
  agent: string;
  sessionId?: string;
  /** Tool processes of the stopped turn still running after it settled (filled in when
   *  `leftoversFound` resolves: the check runs after the outcome is known). */
  leftovers: ProcessInfo[];
  leftoversFound: Promise<ProcessInfo[]>;
  /** 'pending' while the listing runs, 'done' once `leftovers` is final, 'failed' when `ps`
   *  could not list, 'none' when there is nothing to check (nothing was cancelled, the agent
   *  exited, or Windows). */
  leftoverCheck: LeftoverCheck;
  /** What was done with them: 'ended', 'left', 'ask' (the UI decides), or 'unsupported' (Windows: not detectable). */
  leftoverAction?: LeftoverAction;
}

/** The agent exited by itself: what of its process group Reins ended after it. */
export interface ExitCleanup {
  ended: ProcessInfo[];
}

function evidenceText(r: StopRecord): string {
  const e = r.evidence;
  if (!e) return 'none';
  switch (e.kind) {
    case 'answered':
      return `answered ${e.stopReason}`;
    case 'error':
      return `error "${e.message}"`;
    case 'exited':
      return `exited (${e.detail.split('\n')[0]})`;
    case 'idle-signal':
      return 'idle signal';
  }
}

/** One line per stop in the log: reason, session, turn, cancel timing, evidence, outcome. */
export function formatStopLine(r: StopReport): string {
  const rel = (t?: number) => (t === undefined ? '-' : `+${t - r.requestedAt} ms`);
  return (
    `stop: reason=${r.cause} agent=${r.agent} session=${r.sessionId ?? '-'} turn=${r.turnId} ` +
    `cancel=${rel(r.firstCancelAt)} cancels=${r.cancelsSent} evidence=${evidenceText(r)} at ${rel(r.settledAt)} ` +
    `outcome=${r.outcome}${r.unverifiedCause ? ` (${r.unverifiedCause})` : ''}`
  );
}
