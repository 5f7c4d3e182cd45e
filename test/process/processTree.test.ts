// The process listing: on Linux read from /proc without starting a process (a `ps` forks the
// extension host, and the fork held its event loop 10–50 ms right at a stop's outcome: the
// gate and `reins.stop` waited for it; npm run bench, "answer → gate open"). Compared here with
// what ps lists on the real machine; the parsing alone: test/unit/processTree.test.ts.
import * as assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { listProcesses, parsePsOutput } from '../../src/acp/processTree';

describe('process listing: the real machine', function () {
  if (process.platform !== 'linux') return;
  let child: ReturnType<typeof spawn> | undefined;
  afterEach(() => child?.kill('SIGKILL'));

  // Sabotage (listProcesses reading `ps` on Linux again), this printed:
  //   AssertionError [ERR_ASSERTION]: the listing started 1 process(es): it must read /proc
  it('lists what ps lists, with the same pid, parent, group, command and start, and starts no process', async () => {
    child = spawn('sleep', ['41.5'], { detached: true, stdio: 'ignore' });
    const pid = child.pid!;
    // Every process node starts (execFile, spawn, exec) goes through ChildProcess#spawn.
    const started: string[] = [];
    const proto = ChildProcess.prototype as unknown as { spawn: (this: ChildProcess, options: { file?: string }) => unknown };
    const spawnOriginal = proto.spawn;
    proto.spawn = function (options) {
      started.push(String(options?.file));
      return spawnOriginal.call(this, options);
    };
    let listed;
    try {
      listed = await listProcesses();
    } finally {
      proto.spawn = spawnOriginal;
    }
    assert.equal(started.length, 0, `the listing started ${started.length} process(es): it must read /proc`);
    const psList = parsePsOutput(execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,etime=,args='], { encoding: 'utf8' }), Date.now());
    const mine = listed.find((p) => p.pid === pid);
    const theirs = psList.find((p) => p.pid === pid);
    assert.ok(mine && theirs, 'both list the child');
    assert.deepEqual({ ...mine, startedAt: 0, startedWithinMs: undefined }, { ...theirs, startedAt: 0, startedWithinMs: undefined });
    // ps gives start times to the second; /proc to the clock tick.
    assert.ok(Math.abs(mine.startedAt - theirs.startedAt) <= 1500, `starts ${mine.startedAt} vs ${theirs.startedAt}`);
    assert.ok(Math.abs(mine.startedAt - Date.now()) < 10_000, 'the child started just now');
    assert.ok(
      listed.some((p) => p.pid === process.pid && p.command.includes('mocha')),
      'this process, with its arguments',
    );
  });
});
