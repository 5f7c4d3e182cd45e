// Before a prompt goes out: what the user is asked when another agent runs a turn in the folder.
// The send pipeline (sendPipeline.ts) decides; the plain words are refusalText.ts's.
import { askModal } from '../ui/notify';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { WhenBusy } from '../api';

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
