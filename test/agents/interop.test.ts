// Reins against real ACP agents (installed from npm by install.mjs), through Reins' own
// runtime (src/session/agentRuntime.ts): the same connection, turn machine and settle routine
// the extension uses. Each agent talks to fakeModel.ts on 127.0.0.1, so this runs offline.
// Run: npm run test:agents   (subset: REINS_AGENTS=codex,gemini npm run test:agents)
//
// Every test starts its own agent in its own temp HOME and ends it in afterEach, which also
// checks that no process of that agent is left (scenario f runs in every test).
import * as assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentRuntime, defaultRuntimeSettings, type PendingPermission, type RuntimeSettings } from '../../src/session/agentRuntime';
import { MemoryLogger } from '../../src/util/logger';
import { prepareAgent, repoRoot, type AgentName, type AgentSetup } from './agents';
import { DONE_ANSWER, EDIT_CONTENT, PLAIN_ANSWER, startFakeModel, type FakeModel } from './fakeModel';

const ALL: AgentName[] = ['codex', 'opencode', 'gemini'];
const AGENTS = (process.env.REINS_AGENTS?.split(',').map((s) => s.trim()) ?? ALL).filter((a): a is AgentName => ALL.includes(a as AgentName));
const SETTLE_MS = 10_000;
const logDir = join(repoRoot(), '.cache', 'agents', 'logs');

let model: FakeModel;
/** Measured timings, printed as a table at the end (copied into README.md). */
const timings: string[] = [];

interface Live {
  rt: AgentRuntime;
  setup: AgentSetup;
  log: MemoryLogger;
  chunks: string[];
}
let live: Live | undefined;

async function startAgent(name: AgentName, settings: Partial<RuntimeSettings> = {}): Promise<Live> {
  const setup = prepareAgent(name, model.url);
  const log = new MemoryLogger();
  const rt = new AgentRuntime({
    name,
    launch: { command: setup.command, args: setup.args, env: setup.env, cwd: setup.cwd },
    settings: () => ({ ...defaultRuntimeSettings, settleTimeoutMs: SETTLE_MS, leftoverProcesses: 'end', ...settings }),
    log,
    // Verbose: the assertions read what actually went over the wire from the trace.
    trace: () => 'verbose',
    clientInfo: { name: 'reins-interop', version: '0' },
  });
  const chunks: string[] = [];
  rt.onUpdate((n) => {
    const u = n.update;
    if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') chunks.push(u.content.text);
  });
  live = { rt, setup, log, chunks };
  const t0 = Date.now();
  await rt.start();
  timings.push(`${name}: start (spawn, initialize, session/new) ${Date.now() - t0} ms`);
  return live;
}

/** Approve every permission request (allow once), for the scenarios that need the tool to run. */
function approveAll(rt: AgentRuntime): void {
  rt.onPermission((p: PendingPermission) => {
    const allow = p.request.options.find((o) => o.kind === 'allow_once') ?? p.request.options[0];
    rt.respondPermission(p.id, allow.optionId);
  });
}

/** Processes whose environment or command line carries the agent's temp root. */
function processesOf(root: string): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ').trim();
      if (!cmd) continue; // a zombie: already dead, only waiting to be reaped
      if (environ.includes(`REINS_INTEROP_ROOT=${root}\0`) || cmd.includes(root)) found.push({ pid: Number(entry), cmd });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const sleepsOf = (root: string) => processesOf(root).filter((p) => p.cmd === 'sleep 37');

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(cond: () => boolean, ms: number, what: string): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - t0;
}

/** Outgoing trace lines: responses Reins sent to `method` (e.g. session/request_permission). */
const repliesTo = (log: MemoryLogger, method: string) => log.lines.filter((l) => l.includes('→') && l.includes(` to ${method} after `));
const requestsOf = (log: MemoryLogger, method: string) => log.lines.filter((l) => l.includes('←') && l.includes(`request ${method} `));

before(async function () {
  mkdirSync(logDir, { recursive: true });
  writeFileSync(join(logDir, 'fake-model.log'), '');
  model = await startFakeModel({ logFile: join(logDir, 'fake-model.log') });
});

after(async () => {
  await model?.close();
  console.log(`\n  measured:\n${timings.map((t) => `    ${t}`).join('\n')}`);
});

