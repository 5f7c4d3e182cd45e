import * as assert from 'node:assert/strict';
import { FolderAdmission, overlaps, type AdmissionMember } from '../../src/admission/folderAdmission';
import type { TurnState } from '../../src/runtime/turnMachine';

function member(name: string, turn: TurnState['phase'], phase: AdmissionMember['phase'] = 'ready'): AdmissionMember {
  const t: TurnState =
    turn === 'idle'
      ? { phase: 'idle' }
      : turn === 'stopping' || turn === 'unverified'
        ? { phase: turn, turnId: 1, stop: { turnId: 1, cause: 'user', requestedAt: 0, cancelsSent: 1 } }
        : turn === 'waiting'
          ? { phase: 'waiting', turnId: 1, attempt: 1, retryDeadline: 0 }
          : { phase: 'running', turnId: 1, attempt: 0 };
  return { name, phase, turns: { turn: t } };
}

describe('folder admission', () => {
  it('nested folders are one checkout; siblings are not', () => {
    assert.ok(overlaps('/repo', '/repo'));
    assert.ok(overlaps('/repo', '/repo/packages/app'));
    assert.ok(overlaps('/repo/packages/app', '/repo'));
    assert.ok(!overlaps('/repo', '/repo2'));
    assert.ok(!overlaps('/a/x', '/a/y'));
  });

  it('a running turn in the folder (or a nested one) closes it to another agent, not to itself', () => {
    const admission = new FolderAdmission();
    const goose = member('goose', 'running');
    const codex = member('codex', 'idle');
    admission.register('/repo', goose);
    admission.register('/repo/sub', codex);
    const v = admission.check('/repo/sub', codex);
    // Sabotage (the running check removed): "Expected values to be strictly deep-equal: + { open: true }".
    assert.deepEqual(v.open ? v : { open: v.open, why: v.why, holder: v.holder.name }, { open: false, why: 'running', holder: 'goose' });
    assert.equal(admission.check('/repo', goose).open, true, "its own running turn is the runtime's business (send now)");
    assert.equal(admission.check('/elsewhere', codex).open, true);
  });

  it('parallelTurnsPerFolder allows a second running turn, but never past an unverified stop', () => {
    let parallel = true;
    const admission = new FolderAdmission(() => parallel);
    const a = member('a', 'running');
    const b = member('b', 'idle');
    admission.register('/repo', a);
    admission.register('/repo', b);
    assert.equal(admission.check('/repo', b).open, true);
    const u = member('u', 'unverified');
    admission.register('/repo', u);
    const v = admission.check('/repo', b);
    assert.equal(v.open ? 'open' : v.why, 'unverified');
    parallel = false;
    assert.equal(admission.check('/repo', u).open, false, 'an unverified runtime is closed to itself too');
  });

  it('a dead agent holds nothing; a disposed registration is gone', () => {
    const admission = new FolderAdmission();
    const dead = member('dead', 'running', 'exited');
    const reg = admission.register('/repo', dead);
    assert.equal(admission.check('/repo').open, true);
    const live = member('live', 'stopping');
    const reg2 = admission.register('/repo', live);
    assert.equal(admission.check('/repo').open, false);
    reg2.dispose();
    reg.dispose();
    assert.equal(admission.check('/repo').open, true);
  });
});
