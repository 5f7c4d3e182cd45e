// The lifeline with real processes: a stand-in extension host (lifelineHost.entry.ts) starts
// the scripted agent through AgentProcess as the extension does (watchdog + record), drives it
// into a tool, and is then killed with SIGKILL, as a crashed or killed extension host would be.
// The agent ignores stdin's end and SIGTERM (as codex-acp and claude-agent-acp ignore the first),
// and its tool is `sleep 60` in its process group.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { AgentProcess } from '../../src/acp/agentProcess';
import { isRunning, startTimeOf } from '../../src/acp/processTree';
import { silentLogger } from '../../src/util/logger';
import { events, firstEvent, waitForRecord } from '../fixtures/scriptedAgent/records';
import { nth, sleep, waitFor } from '../support/helpers';

const repo = path.resolve(__dirname, '../../..');
const hostJs = path.join(__dirname, '../support/lifelineHost.entry.js');
const scenarios = path.join(repo, 'test', 'fixtures', 'scriptedAgent', 'scenarios');
const outlivesHost = readFileSync(path.join(scenarios, 'outlives-host.json'), 'utf8');

interface Host {
  proc: ChildProcess;
  dir: string;
  record: string;
  recordsDir: string;
  started: { agent: number; watchdog: number; host: number };
  next(event: string): Promise<any>;
}

const spawned: number[] = [];

/** `pollMs`: the watchdog's; 60 s where a test must see that it was released, not that it polled. */
async function startHost(scenario: string, options: { pollMs?: number; graceMs?: number; nodeOptions?: string } = {}, detached = false): Promise<Host> {
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-lifeline-'));
  const record = path.join(dir, 'agent.jsonl');
  const recordsDir = path.join(dir, 'running-agents');
  const proc = spawn(process.execPath, [hostJs, scenario, record, recordsDir, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'], detached });
  const seen: any[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: proc.stdout }).on('line', (line) => {
    seen.push(JSON.parse(line));
    waiters.splice(0).forEach((w) => w());
  });
  const next = (event: string) =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${event}" from the stand-in host; saw ${JSON.stringify(seen)}`)), 8000);
      const look = () => {
        const found = seen.find((e) => e.event === event);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        } else waiters.push(look);
      };
      look();
    });
  const started = await next('started');
  spawned.push(started.host, started.agent, started.watchdog);
  return { proc, dir, record, recordsDir, started, next };
}

async function toolPid(record: string): Promise<number> {
  const entries = await waitForRecord(record, (e) => events(e, 'tool-process-started').length > 0, 8000);
  const pid = firstEvent(entries, 'tool-process-started').pid as number;
  spawned.push(pid);
  return pid;
}

