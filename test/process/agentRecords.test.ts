// The record of running agents and the activation clean-up: the verdict per record against a
// fake process list, the store on disk, and the clean-up against real process trees (a record
// with the right start time is ended; one whose start time differs, or whose host lives, is not).
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentRecords, endAgentsLeftBehind, judge, type AgentRecord, type ProcessProbe } from '../../src/acp/agentRecords';
import type { TreeEndReport } from '../../src/acp/endTree';
import { descendantsNow, isRunning, startTimeOf } from '../../src/acp/processTree';
import { MemoryLogger } from '../../src/util/logger';
import { nth, waitFor } from '../support/helpers';

function record(over: Partial<AgentRecord> = {}): AgentRecord {
  return {
    version: 1,
    hostname: 'box',
    pid: 4242,
    pgid: 4242,
    start: 'boot-a:1000',
    command: 'codex-acp',
    cwd: '/ws',
    startedAt: '2025-01-01T00:00:00.000Z',
    host: { pid: 4100, start: 'boot-a:900' },
    ...over,
  };
}

/** A fake process list: pid → start time. */
function probe(list: Record<number, string>, name = 'box'): ProcessProbe {
  return { hostname: name, startTimeOf: (pid) => list[pid] };
}

describe('agent records: the verdict per record (fake process list)', () => {
  const table: [string, AgentRecord, Record<number, string>, string][] = [
    ['host gone, agent alive with the same start time', record(), { 4242: 'boot-a:1000' }, 'end'],
    // Sabotage (judge comparing only that the pid exists, not its start time), this row and the
    // next printed "AssertionError: pid reused by a later process  -end +reused" (and the
    // clean-up tests below failed: [11, +12] and [7320, +7321], the reused one ended).
    ['pid reused by a later process', record(), { 4242: 'boot-a:5000' }, 'reused'],
    ['pid reused after a reboot (same ticks, other boot)', record(), { 4242: 'boot-b:1000' }, 'reused'],
    ['agent gone', record(), {}, 'gone'],
    // Sabotage (the owner check removed from judge), this row printed
    // "AssertionError: host still running (another window)  -end +owner-alive" (and the
    // clean-up tests below failed: [11, +14] and [7682, +7685], the live window's agent ended).
    ['host still running (another window)', record(), { 4100: 'boot-a:900', 4242: 'boot-a:1000' }, 'owner-alive'],
    ['host pid reused: the host is gone', record(), { 4100: 'boot-a:7000', 4242: 'boot-a:1000' }, 'end'],
    // Sabotage (the hostname check removed), this row printed
    // "AssertionError: written on another machine sharing the folder  -end +other-machine".
    ['written on another machine sharing the folder', record({ hostname: 'other' }), { 4242: 'boot-a:1000' }, 'other-machine'],
  ];
  for (const [name, rec, list, want] of table) {
    it(name, () => {
      const got = judge(rec, probe(list));
      assert.equal(got, want, `${name}: expected '${want}', got '${got}'`);
    });
  }
});

