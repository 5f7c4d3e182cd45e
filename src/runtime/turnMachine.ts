// The turn lifecycle of one ACP session, as a pure function: (state, event) → (state, effects).
// No `vscode`, no timers, no I/O: the TurnController carries out the effects. Every way a
// turn can end early arrives here as one `stop` event, so the cancel-then-confirm routine
// (ARCHITECTURE.md, "The one routine") lives in one place: the `running → stopping`
// transition and the evidence that leaves `stopping`.
//
// Turn ids only grow. An event for a turn that is not the current one is ignored, so a late
// answer to turn N can never end turn N+1, and a cancel of turn N is never sent once N settled.
//
// Prompts typed while a turn runs may wait here (`queue`, by id; their text stays with the
// controller) and go out, in order, when the turn ends by itself; any other end of the turn (a
// stop, an error, the agent's exit) releases them, and the controller gives their text back.
// A steer (text into the running turn, where the agent offers it) is asked of the machine too:
// only a turn in flight can take one.

import type {
  Effect,
  Evidence,
  MachineConfig,
  MachineEvent,
  MachineState,
  Outcome,
  ReleaseWhy,
  StopRecord,
  Transition,
  TurnResult,
  TurnState,
} from './turnMachineTypes';
// The vocabulary lives in turnMachineTypes.ts; importers take it from the machine, its one owner.
export type {
  StopCause,
  Evidence,
  StopRecord,
  TurnResult,
  TurnState,
  MachineState,
  ReleaseWhy,
  MachineConfig,
  TimerName,
  Effect,
  MachineEvent,
  Transition,
} from './turnMachineTypes';

/**
 * A turn is active: its prompt is out (or being retried), it runs, or it is stopping. Not idle,
 * and not an unconfirmed stop (that one only evidence, Check Again or Force Stop leave). The
 * one reading of "a turn is active" for Stop, send now and the context key.
 */
export function turnActive(turn: TurnState): boolean {
  return turn.phase === 'waiting' || turn.phase === 'running' || turn.phase === 'stopping';
}