afterEach(() => {
  for (const pid of spawned.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

describe('lifeline: agents do not outlive the extension host (POSIX)', function () {
  this.timeout(20_000);
  if (process.platform === 'win32') return;

  it('SIGKILL of the host: the watchdog ends the agent (deaf to stdin EOF and SIGTERM) and its sleep 60 within a few seconds', async () => {
    // Sabotage (the watchdog's end-of-file handler made to do nothing without "release"), this
    // test printed (the ppid poll, the backup, ended the tree a second later):
    //   AssertionError [ERR_ASSERTION]: The input did not match the regular expression /closed its pipe/.
    //   Input: '{"at":…,"reason":"the extension host 30485 is no longer the parent",…}'
    // Sabotage (endTree's `signal('SIGKILL')` removed: the agent ignores SIGTERM), it printed:
    //   Error: timed out after 10000 ms waiting for agent, its tool and the watchdog gone after the host's SIGKILL
    const host = await startHost(outlivesHost);
    const tool = await toolPid(host.record);
    const { agent, watchdog } = host.started;
    assert.ok(isRunning(agent) && isRunning(tool) && isRunning(watchdog), 'all three run before the kill');
    host.proc.kill('SIGKILL');
    // SIGTERM is ignored: the 1.5 s grace, then SIGKILL.
    await waitFor("agent, its tool and the watchdog gone after the host's SIGKILL", () => ![agent, tool, watchdog].some(isRunning));
    const report = readFileSync(path.join(host.recordsDir, 'watchdog.jsonl'), 'utf8');
    assert.match(report, /closed its pipe/);
    assert.ok(
      JSON.parse(nth(report.trim().split('\n'), 0, 'the watchdog report lines')).ended.some((p: any) => p.pid === tool && /sleep 60/.test(p.command)),
      report,
    );
  });

  it("SIGKILL of the host's whole process group (as code-server's stop does), NODE_OPTIONS poisoned: the watchdog still ends the tree", async () => {
    // Sabotage (the watchdog spawned with `detached: false`, so in the host's group), this test printed:
    //   Error: timed out after 10000 ms waiting for agent and its tool gone after the group's SIGKILL
    // Sabotage (NODE_OPTIONS passed on to the watchdog, which then cannot start), it printed the same:
    //   Error: timed out after 10000 ms waiting for agent and its tool gone after the group's SIGKILL
    const host = await startHost(outlivesHost, { nodeOptions: '--require=/nonexistent/reins-poison.js', graceMs: 500 }, true);
    const tool = await toolPid(host.record);
    assert.ok(isRunning(host.started.watchdog), 'the watchdog runs');
    process.kill(-host.started.host, 'SIGKILL');
    await waitFor("agent and its tool gone after the group's SIGKILL", () => ![host.started.agent, tool, host.started.watchdog].some(isRunning));
  });

  it("SIGKILL of the host with a terminal running (its own group, the host's child, not in the agent's tree): the watchdog ends it too", async () => {
    // Sabotage (the watchdog ignoring the `guard` lines: hostGone ending the agent's tree only),
    // this test printed:
    //   Error: the terminal's shell and its sleep gone after the host's SIGKILL: not within 5000 ms
    const host = await startHost(outlivesHost);
    await toolPid(host.record);
    host.proc.stdin!.write('terminal\n');
    const terminal = await host.next('terminal');
    spawned.push(terminal.pid, terminal.sleep);
    assert.ok(isRunning(terminal.pid) && isRunning(terminal.sleep), 'the terminal and its sleep run');
    host.proc.kill('SIGKILL');
    await waitFor("the terminal's shell and its sleep gone after the host's SIGKILL", () => !isRunning(terminal.pid) && !isRunning(terminal.sleep));
    await waitFor('the watchdog gone', () => !isRunning(host.started.watchdog));
    const report = JSON.parse(
      nth(
        readFileSync(path.join(host.recordsDir, 'watchdog.jsonl'), 'utf8').trim().split('\n'),
        0,
        "readFileSync(path.join(host.recordsDir, 'watchdog.jsonl'), '",
      ),
    );
    assert.deepEqual(report.terminals, [terminal.pid]);
    assert.ok(
      report.ended.some((p: any) => p.pid === terminal.sleep),
      JSON.stringify(report.ended),
    );
  });

  it('end() while a terminal runs: the watchdog stays until the terminal is ended too, then is released', async () => {
    // Sabotage (Lifeline.release not waiting for the guarded terminals), this test printed:
    //   AssertionError [ERR_ASSERTION]: the watchdog still guards the terminal after the agent was ended
    const host = await startHost(outlivesHost, { pollMs: 60_000 });
    await toolPid(host.record);
    host.proc.stdin!.write('terminal\n');
    const terminal = await host.next('terminal');
    spawned.push(terminal.pid, terminal.sleep);
    host.proc.stdin!.write('end\n');
    await host.next('ended');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(isRunning(host.started.watchdog), 'the watchdog still guards the terminal after the agent was ended');
    host.proc.stdin!.write('endTerminal\n');
    await host.next('terminalEnded');
    await waitFor('watchdog released once the terminal was ended', () => !isRunning(host.started.watchdog), 500);
    assert.ok(!existsSync(path.join(host.recordsDir, 'watchdog.jsonl')), 'the watchdog ended nothing');
    host.proc.kill('SIGKILL');
  });

  it('end(): reports the sleep 60 it ended besides the agent, and releases the watchdog without it touching anything', async () => {
    // Sabotage (the watchdog taking end of file as the host's death even after "release"),
    // this test printed:
    //   AssertionError [ERR_ASSERTION]: the watchdog ended nothing
    const host = await startHost(outlivesHost, { pollMs: 60_000 });
    const tool = await toolPid(host.record);
    host.proc.stdin!.write('end\n');
    const { report } = await host.next('ended');
    assert.equal(report.signal, 'SIGKILL', 'it ignores SIGTERM: reported as killed');
    assert.deepEqual(report.ended.map((p: any) => p.pid).includes(tool), true, JSON.stringify(report.ended));
    assert.ok(
      report.ended.some((p: any) => /sleep 60/.test(p.command)),
      JSON.stringify(report.ended),
    );
    await waitFor('watchdog released after end()', () => !isRunning(host.started.watchdog), 500);
    assert.ok(isRunning(host.started.host), 'the host lives on');
    assert.ok(!existsSync(path.join(host.recordsDir, 'watchdog.jsonl')), 'the watchdog ended nothing');
    host.proc.kill('SIGKILL');
  });

  it('the agent exits by itself with an empty group: its record goes and the watchdog is released', async () => {
    // Sabotage (`this.release()` removed from Lifeline.agentExited), this test printed:
    //   Error: timed out after 600 ms waiting for watchdog gone once the agent exited
    // Sabotage (the record's removal removed from Lifeline.agentExited), it printed:
    //   Error: timed out after 2000 ms waiting for record removed
    const quick = JSON.stringify({ prompts: [{ steps: [{ text: 'hi' }] }] });
    const host = await startHost(quick, { pollMs: 60_000 });
    const records = () => readdirSync(host.recordsDir).filter((n) => /^agent-.*\.json$/.test(n));
    await waitFor('record written', () => existsSync(host.recordsDir) && records().length === 1);
    const record = JSON.parse(readFileSync(path.join(host.recordsDir, nth(records(), 0, 'records()')), 'utf8'));
    assert.equal(record.pid, host.started.agent);
    assert.equal(record.host.pid, host.started.host);
    host.proc.stdin!.write('close\n');
    const exit = await host.next('exit');
    assert.equal(exit.code, 0);
    await waitFor('watchdog gone once the agent exited', () => !isRunning(host.started.watchdog), 600);
    await waitFor('record removed', () => records().length === 0, 2000);
    host.proc.kill('SIGKILL');
  });

  it('the agent crashed and left its tool in its group: the watchdog keeps guarding it and ends it when the host dies', async () => {
    // Sabotage (Lifeline.agentExited releasing the watchdog whether or not the group is empty),
    // this test printed:
    //   AssertionError [ERR_ASSERTION]: the watchdog still guards the group after the agent's crash
    const crash = JSON.stringify({ prompts: [{ steps: [{ spawn: 'sleep 60' }, { sleepMs: 100 }, { crash: { code: 101 } }], killToolsOnCancel: false }] });
    const host = await startHost(crash);
    const tool = await toolPid(host.record);
    const exit = await host.next('exit');
    assert.equal(exit.code, 101);
    await sleep(300);
    assert.ok(isRunning(host.started.watchdog), "the watchdog still guards the group after the agent's crash");
    assert.ok(isRunning(tool), 'the tool runs on in the group');
    host.proc.kill('SIGKILL');
    await waitFor("tool and watchdog gone after the host's SIGKILL", () => !isRunning(tool) && !isRunning(host.started.watchdog));
  });

  it('end() after a crash ends the leftovers and releases the watchdog that guarded them', async () => {
    // Sabotage (`this.lifeline?.release()` removed from AgentProcess.endTree), this test printed:
    //   Error: timed out after 500 ms waiting for watchdog released after end()
    const crash = JSON.stringify({ prompts: [{ steps: [{ spawn: 'sleep 60' }, { sleepMs: 100 }, { crash: { code: 101 } }], killToolsOnCancel: false }] });
    const host = await startHost(crash, { pollMs: 60_000 });
    const tool = await toolPid(host.record);
    await host.next('exit');
    host.proc.stdin!.write('end\n');
    const { report } = await host.next('ended');
    assert.ok(
      report.ended.some((p: any) => p.pid === tool),
      JSON.stringify(report.ended),
    );
    await waitFor('watchdog released after end()', () => !isRunning(host.started.watchdog), 500);
    host.proc.kill('SIGKILL');
  });

  it('end() after the agent exited by itself ends what its group still holds and lists it (the crash path)', async () => {
    // Sabotage (endTree returning at once when the root has already exited, as the runtime's
    // crash path used to skip its group), this test printed:
    //   AssertionError [ERR_ASSERTION]: []
    const dir = mkdtempSync(path.join(tmpdir(), 'reins-lifeline-'));
    const record = path.join(dir, 'agent.jsonl');
    const crash = JSON.stringify({ prompts: [{ steps: [{ spawn: 'sleep 60' }, { sleepMs: 100 }, { crash: { code: 101 } }], killToolsOnCancel: false }] });
    const agent = new AgentProcess(
      { command: process.execPath, args: [path.join(repo, 'dist', 'scripted-agent.js'), '--scenario-json', crash, '--record', record], cwd: dir },
      silentLogger,
    );
    agent.stdout.resume();
    agent.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }) + '\n');
    agent.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: dir, mcpServers: [] } }) + '\n');
    agent.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 'sess-1', prompt: [] } }) + '\n');
    const tool = await toolPid(record);
    assert.equal((await agent.exited).code, 101);
    const report = await agent.end();
    assert.equal(report.code, 101, "the exit reported is the agent's own");
    assert.ok(
      report.ended.some((p) => p.pid === tool && /sleep 60/.test(p.command)),
      JSON.stringify(report.ended),
    );
    await waitFor('tool gone', () => !isRunning(tool), 1000);
  });
});

