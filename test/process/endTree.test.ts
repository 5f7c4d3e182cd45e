// endTree against real process trees: what it ends, what it reports, and the pid it must not touch.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { endTree } from '../../src/acp/endTree';
import { descendantsNow, isRunning, startTimeOf } from '../../src/acp/processTree';
import { sleep } from '../support/helpers';

/** `sh` leading its own group, with `sleep 60` in the group and one in a session of its own. */
async function tree(): Promise<{ root: number; inGroup: number; escaped: number }> {
  const p = spawn('sh', ['-c', 'sleep 61 & setsid sleep 62 & wait'], { detached: true, stdio: 'ignore' });
  p.unref();
  const root = p.pid!;
  for (let i = 0; i < 100; i++) {
    const below = await descendantsNow(root);
    const inGroup = below.find((x) => /sleep 61/.test(x.command));
    const escaped = below.find((x) => /sleep 62/.test(x.command) && x.pgid !== root);
    if (inGroup && escaped) return { root, inGroup: inGroup.pid, escaped: escaped.pid };
    await sleep(20);
  }
  throw new Error('tree did not start');
}

function killAll(...pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

describe('endTree (POSIX)', function () {
  this.timeout(10_000);
  before(function () {
    if (process.platform === 'win32') this.skip();
  });

  it('ends the group and a descendant that left it, and lists both', async () => {
    // Sabotage (endTree's per-pid signals to the listed tree removed: only the group is
    // signalled, and `setsid sleep 62` is not in it), this test printed:
    //   AssertionError [ERR_ASSERTION]: all gone
    const t = await tree();
    try {
      const report = await endTree(t.root, { graceMs: 500, rootStart: startTimeOf(t.root) });
      assert.ok(![t.root, t.inGroup, t.escaped].some(isRunning), 'all gone');
      assert.deepEqual(report.ended.map((p) => p.pid).sort(), [t.inGroup, t.escaped].sort());
      assert.deepEqual(report.survivors, []);
    } finally {
      killAll(t.root, t.inGroup, t.escaped);
    }
  });

  it('without a process listing (no `ps` in a minimal container), the group signal still ends the group', async () => {
    // Sabotage (the group signal `kill(-root, sig)` removed from endTree), this test printed:
    //   AssertionError [ERR_ASSERTION]: the root and the member of its group are gone
    const t = await tree();
    try {
      await endTree(t.root, { graceMs: 300, rootStart: startTimeOf(t.root), list: async () => [] });
      assert.ok(!isRunning(t.root) && !isRunning(t.inGroup), 'the root and the member of its group are gone');
    } finally {
      killAll(-t.root, t.escaped);
    }
  });

  it('touches nothing when the root pid now names another process (another start time)', async () => {
    // Sabotage (the first-line start-time check in endTree removed), this test printed:
    //   AssertionError [ERR_ASSERTION]: a process that merely has the recorded pid is not ended
    const t = await tree();
    try {
      const report = await endTree(t.root, { graceMs: 200, rootStart: `${startTimeOf(t.root)}-earlier-process` });
      assert.ok(isRunning(t.root) && isRunning(t.inGroup) && isRunning(t.escaped), 'a process that merely has the recorded pid is not ended');
      assert.deepEqual(report, { ended: [], survivors: [] });
    } finally {
      killAll(-t.root, t.escaped);
    }
  });
});

describe('endTree: a pid reused during the grace (fake start times)', function () {
  this.timeout(10_000);
  before(function () {
    if (process.platform === 'win32') this.skip();
  });

  it('does not signal a listed descendant whose pid names another process by the time of the signal', async () => {
    // Sabotage (`same()` in endTree comparing only isRunning, not the start time), this test printed:
    //   AssertionError [ERR_ASSERTION]: the process now holding the listed pid is not signalled
    const t = await tree();
    // Listed as the root's child at first; from then on its start time reads differently, as if
    // it had exited and its pid had gone to this unrelated process.
    const stranger = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    stranger.unref();
    const pid = stranger.pid!;
    let calls = 0;
    const startOf = (p: number) => (p === pid ? (calls++ === 0 ? 'listed-process' : 'another-process') : startTimeOf(p));
    const list = async () => [...(await descendantsNow(t.root)), { pid, ppid: t.root, pgid: pid, startedAt: Date.now(), command: 'sleep 60 (listed)' }];
    try {
      const report = await endTree(t.root, { graceMs: 300, rootStart: startTimeOf(t.root), list, startTimeOf: startOf });
      assert.ok(isRunning(pid), 'the process now holding the listed pid is not signalled');
      // The listed process is gone (its pid names another now): reported ended, not a survivor.
      assert.ok(!report.survivors.some((p) => p.pid === pid), JSON.stringify(report));
      assert.ok(!isRunning(t.inGroup) && !isRunning(t.escaped), 'the real tree is ended');
    } finally {
      killAll(pid, -t.root, t.escaped);
    }
  });
});
