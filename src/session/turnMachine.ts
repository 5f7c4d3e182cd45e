// The turn lifecycle of one ACP session, as a pure function: (state, event) → (state, effects).
// No `vscode`, no timers, no I/O: the TurnController carries out the effects. Every way a
// turn can end early arrives here as one `stop` event, so the cancel-then-confirm routine
// (settle-contract.md) lives in one place: the `running → stopping` transition and the
// evidence that leaves `stopping`.
//
// Turn ids only grow. An event for a turn that is not the current one is ignored, so a late
// answer to turn N can never end turn N+1, and a cancel of turn N is never sent once N settled.

export type StopCause =
  | 'user' // the Stop command: palette, keybinding, panel button, Escape, status bar
  | 'turn-timeout' // reins.turnTimeoutMinutes ran out
  | 'tool-cap' // reins.maxToolCallsPerTurn reached
  | 'dead-stream' // exit, stdout closed, write error, connection error
  | 'panel-closed'
  | 'send-now' // a new prompt while this turn runs
  | 'replace-session' // new session, switch agent, load/resume, restart
  | 'folder-removed'
  | 'trust-withdrawn'
  | 'deactivate';

export type Outcome = 'completed' | 'aborted' | 'abort-unverified' | 'agent-exited';

/** Why a turn counts as settled, strongest first in the contract's order. */
export type Evidence =
  | { kind: 'exited'; detail: string }
  | { kind: 'answered'; stopReason: string }
  | { kind: 'error'; message: string }
  | { kind: 'idle-signal' };

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
  /** Accepted but not in flight: waiting to retry after a busy rejection. */
  | { phase: 'waiting'; turnId: number; attempt: number; retryDeadline: number }
  | { phase: 'running'; turnId: number; attempt: number; retryDeadline?: number }
  | { phase: 'stopping'; turnId: number; stop: StopRecord }
  /** The budget ran out without evidence: the folder stays closed to new work. */
  | { phase: 'unverified'; turnId: number; stop: StopRecord };

export interface MachineState {
  turn: TurnState;
  lastTurnId: number;
}

export interface MachineConfig {
  settleBudgetMs: number;
  busyRetryBudgetMs: number;
}

export type TimerName = 'settle' | 'resend' | 'retry';

export type Effect =
  | { kind: 'sendPrompt'; turnId: number }
  | { kind: 'sendCancel'; turnId: number; why: 'stop' | 'resend' | 'busy' | 'give-up' }
  | { kind: 'cancelPermissions'; turnId: number }
  | { kind: 'markToolsCancelled'; turnId: number }
  | { kind: 'startTimer'; timer: TimerName; turnId: number; ms: number }
  | { kind: 'clearTimers'; turnId: number }
  | { kind: 'turnEnded'; turnId: number; result: TurnResult }
  | { kind: 'stopEnded'; stop: StopRecord };

export type MachineEvent =
  | { kind: 'submit'; at: number }
  | { kind: 'answered'; turnId: number; stopReason: string; outOfStep?: boolean; at: number }
  /** code: the agent's JSON-RPC error code, when it answered with one (-32000: sign-in needed). */
  | { kind: 'failed'; turnId: number; message: string; at: number; code?: number }
  | { kind: 'busyRejected'; turnId: number; message: string; at: number }
  | { kind: 'exited'; detail: string; at: number }
  | { kind: 'idleSignal'; at: number }
  /** budgetMs: a shorter settle budget (deactivation); never used to cut a running wait short. */
  | { kind: 'stop'; cause: StopCause; at: number; budgetMs?: number }
  | { kind: 'checkAgain'; at: number }
  | { kind: 'timer'; timer: TimerName; turnId: number; at: number };

export interface Transition {
  state: MachineState;
  effects: Effect[];
}

export const initialState: MachineState = { turn: { phase: 'idle' }, lastTurnId: 0 };

/** Re-send the cancel after 250 ms, 1 s, 3 s, then every 3 s: some agents drop an early one. */
const RESEND_AT_MS = [250, 1000, 3000];
export function resendDelay(cancelsSent: number): number {
  const now = RESEND_AT_MS[cancelsSent - 1] ?? Infinity;
  const previous = RESEND_AT_MS[cancelsSent - 2] ?? 0;
  return cancelsSent <= RESEND_AT_MS.length ? now - previous : 3000;
}

/** Busy-rejection back-off: 100 ms, growing by half each time, at most 1 s. */
export function retryDelay(attempt: number): number {
  return Math.min(1000, Math.round(100 * 1.5 ** attempt));
}

