// A folder's recovery from an agent that answered its prompt one turn behind (runtime/outOfStep.ts),
// when its recovery is `resend` (claude-agent-acp 0.23 by default): Restart Agent ends the unseen
// work and reopens the same session, and the prompt goes again by itself when the checkpoint shows
// that nothing changed (runtime/outOfStepRecovery.ts decides); otherwise it is given back beside
// what changed, with Undo. What the user is told and what `sendPrompt` resolves with are here.
import type { SendResult } from '../api';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { OutOfStepRecovery } from '../runtime/knownAgents';
import { recoverOutOfStep, type CheckpointVerdict, type GiveBackReason } from '../runtime/outOfStepRecovery';
import type { Transcript } from '../runtime/transcript';
import { UNDO_LABEL } from '../undo/turnUndo';
import { outOfStepText } from './userText';

export interface ResendHost {
  readonly transcript: Transcript;
  /** What recovers this agent (its settings entry, else the quirk table). */
  recovery(rt: AgentRuntime): OutOfStepRecovery;
  /** Restart Agent (through the routine): the old process tree ended, a new one reopening the folder's session. */
  restart(): Promise<AgentRuntime | undefined>;
  /** What the prompt's checkpoint says changed since (undo/turnUndo.ts). */
  changedSince(): Promise<CheckpointVerdict>;
  /** Stop requests so far: one during the recovery gives the prompt back instead of sending it. */
  stops(): number;
  /** The prompt again, through every check a typed prompt passes; `keep`: never over another turn begun meanwhile. */
  send(text: string, files?: string[]): Promise<SendResult>;
  giveBack(text: string, why?: string, files?: string[]): void;
}

const UNDO = { action: 'undoTurn' as const, label: UNDO_LABEL };

/** One folder's: the prompt in flight taken when its turn's answer came one turn behind, and recovered once that turn is over. */
export class OutOfStepResend {
  private taken: AgentRuntime | undefined;

  constructor(private readonly host: ResendHost) {}

  /** At the turn's end (agentNotices.ts): taken when it is the prompt in flight (a queued one is not sent again) and the agent's recovery is `resend`. */
  take(rt: AgentRuntime, inFlight: boolean): boolean {
    if (!inFlight || this.host.recovery(rt) !== 'resend') return false;
    this.taken = rt;
    return true;
  }

  /** Once the prompt's turn is over (the checkout let go): its own result, or, taken, what the recovery comes to. */
  after(rt: AgentRuntime, result: SendResult, text: string, files?: string[]): SendResult | Promise<SendResult> {
    const taken = this.taken === rt;
    this.taken = undefined;
    // Only the answer it was taken for: a take left over (the send failed on its way back) recovers nothing later.
    if (!taken || !(result.status === 'failed' && 'outOfStep' in result)) return result;
    return resendOutOfStep(this.host, rt, text, files);
  }
}

/** Restart, reopen, then the prompt again or back (see the file's head); resolves with what `sendPrompt` answers. */
async function resendOutOfStep(host: ResendHost, rt: AgentRuntime, text: string, files?: string[]): Promise<SendResult> {
  const name = rt.name;
  const stopsBefore = host.stops();
  host.transcript.notice(
    'warning',
    `${outOfStepText(name)}: its answer belonged to the stopped turn, and it went on working on your prompt unseen. Reins restarts it in the same session (ending that work) and sends your prompt again if nothing changed.`,
  );
  const outcome = await recoverOutOfStep({
    sessionId: rt.session.id,
    restart: () => host.restart(),
    sessionOf: (agent) => agent.session.id,
    changes: () => host.changedSince(),
    resend: async (): Promise<SendResult> => {
      if (host.stops() !== stopsBefore) {
        host.giveBack(text, 'Stopped before your prompt was sent again.', files);
        return { status: 'not-sent', reason: 'stopped before it was sent again' };
      }
      host.transcript.notice('info', 'Nothing changed while it worked unseen: your prompt goes again.');
      return host.send(text, files);
    },
  });
  if (outcome.kind === 'resent') return outcome.result.status === 'not-sent' ? outcome.result : { ...outcome.result, sentTwice: true };
  const why = givenBackText(outcome.reason, name, outcome.changedFiles);
  host.giveBack(text, undefined, files);
  if (outcome.changedFiles.length > 0) host.transcript.notice('warning', `${why} Your prompt is back in the input box.`, [UNDO]);
  else host.transcript.notice('warning', `${why} Your prompt is back in the input box.`);
  return {
    status: 'failed',
    error: `${outOfStepText(name)}; ${why}`,
    outOfStep: true,
    recovery: 'resend',
    givenBack: outcome.reason,
    changedFiles: outcome.changedFiles,
  };
}

function givenBackText(reason: GiveBackReason, agent: string, changed: string[]): string {
  switch (reason) {
    case 'files-changed': {
      const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? `, and ${changed.length - 5} more` : '');
      return `The unseen work changed ${changed.length} file${changed.length === 1 ? '' : 's'} (${shown}): not sent again over ${changed.length === 1 ? 'it' : 'them'}. Undo shows each change before taking it back.`;
    }
    case 'unknown-changes':
      return "Not sent again: the checkpoint cannot show what the unseen work changed (outside a git checkout it holds only what the agent wrote through Reins, not its own tools' writes).";
    case 'session-lost':
      return `Not sent again: ${agent} came back in a new session, without the conversation your prompt belongs to.`;
    case 'restart-failed':
      return `Not sent again: ${agent} did not start again.`;
  }
}
