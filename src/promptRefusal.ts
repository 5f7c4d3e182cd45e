// Before a prompt goes out: what the user is asked and told when it cannot go now (the
// workspace is not trusted, a turn runs in the folder, a stop there is unconfirmed). The
// folder session decides; these are the questions and the words.
import * as vscode from 'vscode';
import { showWarningMessage } from './notify';
import type { AgentRuntime } from './session/agentRuntime';
import type { GateVerdict } from './session/folderGate';
import type { WhenBusy } from './api';

/** An untrusted workspace starts no agent: said once as a warning with the way to trust it. */
export function warnUntrusted(): void {
  void showWarningMessage('Reins starts agents only in trusted workspaces.', 'Manage Workspace Trust').then(
    (choice) => choice && vscode.commands.executeCommand('workbench.trust.manage'),
  );
}

/**
 * Stop another agent's running turn in this folder (one nested with it) for a new prompt? Only
 * if the user says so: queueing and steering are for the folder's own agent (busyPrompt.ts).
 */
export async function stopForPrompt(whenBusy: WhenBusy, holder: AgentRuntime, folderName: string): Promise<boolean> {
  if (whenBusy === 'keep') return false;
  const choice = await showWarningMessage(
    `${holder.name} is running a turn in ${folderName}. One turn runs in a folder at a time: stop it and send this prompt, or wait for it to finish?`,
    { modal: true },
    'Stop and Send',
    'Wait',
  );
  return choice === 'Stop and Send';
}

/** Why the folder's gate keeps a prompt back. */
export function gateClosedText(verdict: Extract<GateVerdict<AgentRuntime>, { open: false }>, folderName: string): string {
  return verdict.why === 'unverified'
    ? `${verdict.holder.name}'s last stop in ${folderName} was not confirmed. Check again or force stop it first.`
    : `${verdict.holder.name} is running a turn in ${folderName}. Stop it or wait for it to finish.`;
}