export function transition(state: MachineState, event: MachineEvent, config: MachineConfig): Transition {
  const turn = state.turn;
  const same = (effects: Effect[] = []): Transition => ({ state, effects });
  const to = (next: TurnState, effects: Effect[]): Transition => ({ state: { ...state, turn: next }, effects });
  const idle: TurnState = { phase: 'idle' };

  // Events that name a turn are fenced by its id.
  if ('turnId' in event && (turn.phase === 'idle' || event.turnId !== turn.turnId)) return same();

  switch (event.kind) {
    case 'submit': {
      if (turn.phase !== 'idle') return same(); // the controller's gate prevents this
      const turnId = state.lastTurnId + 1;
      return {
        state: { turn: { phase: 'running', turnId, attempt: 0 }, lastTurnId: turnId },
        effects: [{ kind: 'sendPrompt', turnId }],
      };
    }

    case 'answered':
    case 'failed': {
      const evidence: Evidence =
        event.kind === 'answered' ? { kind: 'answered', stopReason: event.stopReason } : { kind: 'error', message: event.message };
      if (turn.phase === 'running') {
        const result: TurnResult =
          event.kind === 'answered'
            ? event.outOfStep
              ? { kind: 'completed', stopReason: event.stopReason, outOfStep: true }
              : { kind: 'completed', stopReason: event.stopReason }
            : { kind: 'failed', error: event.message, agentExited: false, ...(event.code !== undefined ? { code: event.code } : {}) };
        return to(idle, [{ kind: 'clearTimers', turnId: turn.turnId }, { kind: 'turnEnded', turnId: turn.turnId, result }]);
      }
      if (turn.phase === 'stopping' || turn.phase === 'unverified') return settle(state, turn, evidence, event.at);
      return same();
    }

    case 'busyRejected': {
      if (turn.phase !== 'running') return same();
      const deadline = turn.retryDeadline ?? event.at + config.busyRetryBudgetMs;
      const wait = retryDelay(turn.attempt);
      if (event.at + wait > deadline) {
        // Budget spent: fail with the agent's own error, one more cancel, keep the text.
        return to(idle, [
          { kind: 'sendCancel', turnId: turn.turnId, why: 'give-up' },
          { kind: 'clearTimers', turnId: turn.turnId },
          { kind: 'turnEnded', turnId: turn.turnId, result: { kind: 'failed', error: event.message, agentExited: false } },
        ]);
      }
      return to({ phase: 'waiting', turnId: turn.turnId, attempt: turn.attempt + 1, retryDeadline: deadline }, [
        { kind: 'sendCancel', turnId: turn.turnId, why: 'busy' },
        { kind: 'startTimer', timer: 'retry', turnId: turn.turnId, ms: wait },
      ]);
    }

    case 'idleSignal': {
      // The agent says it has no active run. While waiting to retry, that is the moment to
      // send; while stopping, it is evidence; otherwise it is news of the turn's own end.
      if (turn.phase === 'waiting') return retry(state, turn);
      if (turn.phase === 'stopping' || turn.phase === 'unverified') return settle(state, turn, { kind: 'idle-signal' }, event.at);
      return same();
    }

    case 'exited': {
      if (turn.phase === 'running' || turn.phase === 'waiting') {
        return to(idle, [
          { kind: 'clearTimers', turnId: turn.turnId },
          { kind: 'turnEnded', turnId: turn.turnId, result: { kind: 'failed', error: event.detail, agentExited: true } },
        ]);
      }
      if (turn.phase === 'stopping' || turn.phase === 'unverified') {
        return settle(state, turn, { kind: 'exited', detail: event.detail }, event.at);
      }
      return same();
    }

    case 'stop': {
      if (turn.phase === 'idle') {
        return same([{ kind: 'stopEnded', stop: { turnId: state.lastTurnId, cause: event.cause, requestedAt: event.at, cancelsSent: 0, outcome: 'completed', noop: true, settledAt: event.at } }]);
      }
      if (turn.phase === 'waiting') {
        // Not in flight: nothing to cancel for this turn; the text goes back.
        const stop: StopRecord = { turnId: turn.turnId, cause: event.cause, requestedAt: event.at, cancelsSent: 0, outcome: 'completed', evidence: { kind: 'answered', stopReason: 'the prompt was not sent' }, settledAt: event.at };
        return to(idle, [
          { kind: 'clearTimers', turnId: turn.turnId },
          { kind: 'turnEnded', turnId: turn.turnId, result: { kind: 'not-sent', why: 'stopped before the agent accepted it' } },
          { kind: 'stopEnded', stop },
        ]);
      }
      if (turn.phase === 'running') {
        const stop: StopRecord = { turnId: turn.turnId, cause: event.cause, requestedAt: event.at, firstCancelAt: event.at, cancelsSent: 1 };
        return to({ phase: 'stopping', turnId: turn.turnId, stop }, [
          { kind: 'clearTimers', turnId: turn.turnId },
          { kind: 'cancelPermissions', turnId: turn.turnId },
          { kind: 'markToolsCancelled', turnId: turn.turnId },
          { kind: 'sendCancel', turnId: turn.turnId, why: 'stop' },
          { kind: 'startTimer', timer: 'settle', turnId: turn.turnId, ms: event.budgetMs ?? config.settleBudgetMs },
          { kind: 'startTimer', timer: 'resend', turnId: turn.turnId, ms: resendDelay(1) },
        ]);
      }
      // stopping or unverified: a second stop joins the first and changes nothing.
      return same();
    }

    case 'checkAgain': {
      if (turn.phase !== 'unverified') return same();
      const stop: StopRecord = { ...turn.stop, outcome: undefined, unverifiedOnce: true, cancelsSent: turn.stop.cancelsSent + 1 };
      return to({ phase: 'stopping', turnId: turn.turnId, stop }, [
        { kind: 'sendCancel', turnId: turn.turnId, why: 'stop' },
        { kind: 'startTimer', timer: 'settle', turnId: turn.turnId, ms: config.settleBudgetMs },
        { kind: 'startTimer', timer: 'resend', turnId: turn.turnId, ms: resendDelay(1) },
      ]);
    }

    case 'timer': {
      if (event.timer === 'retry') return turn.phase === 'waiting' ? retry(state, turn) : same();
      if (turn.phase !== 'stopping') return same();
      if (event.timer === 'resend') {
        const stop = { ...turn.stop, cancelsSent: turn.stop.cancelsSent + 1 };
        return to({ ...turn, stop }, [
          { kind: 'sendCancel', turnId: turn.turnId, why: 'resend' },
          { kind: 'startTimer', timer: 'resend', turnId: turn.turnId, ms: resendDelay(stop.cancelsSent) },
        ]);
      }
      // The settle budget ran out with no evidence. A timer is never evidence.
      const stop: StopRecord = {
        ...turn.stop,
        outcome: 'abort-unverified',
        unverifiedCause: `no answer, idle signal or exit within ${Math.round(config.settleBudgetMs / 100) / 10} s of the cancel (${turn.stop.cancelsSent} cancels sent)`,
      };
      return to({ phase: 'unverified', turnId: turn.turnId, stop }, [
        { kind: 'clearTimers', turnId: turn.turnId },
        { kind: 'turnEnded', turnId: turn.turnId, result: { kind: 'stopped', stop } },
        { kind: 'stopEnded', stop },
      ]);
    }
  }
}

