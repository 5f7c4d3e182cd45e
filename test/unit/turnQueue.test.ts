// The queue and steering in the pure turn machine: a prompt typed while a turn runs waits in
// the machine's queue and becomes the next turn only when the running one ends by itself;
// every other end releases the queue (its text goes back to the input box). A steer goes out
// only into a turn in flight.
import * as assert from 'node:assert/strict';
import { initialState, type Effect, type MachineEvent, type MachineState } from '../../src/runtime/turnMachine';
import { config, run, T } from '../support/machineRun';

const named = (effects: Effect[]) =>
  effects.map((e) => {
    switch (e.kind) {
      case 'startQueued':
        return `startQueued:${e.queueId}→${e.turnId}`;
      case 'releaseQueue':
        return `releaseQueue:${e.queueIds.join(',')}:${e.why}`;
      case 'queueRefused':
        return `queueRefused:${e.queueId}:${e.phase}`;
      case 'sendSteer':
        return `sendSteer:${e.steerId}@${e.turnId}`;
      case 'steerRefused':
        return `steerRefused:${e.steerId}:${e.phase}`;
      case 'turnEnded':
        return `turnEnded:${e.turnId}:${e.result.kind}`;
      case 'sendPrompt':
        return `sendPrompt:${e.turnId}`;
      case 'prepareQueued':
        return `prepareQueued:${e.turnId}`;
      default:
        return e.kind;
    }
  });
const enqueue = (queueId: number): MachineEvent => ({ kind: 'enqueue', queueId, at: T });
const submit: MachineEvent = { kind: 'submit', at: T };
const prepared = (turnId: number): MachineEvent => ({ kind: 'prepared', turnId, at: T });