export const initialState: MachineState = { turn: { phase: 'idle' }, lastTurnId: 0, queue: [] };

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
      const effects: Effect[] = [{ kind: 'sendPrompt', turnId }];
      if (config.turnLimitMs > 0) effects.push({ kind: 'startTimer', timer: 'turnLimit', turnId, ms: config.turnLimitMs });
      return { state: { ...state, turn: { phase: 'running', turnId, attempt: 0 }, lastTurnId: turnId }, effects };
    }

    case 'answered':
    case 'failed': {
      const evidence: Evidence = event.kind === 'answered' ? { kind: 'answered', stopReason: event.stopReason } : { kind: 'error', message: event.message };
      if (turn.phase === 'running') {
        const result: TurnResult =
          event.kind === 'answered'
            ? event.outOfStep
              ? { kind: 'completed', stopReason: event.stopReason, outOfStep: true }
              : { kind: 'completed', stopReason: event.stopReason }
            : { kind: 'failed', error: event.message, agentExited: false, ...(event.code !== undefined ? { code: event.code } : {}) };
        const ended: Effect[] = [
          { kind: 'clearTimers', turnId: turn.turnId },
          { kind: 'turnEnded', turnId: turn.turnId, result },
        ];
        // Ended by itself: the first queued prompt goes out now, as the next turn.
        if (result.kind === 'completed' && !result.outOfStep) return next(state, ended, config, event.at);
        return released(state, idle, ended, result.kind === 'failed' ? 'failed' : 'out-of-step');
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
        return released(
          state,
          idle,
          [
            { kind: 'sendCancel', turnId: turn.turnId, why: 'give-up' },
            { kind: 'clearTimers', turnId: turn.turnId },
            { kind: 'turnEnded', turnId: turn.turnId, result: { kind: 'failed', error: event.message, agentExited: false } },
          ],
          'failed',
        );
      }
      return to({ phase: 'waiting', turnId: turn.turnId, attempt: turn.attempt + 1, retryDeadline: deadline }, [
        { kind: 'sendCancel', turnId: turn.turnId, why: 'busy' },
        { kind: 'startTimer', timer: 'retry', turnId: turn.turnId, ms: wait },
      ]);
    }

    case 'idleSignal': {
      // The agent says it has no active run. While waiting to retry, that is the moment to
      // send; while stopping, it is evidence; otherwise it is news of the turn's own end.
      // A queued turn being prepared sends when it is prepared, not at the idle that ended the turn before.
      if (turn.phase === 'waiting') return turn.preparing ? same() : retry(state, turn);
      if (turn.phase === 'stopping' || turn.phase === 'unverified') return settle(state, turn, { kind: 'idle-signal' }, event.at);
      return same();
    }

    case 'toolCall': {
      // The call beyond the cap stops the turn through the routine, like any exit path.
      if (turn.phase !== 'running' || config.toolCallCap <= 0 || event.count <= config.toolCallCap) return same();
      return transition(state, { kind: 'stop', cause: 'tool-cap', at: event.at }, config);
    }

    case 'exited': {
      if (turn.phase === 'running' || turn.phase === 'waiting') {
        return released(
          state,
          idle,
          [
            { kind: 'clearTimers', turnId: turn.turnId },
            { kind: 'turnEnded', turnId: turn.turnId, result: { kind: 'failed', error: event.detail, agentExited: true } },
          ],
          'exited',
        );
      }
      if (turn.phase === 'stopping' || turn.phase === 'unverified') {
        return settle(state, turn, { kind: 'exited', detail: event.detail }, event.at);
      }
      return same();
    }

    case 'stop': {
      if (turn.phase === 'idle') {
        return same([
          {
            kind: 'stopEnded',
            stop: {
              turnId: state.lastTurnId,
              cause: event.cause,
              requestedAt: event.at,
              cancelsSent: 0,
              outcome: 'completed',
              noop: true,
              settledAt: event.at,
            },
          },
        ]);
      }
      if (turn.phase === 'waiting') {
        // Not in flight: nothing to cancel for this turn; the text goes back.
        const stop: StopRecord = {
          turnId: turn.turnId,
          cause: event.cause,
          requestedAt: event.at,
          cancelsSent: 0,
          outcome: 'completed',
          evidence: { kind: 'answered', stopReason: 'the prompt was not sent' },
          settledAt: event.at,
        };
        return released(
          state,
          idle,
          [
            { kind: 'clearTimers', turnId: turn.turnId },
            { kind: 'turnEnded', turnId: turn.turnId, result: { kind: 'not-sent', why: 'stopped before the agent accepted it' } },
            { kind: 'stopEnded', stop },
          ],
          'stopped',
        );
      }
      if (turn.phase === 'running') {
        const stop: StopRecord = { turnId: turn.turnId, cause: event.cause, requestedAt: event.at, firstCancelAt: event.at, cancelsSent: 1 };
        // The permission answers go first (gemini and qwen never answer a cancelled prompt while
        // one is open), then the cancel; what only the transcript shows (tools marked cancelled,
        // and its panel posts) comes after the cancel is on the wire. A stop is no end by itself:
        // what waited in the queue goes back to the input box.
        return released(
          state,
          { phase: 'stopping', turnId: turn.turnId, stop },
          [
            { kind: 'clearTimers', turnId: turn.turnId },
            { kind: 'cancelPermissions', turnId: turn.turnId },
            { kind: 'sendCancel', turnId: turn.turnId, why: 'stop' },
            { kind: 'markToolsCancelled', turnId: turn.turnId },
            { kind: 'startTimer', timer: 'settle', turnId: turn.turnId, ms: event.budgetMs ?? config.settleBudgetMs },
            { kind: 'startTimer', timer: 'resend', turnId: turn.turnId, ms: resendDelay(1) },
          ],
          // The agent's stream died: said as its exit, not as a stop someone asked for.
          event.cause === 'dead-stream' ? 'exited' : 'stopped',
        );
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
      if (event.timer === 'retry') return turn.phase === 'waiting' && !turn.preparing ? retry(state, turn) : same();
      if (event.timer === 'turnLimit') {
        // Out of time: stopped through the routine (a waiting turn was never in flight: not sent).
        return turn.phase === 'running' || turn.phase === 'waiting' ? transition(state, { kind: 'stop', cause: 'turn-timeout', at: event.at }, config) : same();
      }
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

    case 'enqueue': {
      // Only a turn that will end by itself can have prompts wait for it. While stopping, the
      // stop already released the queue: the caller joins the stop instead (send now).
      if (turn.phase !== 'running' && turn.phase !== 'waiting') return same([{ kind: 'queueRefused', queueId: event.queueId, phase: turn.phase }]);
      if (state.queue.includes(event.queueId)) return same();
      return { state: { ...state, queue: [...state.queue, event.queueId] }, effects: [{ kind: 'queueChanged' }] };
    }

    case 'unqueue': {
      if (!state.queue.includes(event.queueId)) return same();
      return { state: { ...state, queue: state.queue.filter((id) => id !== event.queueId) }, effects: [{ kind: 'queueChanged' }] };
    }

    case 'prepared': {
      if (turn.phase !== 'waiting' || !turn.preparing) return same();
      return to({ phase: 'running', turnId: turn.turnId, attempt: 0 }, [{ kind: 'sendPrompt', turnId: turn.turnId }]);
    }

    case 'steer': {
      // Only a prompt in flight can take more text; one waiting to be retried is not (yet).
      if (turn.phase !== 'running') return same([{ kind: 'steerRefused', steerId: event.steerId, phase: turn.phase }]);
      return same([{ kind: 'sendSteer', turnId: turn.turnId, steerId: event.steerId }]);
    }
  }
}

