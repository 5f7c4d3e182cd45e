// The words for a prompt that cannot go now, as plain text: pure, so that the send pipeline
// (sendPipeline.ts) and its tests use them without VS Code. The questions asked live beside
// their dialogs (promptRefusal.ts, busyPrompt.ts).
import type { Admission, AdmissionMember } from './folderAdmission';

/** An untrusted workspace starts no agent: said with *Manage Workspace Trust*. */
export const UNTRUSTED_TEXT = 'Reins starts agents only in trusted workspaces. Trust this folder to send prompts; your prompt is back in the input box.';

/** Said when a Stop came while the prompt was being prepared (agent starting, checkout, checkpoint). */
export const STOPPED_BEFORE_SENT = 'Stopped before the prompt was sent.';

/** Why the folder's admission keeps a prompt back. */
export function notAdmittedText<R extends AdmissionMember>(verdict: Extract<Admission<R>, { open: false }>, folderName: string): string {
  return verdict.why === 'unverified'
    ? `${verdict.holder.name}'s last stop in ${folderName} was not confirmed. Check again or force stop it first.`
    : `${verdict.holder.name} is running a turn in ${folderName}. Stop it or wait for it to finish.`;
}
