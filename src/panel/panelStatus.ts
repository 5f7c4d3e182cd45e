// The panel's and status bar's state, derived from the runtime and the gate each time it is
// shown: never stored beside them, so Stop and the input can never disagree with the turn.
import type { PanelAgentPhase, PanelStatus, TurnPhase } from '../shared/messages';
import type { RuntimePhase } from '../runtime/agentRuntime';
import type { Admission } from '../admission/folderAdmission';
import type { LineView } from '../admission/checkoutLine';
import { turnActive, type TurnState } from '../runtime/turnMachine';

export interface StatusInputs {
  agentName: string;
  demo: boolean;
  folderName: string;
  trusted: boolean;
  /** undefined: no agent started yet in this folder. */
  agent: RuntimePhase | undefined;
  turn: TurnState;
  gate: Admission;
  /** Prompts waiting for another window's turn in the checkout (checkoutLine.ts); undefined: none. */
  line?: LineView;
  now: number;
  /** A permission request of the running turn waits for the user's answer (the turn's held requests). */
  permissionPending?: boolean;
  /** An elicitation of the running turn waits for the user (runtime/elicitations.ts). */
  elicitationPending?: boolean;
}

/** While the running turn waits for the user's answer to a permission request. */
export const WAITING_FOR_YOU = 'Waiting for you: the agent asks for permission';
/** While the running turn waits for the user's answer to an elicitation. */
const WAITING_FOR_ANSWER = 'Waiting for you: the agent asks you a question';

/** The machine's phase as the user sees it (a prompt being retried is still "sending"). */
const TURN_PHASE: Record<TurnState['phase'], TurnPhase> = {
  idle: 'idle',
  waiting: 'sending',
  running: 'running',
  stopping: 'stopping',
  unverified: 'unverified',
};

function turnPhase(turn: TurnState): TurnPhase {
  return TURN_PHASE[turn.phase];
}

/** What the machine and the gate say; the folder conversation adds the session, the queue, the line and the settings. */
export type DerivedStatus = Omit<PanelStatus, 'session' | 'queued' | 'canSteer' | 'whenBusy' | 'checkoutWait'>;

export function deriveStatus(i: StatusInputs): DerivedStatus {
  const turn = turnPhase(i.turn);
  // Only a running turn's request can be waiting: one left over from a stop is being cancelled.
  const permissionPending = turn === 'running' && i.permissionPending === true;
  const elicitationPending = turn === 'running' && i.elicitationPending === true;
  const waitingOn = permissionPending ? 'permission' : elicitationPending ? 'elicitation' : undefined;
  const agent: PanelAgentPhase = !i.trusted
    ? 'untrusted'
    : i.agent === undefined || i.agent === 'new' || i.agent === 'starting'
      ? i.agent === undefined
        ? 'ready'
        : 'starting'
      : i.agent;
  let detail: string;
  if (!i.trusted) detail = 'This folder is not trusted: Reins starts no agent here until you trust it.';
  else if (i.turn.phase === 'stopping') {
    const since = i.turn.stop.firstCancelAt;
    detail = `Stopping… waiting for the agent to confirm${since !== undefined ? ` (cancel sent ${((i.now - since) / 1000).toFixed(1)} s ago)` : ''}`;
  } else if (turn === 'unverified') detail = 'Stop not confirmed: the agent may still be working. No new work starts in this folder until it is.';
  else if (turn === 'running') detail = permissionPending ? WAITING_FOR_YOU : elicitationPending ? WAITING_FOR_ANSWER : 'Working…';
  else if (turn === 'sending') detail = 'The agent is finishing an earlier run; sending as soon as it is free…';
  else if (i.line) detail = i.line.holder ? `Waiting for ${i.line.holder} in another window` : 'Waiting to send: the checkout is being handed over';
  else if (!i.gate.open) detail = `Another turn is running in ${i.folderName} (${i.gate.holder.name}).`;
  else if (agent === 'starting') detail = `Starting ${i.agentName}…`;
  else if (agent === 'failed') detail = `${i.agentName} failed to start.`;
  else if (agent === 'exited') detail = `${i.agentName} exited. Send a prompt to start it again.`;
  else detail = i.agent === undefined ? `Ready: ${i.agentName} starts with your first prompt.` : 'Ready';

  // A prompt waiting for another window can be stopped too: Stop ends the wait and gives it back.
  const canStop = turnActive(i.turn) || i.line !== undefined;
  // A running turn still accepts input: Enter then means "send now" (stop, confirm, send).
  const canSend = i.trusted && turn !== 'unverified' && turn !== 'stopping' && agent !== 'starting' && (i.gate.open || turn === 'running');
  return {
    agentName: i.agentName,
    agentNote: i.demo ? 'demonstration: scripted agent, no model' : undefined,
    demo: i.demo,
    folderName: i.folderName,
    agent,
    turn,
    detail,
    canSend,
    canStop,
    permissionPending,
    waitingOn,
  };
}