describe('agent records: the store and the clean-up', function () {
  this.timeout(15_000);
  let dir: string;
  let records: AgentRecords;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'reins-records-'));
    records = new AgentRecords(path.join(dir, 'running-agents'));
  });

  it('writes, reads and removes records; a file that is not a record is removed', async () => {
    await records.write(record());
    await records.write(record({ pid: 5000, pgid: 5000 }));
    writeFileSync(path.join(records.dir, 'agent-box-77.json'), '{"half":');
    assert.deepEqual((await records.readAll()).map((r) => r.pid).sort(), [4242, 5000]);
    assert.ok(!existsSync(path.join(records.dir, 'agent-box-77.json')));
    await records.remove(record());
    assert.deepEqual(
      (await records.readAll()).map((r) => r.pid),
      [5000],
    );
    assert.deepEqual(
      readdirSync(records.dir).filter((n) => n.endsWith('.tmp')),
      [],
    );
  });

  it('ends only the records judged `end`, drops the gone and reused ones, leaves the rest', async () => {
    const list = { 4100: 'boot-a:900', 1: 'boot-a:1', 11: 'boot-a:11', 12: 'boot-a:99', 14: 'boot-a:14' };
    await records.write(record({ pid: 11, pgid: 11, start: 'boot-a:11', host: { pid: 3, start: 'x' } })); // end
    await records.write(record({ pid: 12, pgid: 12, start: 'boot-a:12', host: { pid: 3, start: 'x' } })); // reused
    // Under a name Reins would not give it (copied from elsewhere): still handled and removed.
    writeFileSync(path.join(records.dir, 'agent-copied.json'), JSON.stringify(record({ pid: 13, pgid: 13, start: 'boot-a:13', host: { pid: 3, start: 'x' } }))); // gone
    await records.write(record({ pid: 14, pgid: 14, start: 'boot-a:14' })); // owner alive
    await records.write(record({ pid: 15, pgid: 15, hostname: 'other' })); // other machine
    const ended: number[] = [];
    const end = async (pid: number): Promise<TreeEndReport> => (
      ended.push(pid),
      { ended: [{ pid: 99, ppid: pid, pgid: pid, startedAt: 0, command: 'sleep 60' }], survivors: [] }
    );
    const log = new MemoryLogger();
    await endAgentsLeftBehind(records, log, { probe: probe(list), end });
    assert.deepEqual(ended, [11]);
    assert.deepEqual((await records.readAll()).map((r) => r.pid).sort(), [14, 15]);
    assert.equal(readdirSync(records.dir).length, 2, readdirSync(records.dir).join(', '));
    assert.ok(
      log.lines.some((l) => /^warn ended agent 11 \(codex-acp.*also ended: 99 sleep 60/.test(l)),
      log.lines.join('\n'),
    );
  });

  it('logs what the watchdog ended, once', async () => {
    await records.write(record());
    appendFileSync(
      records.watchdogLog,
      JSON.stringify({
        at: 'T',
        reason: 'the extension host closed its pipe',
        agent: 7,
        label: 'codex-acp',
        ended: [{ pid: 8, command: 'sleep 60' }],
        survivors: [],
      }) + '\n',
    );
    const log = new MemoryLogger();
    await endAgentsLeftBehind(records, log, { probe: probe({}) });
    assert.ok(
      log.lines.some((l) => /watchdog ended agent 7 \(codex-acp\): the extension host closed its pipe; also ended: 8 sleep 60/.test(l)),
      log.lines.join('\n'),
    );
    const again = new MemoryLogger();
    await endAgentsLeftBehind(records, again, { probe: probe({}) });
    assert.ok(!again.lines.some((l) => /watchdog/.test(l)), again.lines.join('\n'));
  });

  it("real trees: the one recorded with its start time is ended, the one with another start time and the live host's are not", async function () {
    if (process.platform === 'win32') this.skip();
    // Each tree: `sh` leading its own process group (as an agent is spawned) with a `sleep 60` child.
    const tree = () => {
      const p = spawn('sh', ['-c', 'sleep 60 & wait'], { detached: true, stdio: 'ignore' });
      p.unref();
      return p.pid!;
    };
    const [left, wrongStart, ownHosts] = [tree(), tree(), tree()];
    // Each shell forks its sleep when it is scheduled, which a fixed pause did not always outlast
    // on a loaded machine.
    await waitFor('each shell to fork its sleep', async () => (await Promise.all([left, wrongStart, ownHosts].map(descendantsNow))).every((d) => d.length > 0));
    const sleepOf = async (pid: number) => nth(await descendantsNow(pid), 0, `the children of ${pid}`).pid;
    const leftSleep = await sleepOf(left);
    const wrongSleep = await sleepOf(wrongStart);
    // A host that is certainly gone: a process that has exited.
    const deadHost = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim();
    const gone = { pid: Number(deadHost), start: 'gone' };
    const me = { pid: process.pid, start: startTimeOf(process.pid)! };
    await records.write(record({ hostname: hostname(), pid: left, pgid: left, start: startTimeOf(left)!, command: 'left behind', host: gone }));
    // Sabotage (judge's start-time comparison removed: `return 'end'`), this test printed
    // "AssertionError: Expected values to be strictly deep-equal: [7320, +7321]" (the tree
    // recorded with another start time was ended).
    await records.write(
      record({ hostname: hostname(), pid: wrongStart, pgid: wrongStart, start: `${startTimeOf(wrongStart)}0`, command: 'reused', host: gone }),
    );
    await records.write(record({ hostname: hostname(), pid: ownHosts, pgid: ownHosts, start: startTimeOf(ownHosts)!, command: 'live window', host: me }));
    const log = new MemoryLogger();
    try {
      const ended = await endAgentsLeftBehind(records, log, { graceMs: 500 });
      assert.deepEqual(
        ended.map((e) => e.record.pid),
        [left],
      );
      assert.ok(!isRunning(left) && !isRunning(leftSleep), 'the recorded tree is gone');
      const { report } = nth(ended, 0);
      assert.ok(
        report.ended.some((p) => p.pid === leftSleep && /sleep 60/.test(p.command)),
        JSON.stringify(report),
      );
      assert.ok(isRunning(wrongStart) && isRunning(wrongSleep), 'the tree whose recorded start time differs is left alone');
      assert.ok(isRunning(ownHosts), 'the tree of a live host is left alone');
      assert.ok(
        log.lines.some((l) => /ended agent \d+ \(left behind/.test(l)),
        log.lines.join('\n'),
      );
    } finally {
      for (const pid of [left, wrongStart, ownHosts]) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });
});
