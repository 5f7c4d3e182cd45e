// The checkout lock across windows (admission/checkoutLock.ts): two "windows" are two
// CheckoutLocks on one directory, with their own owner identity; a dead owner is a real process
// that held the lock and was killed.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startTimeOf } from '../../src/acp/processTree';
import { checkoutRoot, CheckoutLocks, liveOwner } from '../../src/admission/checkoutLock';
import { waitFor } from '../support/helpers';

describe('checkout lock across windows', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-locks-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('one window holds a checkout; the other is told who; released on settle; marked while unverified', async () => {
    const a = new CheckoutLocks(dir);
    const b = new CheckoutLocks(dir);
    assert.deepEqual(await a.acquire('/repo', 'goose', '/repo'), { open: true });
    assert.deepEqual(await a.acquire('/repo', 'goose', '/repo'), { open: true }, 'its own lock again: open');
    const refused = await b.acquire('/repo', 'codex', '/repo/sub');
    // Sabotage (the lock copied into place instead of linked: an existing one written over), this printed:
    //   AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: true !== false
    assert.equal(refused.open, false);
    assert.equal(!refused.open && refused.holder.agent, 'goose');
    assert.equal(!refused.open && refused.why, 'running');
    assert.deepEqual(await b.acquire('/other', 'codex', '/other'), { open: true }, 'another checkout is free');
    await a.mark('/repo', 'unverified', '/repo');
    const check = await b.check('/repo');
    assert.equal(!check.open && check.why, 'unverified');
    await a.release('/repo', '/repo');
    assert.deepEqual(await b.acquire('/repo', 'codex', '/repo/sub'), { open: true });
    b.releaseAll();
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  // reins.parallelTurnsPerFolder with a checkout and its subfolder open in one window: two folder
  // sessions hold the one lock of the checkout. The first turn to end must not free it.
  // Sabotage (release removing the lock at the first folder's end, as before the fix), this printed:
  //   AssertionError [ERR_ASSERTION]: the subfolder's turn still runs: refused  true !== false
  // Sabotage (the record naming the latest holder, not the unverified one), this printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: + 'running goose' - 'unverified codex'
  it('two folders of one window in one checkout: the lock goes when the last of their turns ends', async () => {
    const window = new CheckoutLocks(dir);
    const other = new CheckoutLocks(dir);
    assert.deepEqual(await window.acquire('/repo', 'goose', '/repo'), { open: true });
    assert.deepEqual(await window.acquire('/repo', 'codex', '/repo/sub'), { open: true }, 'the same window: open');
    await window.release('/repo', '/repo');
    const refused = await other.acquire('/repo', 'claude', '/repo');
    assert.equal(refused.open, false, "the subfolder's turn still runs: refused");
    assert.equal(!refused.open && refused.holder.agent, 'codex', 'named after the turn that still holds it');
    assert.equal(!refused.open && refused.holder.folder, '/repo/sub');
    assert.ok(window.holds('/repo', '/repo/sub') && !window.holds('/repo', '/repo'));
    // One holder unverified: the lock says so, whichever of them took it last.
    assert.deepEqual(await window.acquire('/repo', 'goose', '/repo'), { open: true });
    await window.mark('/repo', 'unverified', '/repo/sub');
    const check = await other.check('/repo');
    assert.equal(!check.open && `${check.why} ${check.holder.agent}`, 'unverified codex');
    await window.release('/repo', '/repo/sub');
    assert.equal((await other.acquire('/repo', 'claude', '/repo')).open, false, "the root's second turn still runs");
    await window.release('/repo', '/repo');
    assert.deepEqual(await other.acquire('/repo', 'claude', '/repo'), { open: true });
  });

  it('a lock whose window died is taken over; a reused pid is not its owner', async () => {
    // A real process holds the lock, then is killed.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    child.unref(); // a failure below must not keep mocha waiting for it
    await waitFor('the child', () => startTimeOf(child.pid!) !== undefined);
    const dead = new CheckoutLocks(dir, liveOwner, { pid: child.pid!, start: startTimeOf(child.pid!)! });
    assert.deepEqual(await dead.acquire('/repo', 'goose', '/repo'), { open: true });
    const other = new CheckoutLocks(dir);
    assert.equal((await other.acquire('/repo', 'codex', '/repo')).open, false, 'its owner runs');
    child.kill('SIGKILL');
    await waitFor('the child gone', () => startTimeOf(child.pid!) === undefined);
    // Sabotage (acquire trusting any holder, without the liveOwner probe), this printed:
    //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
    //   + { holder: { agent: 'goose', … }, open: false, why: 'running' }  - { open: true }
    assert.deepEqual(await other.acquire('/repo', 'codex', '/repo'), { open: true });
    // Same pid, another start time: not the owner.
    const reused = new CheckoutLocks(dir, liveOwner, { pid: process.pid, start: 'another life' });
    await reused.acquire('/x', 'a', '/x');
    assert.deepEqual(await new CheckoutLocks(dir).acquire('/x', 'b', '/x'), { open: true });
  });

  it('two windows taking over one stale lock at once: exactly one gets it', async () => {
    const stale = new CheckoutLocks(dir, liveOwner, { pid: process.pid, start: 'a window that died' });
    await stale.acquire('/repo', 'old', '/repo');
    const windows = Array.from({ length: 6 }, () => new CheckoutLocks(dir));
    const verdicts = await Promise.all(windows.map((w) => w.acquire('/repo', 'codex', '/repo')));
    assert.equal(verdicts.filter((v) => v.open).length, 1);
  });

  it('the root is the git top level, else the real folder', async () => {
    const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'reins-root-')));
    try {
      fs.mkdirSync(path.join(repo, 'sub'));
      assert.equal(await checkoutRoot(path.join(repo, 'sub')), path.join(repo, 'sub'));
      execFileSync('git', ['init', '-q'], { cwd: repo });
      assert.equal(await checkoutRoot(path.join(repo, 'sub')), repo);
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });
});
