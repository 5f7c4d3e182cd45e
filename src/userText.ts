// What the panel tells the user about stops, leftovers and exits: pure functions of the
// reports, so that the wording is tested without an editor.
import type { StopReport } from './session/stopReport';
import type { StopCause } from './session/turnMachine';

/** Why the stop happened, as a parenthesis after "Stopped" (nothing for the user's own Stop). */
const CAUSE_TEXT: Record<StopCause, string> = {
  user: '',
  'turn-timeout': ' (turn time limit reached)',
  'tool-cap': ' (tool-call limit reached)',
  'dead-stream': ' (the connection to the agent was lost)',
  'panel-closed': ' (panel closed)',
  'send-now': ' (new prompt sent)',
  'replace-session': ' (session replaced)',
  'folder-removed': ' (folder removed)',
  'trust-withdrawn': ' (workspace trust withdrawn)',
  deactivate: ' (Reins is shutting down)',
};

export function stopCauseText(cause: StopCause): string {
  return CAUSE_TEXT[cause];
}

function took(r: StopReport): string {
  const ms = r.settledAt !== undefined ? r.settledAt - r.requestedAt : undefined;
  return ms === undefined ? '' : ms < 1000 ? ` in ${ms} ms` : ` in ${(ms / 1000).toFixed(1)} s`;
}

/** The stop's one line in the panel, with its level; undefined when nothing was in flight. */
export function stopNotice(r: StopReport, folderName: string): { level: 'info' | 'warning'; text: string } | undefined {
  if (r.firstCancelAt === undefined) return undefined;
  const why = stopCauseText(r.cause);
  switch (r.outcome) {
    case 'aborted':
      return { level: 'info', text: `Stopped${why}: the agent confirmed${took(r)}.` };
    case 'completed':
      return { level: 'info', text: `Stopped${why}: the turn had already ended (${r.evidence?.kind === 'answered' ? r.evidence.stopReason : 'finished'})${took(r)}.` };
    case 'agent-exited':
      return { level: 'warning', text: `Stopped${why}: the agent exited${took(r)}.` };
    case 'abort-unverified':
    case undefined:
      return { level: 'warning', text: `Stop not confirmed${why}: ${r.unverifiedCause}. No new prompt or session starts in ${folderName} until the agent is known to be quiet.` };
  }
}

/** "aborted — 1 tool process still running: sleep 37" */
export function leftoverHead(r: StopReport): string {
  const n = r.leftovers.length;
  return `${r.outcome} — ${n} tool process${n > 1 ? 'es' : ''} still running: ${r.leftovers.map((p) => p.command).join('; ')}`;
}

export function exitCleanupText(agent: string, ended: { command: string }[]): string {
  const n = ended.length;
  return `${agent} left ${n} process${n > 1 ? 'es' : ''} running when it exited; Reins ended ${n > 1 ? 'them' : 'it'}: ${ended.map((p) => p.command).join('; ')}.`;
}

export function outOfStepText(agent: string): string {
  return `${agent} answered one turn behind (an empty end_turn with zero usage right after a stopped turn)`;
}
