// Before a prompt goes out: what the user is asked and told when it cannot go now (the
// workspace is not trusted, a turn runs in the folder, a stop there is unconfirmed). The
// folder conversation decides; these are the questions and the words.
import { askModal } from '../ui/notify';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { Admission } from './folderAdmission';
import type { WhenBusy } from '../api';

/** An untrusted workspace starts no agent: said with *Manage Workspace Trust* (folderConversation.ts). */
export const UNTRUSTED_TEXT = 'Reins starts agents only in trusted workspaces. Trust this folder to send prompts; your prompt is back in the input box.';

/**
 * Stop another agent's running turn in this folder (one nested with it) for a new prompt? Only
 * if the user says so: queueing and steering are for the folder's own agent (busyPrompt.ts).
 */
export async function stopForPrompt(whenBusy: WhenBusy, holder: AgentRuntime, folderName: string): Promise<boolean> {
  if (whenBusy === 'keep') return false;
  const choice = await askModal(
    `${holder.name} is running a turn in ${folderName}. One turn runs in a folder at a time: stop it and send this prompt, or wait for it to finish?`,
    {},
    'Stop and Send',
    'Wait',
  );
  return choice === 'Stop and Send';
}

/** Why the folder's admission keeps a prompt back. */
export function notAdmittedText(verdict: Extract<Admission<AgentRuntime>, { open: false }>, folderName: string): string {
  return verdict.why === 'unverified'
    ? `${verdict.holder.name}'s last stop in ${folderName} was not confirmed. Check again or force stop it first.`
    : `${verdict.holder.name} is running a turn in ${folderName}. Stop it or wait for it to finish.`;
}
