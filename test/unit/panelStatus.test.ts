// UI state is derived from the turn machine, never kept beside it: a table of what the user sees.
import * as assert from 'node:assert/strict';
import { deriveStatus, WAITING_FOR_YOU, type StatusInputs } from '../../src/panel/panelStatus';
import type { TurnState } from '../../src/runtime/turnMachine';

const stop = { turnId: 1, cause: 'user' as const, requestedAt: 0, firstCancelAt: 1000, cancelsSent: 1 };
const turns = {
  idle: { phase: 'idle' },
  waiting: { phase: 'waiting', turnId: 1, attempt: 1, retryDeadline: 0 },
  running: { phase: 'running', turnId: 1, attempt: 0 },
  stopping: { phase: 'stopping', turnId: 1, stop },
  unverified: { phase: 'unverified', turnId: 1, stop },
} satisfies Record<string, TurnState>;

function status(turn: keyof typeof turns, over: Partial<StatusInputs> = {}) {
  return deriveStatus({
    agentName: 'goose',
    demo: false,
    folderName: 'repo',
    trusted: true,
    agent: 'ready',
    turn: turns[turn],
    gate: { open: true },
    now: 2500,
    ...over,
  });
}

describe('panel status (derived)', () => {
  const rows: [keyof typeof turns, string, boolean, boolean][] = [
    // turn, phase shown, canSend, canStop
    ['idle', 'idle', true, false],
    ['waiting', 'sending', true, true], // send now works here too: the waiting prompt comes back
    ['running', 'running', true, true], // Enter while running = send now
    ['stopping', 'stopping', false, true],
    ['unverified', 'unverified', false, false],
  ];
  for (const [turn, phase, canSend, canStop] of rows) {
    it(`${turn}: shows ${phase}, send ${canSend}, stop ${canStop}`, () => {
      const s = status(turn);
      assert.equal(s.turn, phase);
      assert.equal(s.canSend, canSend);
      assert.equal(s.canStop, canStop);
    });
  }

  // What the busy line says, derived from the machine and the held permission requests: never
  // "Working" while the agent waits for the user. Sabotage (deriveStatus's running branch back to
  // a plain 'Working…'): "AssertionError [ERR_ASSERTION]: running, a permission waiting
  // + 'Working…' - 'Waiting for you: the agent asks for permission'".
  const detailRows: [keyof typeof turns, boolean, string | RegExp][] = [
    // turn, a permission request held, the busy line
    ['running', false, 'Working…'],
    ['running', true, WAITING_FOR_YOU],
    // A stop answers held requests cancelled: while it does, the line says the stop.
    ['stopping', true, 'Stopping… waiting for the agent to confirm (cancel sent 1.5 s ago)'],
    ['unverified', true, /^Stop not confirmed/],
    ['idle', true, 'Ready'],
  ];
  for (const [turn, permissionPending, detail] of detailRows) {
    const what = `${turn}${permissionPending ? ', a permission waiting' : ''}`;
    it(`${what}: says ${String(detail)}`, () => {
      const s = status(turn, { permissionPending });
      if (typeof detail === 'string') assert.equal(s.detail, detail, what);
      else assert.match(s.detail!, detail, what);
      assert.equal(s.permissionPending, turn === 'running' && permissionPending, `${what}: permissionPending`);
      // One ellipsis at most: the stylesheet adds none (status.css).
      assert.doesNotMatch(s.detail!, /……|…\.|\.…/, what);
    });
  }

  // An elicitation waiting is said as such, and `waitingOn` names it (a permission first).
  // Sabotage (waitingOn without its elicitation branch): "+ undefined - 'elicitation'".
  it('running, an elicitation waiting: says the agent asks a question; waitingOn names what waits', () => {
    const asked = status('running', { elicitationPending: true });
    assert.equal(asked.detail, 'Waiting for you: the agent asks you a question');
    assert.equal(asked.waitingOn, 'elicitation');
    assert.equal(status('running', { elicitationPending: true, permissionPending: true }).waitingOn, 'permission');
    assert.equal(status('stopping', { elicitationPending: true }).waitingOn, undefined, 'a stop is answering it');
    assert.equal(status('running').waitingOn, undefined);
  });

  it('stopping says how long ago the cancel went out', () => {
    assert.match(status('stopping').detail!, /cancel sent 1\.5 s ago/);
  });

  it('an untrusted folder accepts nothing and says why', () => {
    const s = status('idle', { trusted: false });
    assert.equal(s.agent, 'untrusted');
    assert.equal(s.canSend, false);
    assert.match(s.detail!, /not trusted/);
  });

  it('another agent running in the folder closes the input', () => {
    const holder = { name: 'codex', phase: 'ready' as const, turns: { turn: turns.running } };
    const s = status('idle', { gate: { open: false, why: 'running', holder } });
    assert.equal(s.canSend, false);
    assert.match(s.detail!, /Another turn is running in repo \(codex\)/);
  });

  it('the demonstration agent is labelled', () => {
    const s = status('idle', { demo: true });
    assert.equal(s.demo, true);
    assert.match(s.agentNote!, /demonstration/);
  });
});