/**
 * The turn ended by itself (`ended`): the first queued prompt becomes the next turn, or idle.
 * It waits (`preparing`) for what a typed prompt gets before it goes, the undo checkpoint;
 * `prepared` sends it. Never idle in between: no other prompt slips in, and the checkout stays held.
 */
function next(state: MachineState, ended: Effect[], config: MachineConfig, at: number): Transition {
  const [queueId, ...rest] = state.queue;
  if (queueId === undefined) return { state: { ...state, turn: { phase: 'idle' } }, effects: ended };
  const turnId = state.lastTurnId + 1;
  const effects: Effect[] = [...ended, { kind: 'startQueued', queueId, turnId }, { kind: 'queueChanged' }, { kind: 'prepareQueued', turnId }];
  if (config.turnLimitMs > 0) effects.push({ kind: 'startTimer', timer: 'turnLimit', turnId, ms: config.turnLimitMs });
  const turn: TurnState = { phase: 'waiting', turnId, attempt: 0, retryDeadline: at + config.busyRetryBudgetMs, preparing: true };
  return { state: { turn, lastTurnId: turnId, queue: rest }, effects };
}

/** The turn did not end by itself: go to `turn`, and release what waited in the queue. */
function released(state: MachineState, turn: TurnState, effects: Effect[], why: ReleaseWhy): Transition {
  if (state.queue.length === 0) return { state: { ...state, turn }, effects };
  return { state: { ...state, turn, queue: [] }, effects: [...effects, { kind: 'releaseQueue', queueIds: [...state.queue], why }, { kind: 'queueChanged' }] };
}

function retry(state: MachineState, turn: Extract<TurnState, { phase: 'waiting' }>): Transition {
  return {
    state: { ...state, turn: { phase: 'running', turnId: turn.turnId, attempt: turn.attempt, retryDeadline: turn.retryDeadline } },
    // Only the retry timer: the turn's time limit runs on across retries.
    effects: [
      { kind: 'clearTimer', timer: 'retry', turnId: turn.turnId },
      { kind: 'sendPrompt', turnId: turn.turnId },
    ],
  };
}

/** Evidence arrived for a stopping (or unverified) turn: record the outcome, open the gate. */
function settle(state: MachineState, turn: Extract<TurnState, { phase: 'stopping' | 'unverified' }>, evidence: Evidence, at: number): Transition {
  // Any answer after the cancel confirms the stop, whatever it says: some agents answer a
  // cancelled prompt `end_turn` (GitHub Copilot CLI) or with an error (-32000 "context
  // canceled"). The turn Reins cancelled is stopped, never completed; the evidence keeps the
  // agent's own words.
  const outcome: Outcome = evidence.kind === 'exited' ? 'agent-exited' : 'aborted';
  const stop: StopRecord = { ...turn.stop, outcome, evidence, settledAt: at };
  const effects: Effect[] = [{ kind: 'clearTimers', turnId: turn.turnId }];
  // A stop that went unverified already ended its turn; late evidence reports the stop
  // again (and so opens the gate) but does not end the turn twice. `checkAgain` puts an
  // unverified stop back to stopping, so remember whether the turn's end was reported.
  if (turn.phase === 'stopping' && !turn.stop.unverifiedOnce) effects.push({ kind: 'turnEnded', turnId: turn.turnId, result: { kind: 'stopped', stop } });
  effects.push({ kind: 'stopEnded', stop });
  return { state: { ...state, turn: { phase: 'idle' } }, effects };
}
