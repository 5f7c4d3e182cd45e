// The turn machine's vocabulary: its states, the events it takes and the effects it emits, the
// stop record and a turn's result. Types only, pure like the machine (turnMachine.ts), which is
// the one place that gives them meaning; the controller and the editor read them from there.

export type StopCause =
  | 'user' // the Stop command: palette, keybinding, panel button, Escape, status bar
  | 'turn-timeout' // reins.turnTimeoutMinutes ran out
  | 'tool-cap' // reins.maxToolCallsPerTurn reached
  | 'dead-stream' // exit, stdout closed, write error, connection error
  | 'panel-closed'
  | 'send-now' // a new prompt while this turn runs
  | 'replace-session' // new session, switch agent, load/resume, restart
  | 'folder-removed'
  | 'deactivate';

/** `completed`: nothing was in flight to cancel (no turn, or its prompt not sent yet); once a
 *  cancel went out, any answer is `aborted` (turnMachine.ts settle). */
export type Outcome = 'completed' | 'aborted' | 'abort-unverified' | 'agent-exited';

/** Why a turn counts as settled, strongest first in the contract's order. */
export type Evidence =
  { kind: 'exited'; detail: string } | { kind: 'answered'; stopReason: string } | { kind: 'error'; message: string } | { kind: 'idle-signal' };

export interface StopRecord {
  turnId: number;
  cause: StopCause;
  requestedAt: number;
  /** When the first session/cancel went out; undefined when nothing was in flight. */
  firstCancelAt?: number;
  cancelsSent: number;
  outcome?: Outcome;
  evidence?: Evidence;
  settledAt?: number;
  /** For abort-unverified: why no evidence came. */
  unverifiedCause?: string;
  /** This stop was reported abort-unverified before (its turn already ended). */
  unverifiedOnce?: boolean;
  /** No turn was running: nothing was stopped, nothing sent. */
  noop?: boolean;
  /** The turn was waiting on the user's answer when it was stopped (turnController.ts sets it). */
  waitingOn?: 'permission' | 'elicitation';
}

export type TurnResult =
  /** outOfStep: the answer belongs to the turn before (see outOfStep.ts); the agent is still working. */
  | { kind: 'completed'; stopReason: string; outOfStep?: boolean }
  | { kind: 'stopped'; stop: StopRecord }
  /** Never reached the agent as a running turn: the text goes back to the input box. */
  | { kind: 'not-sent'; why: string }
  | { kind: 'failed'; error: string; agentExited: boolean; code?: number };

export type TurnState =
  | { phase: 'idle' }
  /** Accepted but not in flight: waiting to retry after a busy rejection, or (`preparing`) a
   *  queued prompt getting what a typed one gets before it goes (the undo checkpoint). */
  | { phase: 'waiting'; turnId: number; attempt: number; retryDeadline: number; preparing?: true }
  | { phase: 'running'; turnId: number; attempt: number; retryDeadline?: number }
  | { phase: 'stopping'; turnId: number; stop: StopRecord }
  /** The budget ran out without evidence: the folder stays closed to new work. */
  | { phase: 'unverified'; turnId: number; stop: StopRecord };

export interface MachineState {
  turn: TurnState;
  lastTurnId: number;
  /** Queued prompts, by queue id, in the order they go out. Only while a turn runs or waits. */
  queue: readonly number[];
}

/** Why queued prompts were released instead of sent: the turn did not end by itself. */
export type ReleaseWhy = 'stopped' | 'failed' | 'exited' | 'out-of-step';

export interface MachineConfig {
  settleBudgetMs: number;
  busyRetryBudgetMs: number;
  /** reins.turnTimeoutMinutes: a turn still running after this long is stopped (0: no limit). */
  turnLimitMs: number;
  /** reins.maxToolCallsPerTurn: the tool call beyond this many stops the turn (0: no cap). */
  toolCallCap: number;
}

/** `turnLimit` runs from a turn's submit to its end or stop; the others belong to one phase. */
export type TimerName = 'settle' | 'resend' | 'retry' | 'turnLimit';

export type Effect =
  | { kind: 'sendPrompt'; turnId: number }
  | { kind: 'sendCancel'; turnId: number; why: 'stop' | 'resend' | 'busy' | 'give-up' }
  | { kind: 'cancelPermissions'; turnId: number }
  | { kind: 'markToolsCancelled'; turnId: number }
  | { kind: 'startTimer'; timer: TimerName; turnId: number; ms: number }
  | { kind: 'clearTimers'; turnId: number }
  | { kind: 'clearTimer'; timer: TimerName; turnId: number }
  | { kind: 'turnEnded'; turnId: number; result: TurnResult }
  | { kind: 'stopEnded'; stop: StopRecord }
  /** The queue changed (a prompt joined or left it): the panel shows it. */
  | { kind: 'queueChanged' }
  /** Not queued (no turn runs or waits): the caller sends it as a prompt of its own, or not. */
  | { kind: 'queueRefused'; queueId: number; phase: TurnState['phase'] }
  /** The queued prompt `queueId` becomes turn `turnId` (its `prepareQueued`, then its `sendPrompt`, follow). */
  | { kind: 'startQueued'; queueId: number; turnId: number }
  /** Before queued turn `turnId` goes out: what a typed prompt gets first (the checkpoint); `prepared` answers. */
  | { kind: 'prepareQueued'; turnId: number }
  /** These queued prompts will not be sent: their text goes back to the input box. */
  | { kind: 'releaseQueue'; queueIds: number[]; why: ReleaseWhy }
  /** Deliver steer `steerId` into turn `turnId`, which is in flight. */
  | { kind: 'sendSteer'; turnId: number; steerId: number }
  /** No turn in flight to take steer `steerId` (none, waiting to retry, or stopping). */
  | { kind: 'steerRefused'; steerId: number; phase: TurnState['phase'] };

export type MachineEvent =
  | { kind: 'submit'; at: number }
  | { kind: 'answered'; turnId: number; stopReason: string; outOfStep?: boolean; at: number }
  /** code: the agent's JSON-RPC error code, when it answered with one (-32000: sign-in needed). */
  | { kind: 'failed'; turnId: number; message: string; at: number; code?: number }
  | { kind: 'busyRejected'; turnId: number; message: string; at: number }
  | { kind: 'exited'; detail: string; at: number }
  /** turnId: the signal names its turn (an ACP `state_update` idle after that turn's `running`);
   *  without one (goose's `activeRunId: null`), it is taken for whichever turn is current. */
  | { kind: 'idleSignal'; at: number; turnId?: number }
  /** The running turn's tool calls number `count` now (one more than before). */
  | { kind: 'toolCall'; turnId: number; count: number; at: number }
  /** budgetMs: a shorter settle budget (deactivation); never used to cut a running wait short. */
  | { kind: 'stop'; cause: StopCause; at: number; budgetMs?: number }
  | { kind: 'checkAgain'; at: number }
  | { kind: 'timer'; timer: TimerName; turnId: number; at: number }
  /** A prompt to send when the running turn ends by itself (its id is the controller's). */
  | { kind: 'enqueue'; queueId: number; at: number }
  /** The user removed a queued prompt. */
  | { kind: 'unqueue'; queueId: number; at: number }
  /** Text for the running turn, without stopping it. */
  | { kind: 'steer'; steerId: number; at: number }
  /** The queued turn `turnId` is prepared: its prompt goes out now. */
  | { kind: 'prepared'; turnId: number; at: number };

export interface Transition {
  state: MachineState;
  effects: Effect[];
}
