// What the panel tells the user about stops, leftovers, exits and prompts that waited for another window: pure functions of the
// reports, so that the wording is tested without an editor.
import type { StopReport } from '../runtime/stopReport';
import type { ReleaseWhy, StopCause } from '../runtime/turnMachine';

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
  deactivate: ' (Reins is shutting down)',
};

export function stopCauseText(cause: StopCause): string {
  return CAUSE_TEXT[cause];
}

/** "0.9 s", "8 ms": how long something took, as people say it. */
function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

function took(r: StopReport): string {
  return r.settledAt === undefined ? '' : ` in ${duration(r.settledAt - r.requestedAt)}`;
}

/**
 * The stop's one line in the panel, with its level; undefined when nothing was in flight.
 * `now`: when the notice is made (an unconfirmed stop says how long it waited). The technical
 * cause (cancels sent, evidence) goes to the log line, not here.
 */
export function stopNotice(r: StopReport, folderName: string, now = Date.now()): { level: 'info' | 'warning'; text: string } | undefined {
  if (r.firstCancelAt === undefined) return undefined;
  const why = stopCauseText(r.cause);
  switch (r.outcome) {
    case 'aborted':
      return { level: 'info', text: `Stopped${why} — the agent confirmed${took(r)}` };
    case 'completed':
      return { level: 'info', text: `Stopped${why} — the agent had already finished${took(r)}` };
    case 'agent-exited':
      return { level: 'warning', text: `Stopped${why} — the agent exited${took(r)}` };
    case 'abort-unverified':
    case undefined:
      return {
        level: 'warning',
        text: `Stop not confirmed after ${duration(now - r.requestedAt)}${why} — no new prompt or session starts in ${folderName} until the agent is known to be quiet`,
      };
  }
}

/** "1 command was still running: sleep 37" (the processes a stopped turn's tools left). */
export function leftoverHead(r: StopReport): string {
  const n = r.leftovers.length;
  return `${n} command${n > 1 ? 's were' : ' was'} still running: ${r.leftovers.map((p) => p.command).join('; ')}`;
}

/** The button that ends them: "End it", "End them". */
export function endLeftoversLabel(r: StopReport): string {
  return r.leftovers.length > 1 ? 'End Them' : 'End It';
}

export function exitCleanupText(agent: string, ended: { command: string }[]): string {
  const n = ended.length;
  return `${agent} left ${n} process${n > 1 ? 'es' : ''} running when it exited; Reins ended ${n > 1 ? 'them' : 'it'}: ${ended.map((p) => p.command).join('; ')}.`;
}

export function outOfStepText(agent: string): string {
  return `${agent} answered one turn behind (an empty end_turn with zero usage right after a stopped turn)`;
}

/** Queued prompts not sent, because the turn before them did not end by itself. */
export function releasedText(count: number, why: ReleaseWhy): string {
  const what = count === 1 ? 'Your queued prompt was' : `Your ${count} queued prompts were`;
  const it = count === 1 ? 'it' : 'them';
  const because: Record<ReleaseWhy, string> = {
    stopped: `the turn before ${it} was stopped`,
    failed: `the turn before ${it} ended with an error`,
    exited: 'the agent exited',
    'out-of-step': 'the agent answered out of step',
  };
  return `${what} not sent: ${because[why]}. ${count === 1 ? 'It is' : 'They are'} back in the input box.`;
}

/** A line of the user's text inside a notice: its first 200 characters, quoted. */
export function quoteLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `“${flat.length > 200 ? `${flat.slice(0, 200)}…` : flat}”`;
}
