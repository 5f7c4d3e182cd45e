// A stop's leftover step: after the outcome, list the agent's processes once and record in the
// stop's report which of the stopped turn's tool processes still run (leftovers.ts decides
// which), then apply the reins.leftoverProcesses policy. Nobody awaits this but what starts
// something new, so a listing that fails is logged and recorded, not thrown.
import type { ProcessInfo } from '../acp/processTree';
import type { Logger } from '../util/logger';
import type { LeftoverWatch } from './leftovers';
import type { StopReport } from './stopReport';
import type { TurnSettings } from './turnPort';

export interface StopLeftoversContext {
  log: Logger;
  /** Pids of the stopped turn's terminals still in use. */
  terminals: number[];
  /** reins.leftoverProcesses, read once the listing is in. */
  policy(): TurnSettings['leftoverProcesses'];
  /** True the first time it is asked: Windows says once that it cannot see leftovers. */
  firstUnsupported(): boolean;
  /** The report has leftovers (or says they cannot be seen): onLeftovers. */
  found(report: StopReport): void;
}

export async function checkStopLeftovers(watch: LeftoverWatch, report: StopReport, agentPid: number, ctx: StopLeftoversContext): Promise<ProcessInfo[]> {
  if (process.platform === 'win32') {
    report.leftoverCheck = 'none';
    // No `ps` and no process groups: say once that leftovers cannot be seen here.
    if (ctx.firstUnsupported()) {
      report.leftoverAction = 'unsupported';
      ctx.found(report);
    }
    return [];
  }
  let found: ProcessInfo[];
  try {
    found = await watch.scan(agentPid, ctx.terminals);
  } catch (error) {
    report.leftoverCheck = 'failed';
    ctx.log.warn(`stop of turn ${report.turnId}: the leftover check could not list processes: ${(error as Error)?.message ?? String(error)}`);
    return [];
  }
  report.leftovers = found;
  report.leftoverCheck = 'done';
  if (found.length === 0) return found;
  const policy = ctx.policy();
  report.leftoverAction = policy === 'end' ? 'ended' : policy === 'leave' ? 'left' : 'ask';
  ctx.log.info(
    `stop of turn ${report.turnId}: ${found.length} tool process(es) still running: ${found.map((p) => `${p.pid} ${p.command}`).join('; ')} (${report.leftoverAction})`,
  );
  if (policy === 'end') await watch.endFound();
  ctx.found(report);
  return found;
}