describe('turn machine: queue', () => {
  // Sabotage (next() made to go idle without taking the queue), this printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
  //   [ 'clearTimers', 'turnEnded:1:completed', - 'startQueued:7→2', - 'queueChanged', - 'prepareQueued:2' ]
  it('a queued prompt becomes the next turn when the running turn ends by itself, in order', () => {
    const queued = run([submit, enqueue(7), enqueue(8)]);
    assert.deepEqual(queued.state.queue, [7, 8]);
    assert.deepEqual(named(queued.effects), ['sendPrompt:1', 'queueChanged', 'queueChanged']);
    const first = run([{ kind: 'answered', turnId: 1, stopReason: 'end_turn', at: T }], queued.state);
    assert.deepEqual(named(first.effects), ['clearTimers', 'turnEnded:1:completed', 'startQueued:7→2', 'queueChanged', 'prepareQueued:2']);
    assert.deepEqual(first.state.turn, { phase: 'waiting', turnId: 2, attempt: 0, retryDeadline: T + config.busyRetryBudgetMs, preparing: true });
    assert.deepEqual(first.state.queue, [8]);
    const sent = run([prepared(2)], first.state);
    assert.deepEqual(named(sent.effects), ['sendPrompt:2']);
    assert.deepEqual(sent.state.turn, { phase: 'running', turnId: 2, attempt: 0 });
    const second = run([{ kind: 'answered', turnId: 2, stopReason: 'end_turn', at: T }, prepared(3)], sent.state);
    assert.deepEqual(named(second.effects), ['clearTimers', 'turnEnded:2:completed', 'startQueued:8→3', 'queueChanged', 'prepareQueued:3', 'sendPrompt:3']);
    const last = run([{ kind: 'answered', turnId: 3, stopReason: 'end_turn', at: T }], second.state);
    assert.deepEqual(last.state, { turn: { phase: 'idle' }, lastTurnId: 3, queue: [] });
  });

  // A queued prompt gets the undo checkpoint a typed one gets (FolderConversation.send) before it goes.
  // Sabotage (the idleSignal case retrying a preparing turn), this printed:
  //   AssertionError [ERR_ASSERTION]: goose's idle after turn 1 sent turn 2 before its checkpoint  + [ 'clearTimer', 'sendPrompt:2' ] - []
  it('a queued turn goes out only once prepared: not at the idle that ended the turn before; a stop meanwhile sends nothing', () => {
    const ended = run([submit, enqueue(1), { kind: 'answered', turnId: 1, stopReason: 'end_turn', at: T }]);
    const idle = run(
      [
        { kind: 'idleSignal', at: T },
        { kind: 'timer', timer: 'retry', turnId: 2, at: T },
      ],
      ended.state,
    );
    assert.deepEqual(named(idle.effects), [], "goose's idle after turn 1 sent turn 2 before its checkpoint");
    const stopped = run([{ kind: 'stop', cause: 'user', at: T }, prepared(2)], ended.state);
    assert.deepEqual(named(stopped.effects), ['clearTimers', 'turnEnded:2:not-sent', 'stopEnded']);
    assert.deepEqual(stopped.state.turn, { phase: 'idle' });
    assert.deepEqual(named(run([prepared(1)], ended.state).effects), [], 'a prepared for another turn is fenced off');
  });

  it('the next turn from the queue gets its own time limit', () => {
    const limited = { ...config, turnLimitMs: 60_000 };
    const { effects } = run([submit, enqueue(1), { kind: 'answered', turnId: 1, stopReason: 'end_turn', at: T }], initialState, limited);
    assert.deepEqual(
      effects.filter((e) => e.kind === 'startTimer').map((e) => e.kind === 'startTimer' && e.turnId),
      [1, 2],
    );
  });

  it('queues while waiting to retry a busy rejection, too', () => {
    const { state } = run([submit, { kind: 'busyRejected', turnId: 1, message: 'active run', at: T }, enqueue(1)]);
    assert.equal(state.turn.phase, 'waiting');
    assert.deepEqual(state.queue, [1]);
  });

  // Sabotage (released() keeping the queue and sending no releaseQueue), this printed:
  //   AssertionError [ERR_ASSERTION]: stop (user)  + [] - [ 'releaseQueue:1,2:stopped' ]
  it('every end that is not by itself releases the queue: a stop, an error, the exit, out of step, a busy give-up', () => {
    const ends: [string, MachineEvent[], string][] = [
      ['stop (user)', [{ kind: 'stop', cause: 'user', at: T }], 'stopped'],
      ['stop (turn-timeout)', [{ kind: 'timer', timer: 'turnLimit', turnId: 1, at: T }], 'stopped'],
      ['stop (tool-cap)', [{ kind: 'toolCall', turnId: 1, count: 99, at: T }], 'stopped'],
      ['stop (dead stream)', [{ kind: 'stop', cause: 'dead-stream', at: T }], 'exited'],
      ['error', [{ kind: 'failed', turnId: 1, message: 'boom', at: T }], 'failed'],
      ['exit', [{ kind: 'exited', detail: 'code 1', at: T }], 'exited'],
      ['out of step', [{ kind: 'answered', turnId: 1, stopReason: 'end_turn', outOfStep: true, at: T }], 'out-of-step'],
      ['busy give-up', [{ kind: 'busyRejected', turnId: 1, message: 'active run', at: T + 60_000 }], 'failed'],
    ];
    for (const [what, events, why] of ends) {
      const from = run([submit, enqueue(1), enqueue(2)], initialState, { ...config, turnLimitMs: 1, toolCallCap: 5, busyRetryBudgetMs: 0 }).state;
      const { state, effects } = run(events, from, { ...config, turnLimitMs: 1, toolCallCap: 5, busyRetryBudgetMs: 0 });
      assert.deepEqual(
        named(effects).filter((k) => k.startsWith('releaseQueue')),
        [`releaseQueue:1,2:${why}`],
        what,
      );
      assert.deepEqual(state.queue, [], what);
      assert.ok(!named(effects).some((k) => k.startsWith('startQueued')), `${what}: nothing sent from the queue`);
    }
  });

  it('a stop while waiting to retry releases the queue too', () => {
    const from = run([submit, { kind: 'busyRejected', turnId: 1, message: 'active run', at: T }, enqueue(3)]).state;
    const { effects } = run([{ kind: 'stop', cause: 'user', at: T }], from);
    assert.ok(named(effects).includes('releaseQueue:3:stopped'));
  });

  it('nothing is queued while idle, stopping or unverified: the caller decides (send, or join the stop)', () => {
    assert.deepEqual(named(run([enqueue(1)]).effects), ['queueRefused:1:idle']);
    const stopping = run([submit, { kind: 'stop', cause: 'user', at: T }]).state;
    assert.deepEqual(named(run([enqueue(2)], stopping).effects), ['queueRefused:2:stopping']);
    assert.deepEqual(run([enqueue(2)], stopping).state.queue, []);
  });

  it('a removed prompt leaves the queue; one removed twice or never queued changes nothing', () => {
    const from = run([submit, enqueue(1), enqueue(2)]).state;
    const removed = run([{ kind: 'unqueue', queueId: 1, at: T }], from);
    assert.deepEqual(removed.state.queue, [2]);
    assert.deepEqual(named(removed.effects), ['queueChanged']);
    assert.deepEqual(named(run([{ kind: 'unqueue', queueId: 1, at: T }], removed.state).effects), []);
    assert.deepEqual(named(run([enqueue(2)], removed.state).effects), [], 'queued twice: once');
  });

  it('a late answer to an earlier turn does not start the queue', () => {
    const from = run([submit, { kind: 'answered', turnId: 1, stopReason: 'end_turn', at: T }, submit, enqueue(1)]).state;
    const { effects, state } = run([{ kind: 'answered', turnId: 1, stopReason: 'end_turn', at: T }], from);
    assert.deepEqual(effects, []);
    assert.deepEqual(state.queue, [1]);
  });
});

describe('turn machine: steer', () => {
  // Sabotage (the phase check removed: a steer sent whatever the phase), this printed:
  //   AssertionError [ERR_ASSERTION]: idle  + 'sendSteer:1@undefined' - 'steerRefused:1:idle'
  it('goes only into a turn in flight; refused while idle, waiting to retry, stopping or unverified', () => {
    const steer: MachineEvent = { kind: 'steer', steerId: 1, at: T };
    const running = run([submit]).state;
    assert.deepEqual(named(run([steer], running).effects), ['sendSteer:1@1']);
    assert.deepEqual(run([steer], running).state, running, 'a steer does not change the turn');
    const phases: [string, MachineState][] = [
      ['idle', initialState],
      ['waiting', run([submit, { kind: 'busyRejected', turnId: 1, message: 'active run', at: T }]).state],
      ['stopping', run([submit, { kind: 'stop', cause: 'user', at: T }]).state],
      ['unverified', run([submit, { kind: 'stop', cause: 'user', at: T }, { kind: 'timer', timer: 'settle', turnId: 1, at: T }]).state],
    ];
    for (const [phase, state] of phases) assert.deepEqual(named(run([steer], state).effects), [`steerRefused:1:${phase}`], phase);
  });
});
