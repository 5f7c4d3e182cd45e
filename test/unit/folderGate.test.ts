import * as assert from 'node:assert/strict';
import { FolderGate, overlaps, type GateMember } from '../../src/session/folderGate';
import type { TurnState } from '../../src/session/turnMachine';

function member(name: string, turn: TurnState['phase'], phase: GateMember['phase'] = 'ready'): GateMember {
  const t: TurnState =
    turn === 'idle'
      ? { phase: 'idle' }
      : turn === 'stopping' || turn === 'unverified'
        ? { phase: turn, turnId: 1, stop: { turnId: 1, cause: 'user', requestedAt: 0, cancelsSent: 1 } }
        : turn === 'waiting'
          ? { phase: 'waiting', turnId: 1, attempt: 1, retryDeadline: 0 }
          : { phase: 'running', turnId: 1, attempt: 0 };
  return { name, phase, turn: t };
}

describe('folder gate', () => {
  it('nested folders are one checkout; siblings are not', () => {
    assert.ok(overlaps('/repo', '/repo'));
    assert.ok(overlaps('/repo', '/repo/packages/app'));
    assert.ok(overlaps('/repo/packages/app', '/repo'));
    assert.ok(!overlaps('/repo', '/repo2'));
    assert.ok(!overlaps('/a/x', '/a/y'));
  });

  it('a running turn in the folder (or a nested one) closes it to another agent, not to itself', () => {
    const gate = new FolderGate();
    const goose = member('goose', 'running');
    const codex = member('codex', 'idle');
    gate.register('/repo', goose);
    gate.register('/repo/sub', codex);
    const v = gate.check('/repo/sub', codex);
    // Sabotage (the running check removed): "Expected values to be strictly deep-equal: + { open: true }".
    assert.deepEqual(v.open ? v : { open: v.open, why: v.why, holder: v.holder.name }, { open: false, why: 'running', holder: 'goose' });
    assert.equal(gate.check('/repo', goose).open, true, "its own running turn is the runtime's business (send now)");
    assert.equal(gate.check('/elsewhere', codex).open, true);
  });

  it('parallelTurnsPerFolder allows a second running turn, but never past an unverified stop', () => {
    let parallel = true;
    const gate = new FolderGate(() => parallel);
    const a = member('a', 'running');
    const b = member('b', 'idle');
    gate.register('/repo', a);
    gate.register('/repo', b);
    assert.equal(gate.check('/repo', b).open, true);
    const u = member('u', 'unverified');
    gate.register('/repo', u);
    const v = gate.check('/repo', b);
    assert.equal(v.open ? 'open' : v.why, 'unverified');
    parallel = false;
    assert.equal(gate.check('/repo', u).open, false, 'an unverified runtime is closed to itself too');
  });

  it('a dead agent holds nothing; a disposed registration is gone', () => {
    const gate = new FolderGate();
    const dead = member('dead', 'running', 'exited');
    const reg = gate.register('/repo', dead);
    assert.equal(gate.check('/repo').open, true);
    const live = member('live', 'stopping');
    const reg2 = gate.register('/repo', live);
    assert.equal(gate.check('/repo').open, false);
    reg2.dispose();
    reg.dispose();
    assert.equal(gate.check('/repo').open, true);
  });
});