describe('the watchdog alone (POSIX)', function () {
  this.timeout(15_000);
  if (process.platform === 'win32') return;
  const watchdogJs = path.join(repo, 'dist', 'watchdog.js');

  /** `sh` leading its own group with `sleep 60` below: an agent's tree. */
  async function agentTree(): Promise<{ root: number; child: number }> {
    const p = spawn('sh', ['-c', 'sleep 60 & wait'], { detached: true, stdio: 'ignore' });
    p.unref();
    spawned.push(p.pid!);
    let child: number | undefined;
    await waitFor('the tree starts', () => (child = findChild(p.pid!)) !== undefined);
    spawned.push(child!);
    return { root: p.pid!, child: child! };
  }

  function findChild(ppid: number): number | undefined {
    for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) return Number(name);
      } catch {
        // gone meanwhile
      }
    }
    return undefined;
  }

  it('notices that its parent is gone even while its pipe stays open (another process holds it)', async () => {
    // Sabotage (the `process.ppid !== args.host` check in the poll removed), this test printed:
    //   Error: timed out after 3000 ms waiting for the tree ended after the watchdog's parent died
    const { root, child } = await agentTree();
    // Its stdin is a FIFO that this test also holds open for writing, so no end of file comes
    // when its parent dies: only the change of parent tells. (A pipe from spawn() would not do:
    // Node closes a child's stdin pipe when the child exits.)
    const fifo = path.join(mkdtempSync(path.join(tmpdir(), 'reins-lifeline-')), 'host-pipe');
    execFileSync('mkfifo', [fifo]);
    const holder = openSync(fifo, 'r+');
    try {
      // A parent that starts the watchdog on that FIFO and exits.
      const middle = spawn(
        process.execPath,
        [
          '-e',
          `const w = require('child_process').spawn(process.execPath, [${JSON.stringify(watchdogJs)}, '--agent', '${root}', '--start', ${JSON.stringify(startTimeOf(root))}, '--host', String(process.pid), '--poll', '100', '--grace', '300'], { detached: true, stdio: [require('fs').openSync(${JSON.stringify(fifo)}, 'r'), 'ignore', 'ignore'] }); console.log(w.pid); setTimeout(() => process.exit(0), 300);`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const dog = await new Promise<number>((resolve) => middle.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
      spawned.push(dog);
      await waitFor("the tree ended after the watchdog's parent died", () => !isRunning(root) && !isRunning(child), 3000);
      await waitFor('the watchdog gone', () => !isRunning(dog), 2000);
    } finally {
      closeSync(holder);
    }
  });

  it('leaves by itself once the agent is gone and its group empty, though never released', async () => {
    // Sabotage (`if (nothingToGuard()) quit();` removed from the poll), this test printed:
    //   Error: timed out after 2000 ms waiting for the watchdog left (the wait was 2 s then)
    const { root } = await agentTree();
    const dog = spawn(process.execPath, [watchdogJs, '--agent', String(root), '--start', startTimeOf(root)!, '--host', String(process.pid), '--poll', '100'], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    spawned.push(dog.pid!);
    await sleep(300);
    assert.ok(isRunning(dog.pid!), 'guarding while the tree runs');
    process.kill(-root, 'SIGKILL');
    // 10 s, not 2: at a load average of 7 (an npm test beside this one) it took longer than 2 s
    // once; the sabotaged watchdog never leaves, so the wait still fails it.
    await waitFor('the watchdog left', () => !isRunning(dog.pid!), 10_000);
    dog.stdin.end();
  });
});
