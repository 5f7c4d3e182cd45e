// The process listing: on Linux read from /proc without starting a process (a `ps` forks the
// extension host, and the fork held its event loop 10–50 ms right at a stop's outcome: the
// gate and `reins.stop` waited for it; npm run bench, "answer → gate open").
import * as assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { listProcesses, parsePsOutput, procEntry } from '../../src/acp/processTree';

describe('process listing: /proc entries', () => {
  const now = 1_700_000_000_000;

  it('reads pid, ppid, group, start and the arguments (NUL-separated) of one process', () => {
    // comm may hold spaces and parentheses: the fields come after the last ')'.
    const stat = '4242 (my (odd) name) S 4200 4242 4242 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 150000 0 0';
    assert.deepEqual(procEntry(4242, stat, 'sh\0-c\0sleep 37\0', now, 2000), {
      pid: 4242,
      ppid: 4200,
      pgid: 4242,
      // Started 1500 s after boot (150000 ticks of 10 ms), the machine is up 2000 s: 500 s ago.
      startedAt: now - 500_000,
      startedWithinMs: 50,
      command: 'sh -c sleep 37',
    });
  });

  it('names a process without arguments (kernel thread, zombie) [name], as ps does', () => {
    const stat = '7 (kworker/0:1) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 12 0 0';
    assert.equal(procEntry(7, stat, '', now, 100)?.command, '[kworker/0:1]');
    assert.equal(procEntry(7, 'not a stat line', '', now, 100), undefined);
  });
});

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
