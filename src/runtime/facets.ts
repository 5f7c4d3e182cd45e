// What the editor side sees of an agent runtime (agentRuntime.ts): two facets, each the owner
// itself seen through a narrow type, so that a caller talks to the part that does the work.
// `runtime.turns` is the TurnController (turnController.ts): prompts, the waiting queue, the one
// routine's `stop`, permissions, leftovers. `runtime.session` is the CurrentSession
// (currentSession.ts): which session, its controls (modes, options), replacing, listing,
// deleting. What only the runtime itself may call (a permission held, an update noted, the
// barrier before a replacement) stays out of the types.
import type { CurrentSession } from './currentSession';
import type { Elicitations } from './elicitations';
import type { Permissions } from './permissions';
import type { SessionControls } from './sessionControls';
import type { SessionSwitch } from './sessionSwitch';
import type { TurnController } from './turnController';

/** The running turn's side: prompt, queue and steer, stop (the one routine), permissions, leftovers. */
export interface TurnFacet extends Pick<
  TurnController,
  | 'turn'
  | 'lastStopReport'
  | 'sent'
  | 'waiting'
  | 'prompt'
  | 'enqueue'
  | 'stop'
  | 'checkAgain'
  | 'respondPermission'
  | 'refusePermission'
  | 'endLeftovers'
  | 'onTurnStarted'
  | 'onTurnEnded'
  | 'onToolsCancelled'
  | 'onStop'
  | 'onLeftovers'
  | 'waitingOn'
> {
  /** Requests waiting for the user (`list`), and their coming and going. */
  readonly permissions: Pick<Permissions, 'list' | 'onRequest' | 'onResolved'>;
  /** The agent's questions (elicitations.ts): held, answered, completed, cancelled. */
  readonly elicitations: Pick<Elicitations, 'list' | 'get' | 'size' | 'respond' | 'refuse' | 'cancelAll' | 'onRequest' | 'onResolved' | 'onCompleted'>;
}

/** The ACP session's side: which one, its controls, and replacing, listing and deleting sessions. */
export interface SessionFacet extends Pick<CurrentSession, 'id' | 'onUpdate' | 'renew' | 'load' | 'list' | 'delete'> {
  /** Modes, config options, slash commands, title and usage; MCP servers left out. */
  readonly controls: Pick<SessionControls, 'config' | 'set' | 'onMcpSkipped'>;
  /** What the agent can do with sessions besides session/new, and a session opening and opened. */
  readonly switch: Pick<SessionSwitch, 'caps' | 'onOpening' | 'onOpened'>;
}