function retry(state: MachineState, turn: Extract<TurnState, { phase: 'waiting' }>): Transition {
  return {
    state: { ...state, turn: { phase: 'running', turnId: turn.turnId, attempt: turn.attempt, retryDeadline: turn.retryDeadline } },
    effects: [
      { kind: 'clearTimers', turnId: turn.turnId },
      { kind: 'sendPrompt', turnId: turn.turnId },
    ],
  };
}

/** Evidence arrived for a stopping (or unverified) turn: record the outcome, open the gate. */
function settle(
  state: MachineState,
  turn: Extract<TurnState, { phase: 'stopping' | 'unverified' }>,
  evidence: Evidence,
  at: number,
): Transition {
  const outcome: Outcome =
    evidence.kind === 'exited'
      ? 'agent-exited'
      : evidence.kind === 'answered' && evidence.stopReason !== 'cancelled'
        ? 'completed' // the agent says the turn ended by itself
        : 'aborted';
  const stop: StopRecord = { ...turn.stop, outcome, evidence, settledAt: at };
  const effects: Effect[] = [{ kind: 'clearTimers', turnId: turn.turnId }];
  // A stop that went unverified already ended its turn; late evidence reports the stop
  // again (and so opens the gate) but does not end the turn twice. `checkAgain` puts an
  // unverified stop back to stopping, so remember whether the turn's end was reported.
  if (turn.phase === 'stopping' && !turn.stop.unverifiedOnce) effects.push({ kind: 'turnEnded', turnId: turn.turnId, result: { kind: 'stopped', stop } });
  effects.push({ kind: 'stopEnded', stop });
  return { state: { ...state, turn: { phase: 'idle' } }, effects };
}

/** True while the folder must not take new work from this session. */
export function isBusy(turn: TurnState): boolean {
  return turn.phase !== 'idle';
}