afterEach(async function () {
  if (!live) return;
  const { rt, setup, log } = live;
  live = undefined;
  const title = this.currentTest?.fullTitle() ?? '?';
  // (f) for every test: the session ends, nothing of the agent is left. Bounded, so that a
  // shutdown that hangs (an agent that ignores stdin closing) fails here with what is left.
  const t0 = Date.now();
  const ended = await Promise.race([rt.shutdown('deactivate', 2000).then(() => true), delay(10_000).then(() => false)]);
  rt.dispose();
  let left: { pid: number; cmd: string }[] = [];
  try {
    await waitUntil(() => (left = processesOf(setup.root)).length === 0, 3000, 'agent processes gone').catch(() => undefined);
  } finally {
    appendFileSync(join(logDir, `${setup.name}.log`), `\n==== ${title}\n${log.lines.join('\n')}\n`);
  }
  // Clean up after a failure so that it does not spill into the next test.
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  timings.push(`${setup.name}: shutdown → no process left ${Date.now() - t0} ms`);
  assert.deepEqual(left, [], `processes of ${setup.name} left after shutdown`);
  assert.ok(ended, 'shutdown did not finish within 10 s');
  if (this.currentTest?.state === 'passed') rmSync(setup.root, { recursive: true, force: true });
});

for (const name of AGENTS) {
  describe(`${name} (real agent)`, function () {
    this.timeout(90_000);

    it('(a) answers a prompt', async () => {
      const { rt, chunks } = await startAgent(name);
      const t0 = Date.now();
      const result = await rt.prompt('PLAIN please');
      timings.push(`${name}: PLAIN prompt → answer ${Date.now() - t0} ms`);
      assert.deepEqual(result, { kind: 'completed', stopReason: 'end_turn' });
      assert.ok(chunks.join('').includes(PLAIN_ANSWER), `answer: ${JSON.stringify(chunks.join(''))}`);
    });

    it('(b, d) Stop during a long tool call: aborted within the budget, no sleep left; the next prompt is answered', async () => {
      const { rt, setup, chunks } = await startAgent(name);
      approveAll(rt);
      const turn = rt.prompt('LONGCMD please');
      // The tool is running when its process exists (gemini announces no tool_call first).
      await waitUntil(() => sleepsOf(setup.root).length > 0, 30_000, 'sleep 37 started');
      // codex-acp kills the command itself when the cancel comes within ~100-250 ms of its
      // start, and leaves it running when it comes later: stop a tool that has been running.
      await new Promise((r) => setTimeout(r, 1000));
      const report = await rt.stop('user');
      const result = await turn;
      // The leftover scan runs after the outcome is reported (it lists every process).
      const leftovers = await report.leftoversFound;
      const cancelToAnswer = report.settledAt! - report.firstCancelAt!;
      timings.push(`${name}: LONGCMD Stop → cancel → answer ${cancelToAnswer} ms (evidence ${report.evidence?.kind} ${(report.evidence as any)?.stopReason ?? ''}, leftovers ${leftovers.map((p) => p.command).join('; ') || 'none'})`);
      assert.equal(report.outcome, 'aborted', JSON.stringify(report));
      assert.ok(report.settledAt! - report.requestedAt < SETTLE_MS, 'settled within the budget');
      assert.equal(result.kind, 'stopped');
      if (name === 'codex') {
        // codex-acp answers `cancelled` but leaves the tool running; the runtime must find and end it.
        // Sabotage (the `if (policy === 'end') this.endLeftovers();` line in agentRuntime.ts
        // commented out) printed: "Error: sleep 37 ended: not within 3000 ms".
        assert.ok(leftovers.some((p) => /sleep 37/.test(p.command)), `leftovers: ${JSON.stringify(leftovers)}`);
        assert.equal(report.leftoverAction, 'ended');
      }
      const gone = await waitUntil(() => sleepsOf(setup.root).length === 0, 3000, 'sleep 37 ended');
      timings.push(`${name}: sleep 37 gone ${gone} ms after the stop report`);

      // (d) Right after the stop: accepted, and answered with this prompt's answer only.
      chunks.length = 0;
      const t0 = Date.now();
      const next = await rt.prompt('PLAIN after the stop');
      timings.push(`${name}: prompt after stop → answer ${Date.now() - t0} ms`);
      assert.deepEqual(next, { kind: 'completed', stopReason: 'end_turn' });
      assert.equal(chunks.join('').trim(), PLAIN_ANSWER);
    });

    it('(b, d) "send now": Stop and a new prompt at once; the long tool does not outlive its turn', async () => {
      const { rt, setup, chunks } = await startAgent(name);
      approveAll(rt);
      const turn = rt.prompt('LONGCMD please');
      await waitUntil(() => sleepsOf(setup.root).length > 0, 30_000, 'sleep 37 started');
      // A tool that has been running for a while (longer than the 1.5 s slack of the leftover
      // scan's start-time filter, which a "send now" turn's start would otherwise move past it).
      await delay(2000);
      const report = await rt.stop('send-now');
      await turn;
      // The new prompt goes out in the same tick the stop resolved, as "send now" does.
      chunks.length = 0;
      const next = rt.prompt('PLAIN sent now');
      await report.leftoversFound;
      // codex: the stopped turn's sleep must still be found although a new turn has started.
      await waitUntil(() => sleepsOf(setup.root).length === 0, 3000, 'sleep 37 ended');
      assert.deepEqual(await next, { kind: 'completed', stopReason: 'end_turn' });
      assert.equal(chunks.join('').trim(), PLAIN_ANSWER);
    });

    it('(c, d) Stop while a permission is pending: answered cancelled, the turn settles, the next prompt is answered', async () => {
      const { rt, setup, log, chunks } = await startAgent(name);
      // gemini 0.61.0 cannot create a new file through fs/read_text_file (see README): edit one.
      if (name === 'gemini') writeFileSync(join(setup.cwd, 'hello.txt'), 'old\n');
      const asked = new Promise<PendingPermission>((resolve) => rt.onPermission(resolve));
      const turn = rt.prompt(`EDIT ${join(setup.cwd, 'hello.txt')}`);
      await asked;
      await new Promise((r) => setTimeout(r, 300)); // let the agent sit in its wait
      const report = await rt.stop('user');
      await turn;
      timings.push(`${name}: permission pending Stop → cancel → answer ${report.settledAt! - report.firstCancelAt!} ms (${report.evidence?.kind} ${(report.evidence as any)?.stopReason ?? ''})`);
      // What Reins put on the wire for the permission request (from the protocol trace).
      const answers = repliesTo(log, 'session/request_permission');
      // Sabotage (the loop body of cancelPermissions() in agentRuntime.ts commented out) printed
      // for gemini: "AssertionError: {"turnId":1,"cause":"user",...,"cancelsSent":5,
      // "outcome":"abort-unverified","unverifiedCause":"no answer to the prompt within 10 s ..."}",
      // and for codex and opencode (which settle anyway): "permission answered: []".
      assert.equal(report.outcome, 'aborted', JSON.stringify(report));
      assert.ok(answers.length === 1 && answers[0].includes('"outcome":"cancelled"'), `permission answered: ${JSON.stringify(answers)}`);
      assert.ok(!existsSync(join(setup.cwd, 'hello.txt')) || readFileSync(join(setup.cwd, 'hello.txt'), 'utf8') !== EDIT_CONTENT, 'the edit was not made');

      chunks.length = 0;
      const next = await rt.prompt('PLAIN after the stop');
      assert.deepEqual(next, { kind: 'completed', stopReason: 'end_turn' });
      assert.equal(chunks.join('').trim(), PLAIN_ANSWER);
    });

    it('(e) a file write after approval (through fs/write_text_file where the agent uses it)', async () => {
      const { rt, setup, log, chunks } = await startAgent(name);
      approveAll(rt);
      const file = join(setup.cwd, 'hello.txt');
      if (name === 'gemini') writeFileSync(file, 'old\n'); // see (c)
      const result = await rt.prompt(`EDIT ${file}`);
      assert.deepEqual(result, { kind: 'completed', stopReason: 'end_turn' });
      assert.equal(readFileSync(file, 'utf8'), EDIT_CONTENT);
      assert.ok(chunks.join('').includes(DONE_ANSWER));
      const writes = requestsOf(log, 'fs/write_text_file');
      if (name === 'codex') {
        // codex-acp 0.16.0 applies patches itself even though Reins advertises fs.writeTextFile.
        assert.equal(writes.length, 0);
      } else {
        // Sabotage (`writeTextFile: true` → false in the initialize call) printed for gemini:
        // "fs/write_text_file requests: []" (it then writes the file itself). opencode 1.18.33
        // sends fs/write_text_file even when the capability is false.
        assert.equal(writes.length, 1, `fs/write_text_file requests: ${JSON.stringify(writes)}`);
        // Sabotage (the runtime's writeTextFile handler removed, so Reins answers -32601)
        // printed for opencode, which then writes the file itself: "Reins answered the write:
        // [\"info → … error -32601 \\\"Unhandled method fs/write_text_file\\\" #1 …\"]";
        // gemini: "AssertionError: 'old\\n' !== 'hello from the fake model\\n'".
        const replies = repliesTo(log, 'fs/write_text_file');
        assert.ok(replies.length === 1 && replies[0].includes('response #'), `Reins answered the write: ${JSON.stringify(replies)}`);
      }
    });

    it('(f) ending the session during a running tool leaves no process behind', async () => {
      const { rt, setup } = await startAgent(name);
      approveAll(rt);
      void rt.prompt('LONGCMD please');
      await waitUntil(() => sleepsOf(setup.root).length > 0, 30_000, 'sleep 37 started');
      // afterEach shuts the agent down and asserts that nothing with its HOME is left.
      // Sabotage (both `signalAll(tree, …)` lines in agentProcess.ts endTree commented out)
      // printed: see README.md (sabotage results).
    });
  });
}
