// The full recovery from an answer one turn behind (src/runtime/outOfStepRecovery.ts): when the
// prompt goes again by itself, and when it is given back, with what a fake agent's restart,
// session and checkpoint say.
import * as assert from 'node:assert/strict';
import { decideResend, recoverOutOfStep, type CheckpointVerdict, type OutOfStepPort } from '../../src/runtime/outOfStepRecovery';

interface Fake {
  session?: string;
}

function port(over: Partial<OutOfStepPort<Fake, string>> & { verdict?: CheckpointVerdict } = {}): { port: OutOfStepPort<Fake, string>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    port: {
      sessionId: 's1',
      restart: () => (calls.push('restart'), Promise.resolve({ session: 's1' })),
      sessionOf: (a) => a.session,
      changes: () => (calls.push('changes'), Promise.resolve('verdict' in over ? over.verdict : { kind: 'git', changed: [] })),
      resend: () => (calls.push('resend'), Promise.resolve('second turn')),
      ...over,
    },
  };
}

describe('out of step: the full recovery', () => {
  // Sabotage (decideResend answering { resend: true } whenever nothing is listed, whatever the
  // checkpoint's kind): "files checkpoint: {"resend":true}".
  it('sends again only when a git checkpoint shows nothing changed', () => {
    assert.deepEqual(decideResend({ kind: 'git', changed: [] }), { resend: true });
    assert.deepEqual(decideResend({ kind: 'git', changed: ['a.txt'] }), { resend: false, reason: 'files-changed', changedFiles: ['a.txt'] });
    assert.deepEqual(decideResend({ kind: 'files', changed: ['a.txt'] }), { resend: false, reason: 'files-changed', changedFiles: ['a.txt'] });
    const files = decideResend({ kind: 'files', changed: [] });
    assert.deepEqual(files, { resend: false, reason: 'unknown-changes', changedFiles: [] }, `files checkpoint: ${JSON.stringify(files)}`);
    assert.deepEqual(decideResend(undefined), { resend: false, reason: 'unknown-changes', changedFiles: [] });
  });

  it('restarts first, reads the checkpoint after, then sends again in the same session', async () => {
    const { port: p, calls } = port();
    assert.deepEqual(await recoverOutOfStep(p), { kind: 'resent', result: 'second turn' });
    assert.deepEqual(calls, ['restart', 'changes', 'resend']);
  });

  it('gives the prompt back with the files the unseen work changed', async () => {
    const { port: p, calls } = port({ verdict: { kind: 'git', changed: ['src/a.ts', 'b.txt'] } });
    assert.deepEqual(await recoverOutOfStep(p), { kind: 'given-back', reason: 'files-changed', changedFiles: ['src/a.ts', 'b.txt'] });
    assert.ok(!calls.includes('resend'));
  });

  // Sabotage (the session comparison removed): "{"kind":"resent","result":"second turn"}".
  it('gives it back when the agent came back in another session, or in none', async () => {
    for (const session of ['s2', undefined]) {
      const { port: p, calls } = port({ restart: () => Promise.resolve({ session }) });
      const outcome = await recoverOutOfStep(p);
      assert.deepEqual(outcome, { kind: 'given-back', reason: 'session-lost', changedFiles: [] }, JSON.stringify(outcome));
      assert.ok(!calls.includes('resend'));
    }
    const { port: noSession } = port({ sessionId: undefined });
    assert.equal((await recoverOutOfStep(noSession)).kind, 'given-back');
  });

  it('gives it back when the agent did not start again, or the checkpoint failed', async () => {
    const { port: failed } = port({ restart: () => Promise.resolve(undefined), verdict: { kind: 'git', changed: ['x'] } });
    assert.deepEqual(await recoverOutOfStep(failed), { kind: 'given-back', reason: 'restart-failed', changedFiles: ['x'] });
    const { port: broken } = port({ changes: () => Promise.reject(new Error('git died')) });
    assert.deepEqual(await recoverOutOfStep(broken), { kind: 'given-back', reason: 'unknown-changes', changedFiles: [] });
  });
});
