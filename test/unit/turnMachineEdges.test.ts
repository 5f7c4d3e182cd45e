// The turn machine's edges, written for mutants that survived `npm run test:mutation`
// (docs/RELIABILITY.md): what a failed turn carries, the busy back-off's count and deadline,
// and what Check Again counts.
import * as assert from 'node:assert/strict';
import { retryDelay, type Effect, type TurnResult } from '../../src/runtime/turnMachine';
import { config, run, T } from '../support/machineRun';

const ended = (effects: Effect[]): TurnResult | undefined => effects.flatMap((e) => (e.kind === 'turnEnded' ? [e.result] : []))[0];

describe('turn machine: edges', () => {
  it("a failed turn carries the agent's error code, and only when there is one", () => {
    const withCode = run([
      { kind: 'submit', at: T },
      { kind: 'failed', turnId: 1, message: 'auth', code: -32000, at: T },
    ]);
    assert.deepEqual(ended(withCode.effects), { kind: 'failed', error: 'auth', agentExited: false, code: -32000 });
    const without = run([
      { kind: 'submit', at: T },
      { kind: 'failed', turnId: 1, message: 'boom', at: T },
    ]);
    assert.deepEqual(ended(without.effects), { kind: 'failed', error: 'boom', agentExited: false });
  });

  it('an exit mid-turn says the agent exited', () => {
    const { effects } = run([
      { kind: 'submit', at: T },
      { kind: 'exited', detail: 'code 1', at: T },
    ]);
    assert.deepEqual(ended(effects), { kind: 'failed', error: 'code 1', agentExited: true });
  });

  it('busy rejections count their attempts and give up past the deadline, not at it', () => {
    const first = run([
      { kind: 'submit', at: T },
      { kind: 'busyRejected', turnId: 1, message: 'busy', at: T },
    ]);
    assert.deepEqual(first.state.turn, { phase: 'waiting', turnId: 1, attempt: 1, retryDeadline: T + config.busyRetryBudgetMs });
    // Retried (the timer), rejected again exactly when the wait would end on the deadline: one more try.
    const retried = run([{ kind: 'timer', timer: 'retry', turnId: 1, at: T }], first.state);
    const atDeadline = T + config.busyRetryBudgetMs - retryDelay(1);
    const again = run([{ kind: 'busyRejected', turnId: 1, message: 'busy', at: atDeadline }], retried.state);
    assert.equal(again.state.turn.phase, 'waiting');
    assert.equal((again.state.turn as { attempt: number }).attempt, 2);
    const late = run([{ kind: 'busyRejected', turnId: 1, message: 'busy', at: atDeadline + 1 }], retried.state);
    assert.deepEqual(ended(late.effects), { kind: 'failed', error: 'busy', agentExited: false });
  });

  it('Check Again counts its cancel, and does nothing unless the stop is unverified', () => {
    const unverified = run([
      { kind: 'submit', at: T },
      { kind: 'stop', cause: 'user', at: T },
      { kind: 'timer', timer: 'settle', turnId: 1, at: T + config.settleBudgetMs },
    ]);
    assert.equal(unverified.state.turn.phase, 'unverified');
    const before = (unverified.state.turn as { stop: { cancelsSent: number } }).stop.cancelsSent;
    const checked = run([{ kind: 'checkAgain', at: T + 20_000 }], unverified.state);
    assert.equal(checked.state.turn.phase, 'stopping');
    assert.equal((checked.state.turn as { stop: { cancelsSent: number } }).stop.cancelsSent, before + 1);
    const running = run([{ kind: 'submit', at: T }]);
    assert.deepEqual(run([{ kind: 'checkAgain', at: T }], running.state), { state: running.state, effects: [] });
  });
});
