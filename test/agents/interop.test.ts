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
/** Measured timings by "agent: what", printed at the end as min–max (copied into README.md). */
const timings = new Map<string, number[]>();
const notes = new Set<string>();
function measured(agent: string, what: string, ms: number, note?: string): void {
  const key = `${agent}: ${what}`;
  timings.set(key, [...(timings.get(key) ?? []), ms]);
  if (note) notes.add(`${key}: ${note}`);
}

interface Live {
  rt: AgentRuntime;
  setup: AgentSetup;
  log: MemoryLogger;
  chunks: string[];
  /** The agent's own processes once it is ready: a stop must never take one for a leftover. */
  own: Set<number>;
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
  live = { rt, setup, log, chunks, own: new Set() };
  const t0 = Date.now();
  await rt.start();
  measured(name, 'start (spawn, initialize, session/new)', Date.now() - t0);
  live.own = new Set(processesOf(setup.root).map((p) => p.pid));
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

/** Leftovers that are the agent itself. With the runtime's start-time filter alone (1.5 s of
 *  slack) this printed, for codex: "[…/codex-acp-linux-x64/bin/codex-acp]" (the native child
 *  of the npm wrapper) and for gemini "[/usr/bin/node --max-old-space-size=… gemini --acp]"
 *  (its relaunched child); the runtime then ended them, which killed the agent. */
function ownLeftovers(l: Live, leftovers: { pid: number; command: string }[]): string[] {
  return leftovers.filter((p) => l.own.has(p.pid)).map((p) => p.command);
}

/** The contract's gate, checked on the wire: no session/prompt went out while an earlier one
 *  was still unanswered. Returns the overlaps found (trace lines). */
function promptOverlaps(log: MemoryLogger): string[] {
  const open = new Set<string>();
  const overlaps: string[] = [];
  for (const line of log.lines) {
    const sent = /→ \S+ request session\/prompt #(\S+)/.exec(line);
    if (sent) {
      if (open.size > 0) overlaps.push(line.slice(0, 120));
      open.add(sent[1]);
    }
    const answered = /← .*#(\S+) to session\/prompt after/.exec(line);
    if (answered) open.delete(answered[1]);
  }
  return overlaps;
}

before(async function () {
  mkdirSync(logDir, { recursive: true });
  writeFileSync(join(logDir, 'fake-model.log'), '');
  model = await startFakeModel({ logFile: join(logDir, 'fake-model.log') });
});

after(async () => {
  await model?.close();
  const range = (v: number[]) => (Math.min(...v) === Math.max(...v) ? `${v[0]}` : `${Math.min(...v)}–${Math.max(...v)}`);
  console.log(`\n  measured (ms):\n${[...timings].map(([k, v]) => `    ${k}: ${range(v)}`).join('\n')}`);
  console.log(`${[...notes].map((n) => `    ${n}`).join('\n')}`);
});

/** Ends the agent (bounded: an agent that ignores stdin closing must not hang the suite) and
 *  returns what of it is still running; kills that, so a failure does not spill over. */
async function endAgent(l: Live, title: string): Promise<{ left: { pid: number; cmd: string }[]; ended: boolean; ms: number }> {
  const t0 = Date.now();
  const ended = await Promise.race([l.rt.shutdown('deactivate', 2000).then(() => true), delay(10_000).then(() => false)]);
  l.rt.dispose();
  let left: { pid: number; cmd: string }[] = [];
  await waitUntil(() => (left = processesOf(l.setup.root)).length === 0, 3000, 'agent processes gone').catch(() => undefined);
  appendFileSync(join(logDir, `${l.setup.name}.log`), `\n==== ${title}\n${l.log.lines.join('\n')}\n`);
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  return { left, ended, ms: Date.now() - t0 };
}

/** (f), at the end of every test: the session ends and nothing of the agent is left. */
async function finish(title: string): Promise<void> {
  const l = live!;
  live = undefined;
  const { left, ended, ms } = await endAgent(l, title);
  measured(l.setup.name, 'shutdown → no process left', ms);
  assert.deepEqual(left, [], `processes of ${l.setup.name} left after shutdown`);
  assert.ok(ended, 'shutdown did not finish within 10 s');
  rmSync(l.setup.root, { recursive: true, force: true });
}

// A test that failed before finish(): clean up without asserting (its own failure says why).
afterEach(async function () {
  if (live) await endAgent(live, `${this.currentTest?.fullTitle()} (after a failure)`);
  live = undefined;
});

for (const name of AGENTS) {
  describe(`${name} (real agent)`, function () {
    this.timeout(90_000);

    it('(a) answers a prompt', async function () {
      const { rt, chunks } = await startAgent(name);
      const t0 = Date.now();
      const result = await rt.prompt('PLAIN please');
      measured(name, 'PLAIN prompt → answer', Date.now() - t0);
      assert.deepEqual(result, { kind: 'completed', stopReason: 'end_turn' });
      assert.ok(chunks.join('').includes(PLAIN_ANSWER), `answer: ${JSON.stringify(chunks.join(''))}`);
      await finish(this.test!.fullTitle());
    });

    it('(b, d) Stop during a long tool call: aborted within the budget, no sleep left; the next prompt is answered', async function () {
      const l = await startAgent(name);
      const { rt, setup, log, chunks } = l;
      approveAll(rt);
      const turn = rt.prompt('LONGCMD please');
      // The tool is running when its process exists (gemini announces no tool_call first).
      await waitUntil(() => sleepsOf(setup.root).length > 0, 30_000, 'sleep 37 started');
      // codex-acp kills the command itself when the cancel comes within ~100-250 ms of its
      // start, and leaves it running when it comes later: stop a tool that has been running.
      await delay(1000);
      const report = await rt.stop('user');
      const result = await turn;
      // The leftover scan runs after the outcome is reported (it lists every process).
      const leftovers = await report.leftoversFound;
      const cancelToAnswer = report.settledAt! - report.firstCancelAt!;
      measured(name, 'LONGCMD: cancel → answer', cancelToAnswer, `evidence ${report.evidence?.kind} ${(report.evidence as any)?.stopReason ?? ''}, leftovers: ${leftovers.map((p) => p.command).join('; ') || 'none'}`);
      assert.equal(report.outcome, 'aborted', JSON.stringify(report));
      assert.ok(report.settledAt! - report.requestedAt < SETTLE_MS, 'settled within the budget');
      assert.deepEqual(ownLeftovers(l, leftovers), [], "the agent's own processes taken for leftovers");
      assert.equal(result.kind, 'stopped');
      if (name === 'codex') {
        // codex-acp answers `cancelled` but leaves the tool running; the runtime must find and end it.
        // Sabotage (the `if (policy === 'end') this.endLeftovers();` line in agentRuntime.ts
        // commented out) printed: "Error: sleep 37 ended: not within 3000 ms".
        assert.ok(leftovers.some((p) => /sleep 37/.test(p.command)), `leftovers: ${JSON.stringify(leftovers)}`);
        assert.equal(report.leftoverAction, 'ended');
      }
      const gone = await waitUntil(() => sleepsOf(setup.root).length === 0, 3000, 'sleep 37 ended');
      measured(name, 'LONGCMD: sleep 37 gone after the stop report', gone);

      // (d) Right after the stop: accepted, and answered with this prompt's answer only.
      chunks.length = 0;
      const t0 = Date.now();
      const next = await rt.prompt('PLAIN after the stop');
      measured(name, 'prompt right after the stop → answer', Date.now() - t0);
      assert.deepEqual(next, { kind: 'completed', stopReason: 'end_turn' });
      assert.equal(chunks.join('').trim(), PLAIN_ANSWER);
      // Sabotage (turnMachine's stop going straight to idle with outcome aborted, i.e. not
      // waiting for evidence) passed the checks above on all three agents (they cope with a
      // prompt right behind a cancel) and failed here: "prompt sent while another was
      // unanswered: ["info → +1.603s request session/prompt #4 (165 B) {…"]".
      assert.deepEqual(promptOverlaps(log), [], 'prompt sent while another was unanswered');
      await finish(this.test!.fullTitle());
    });

    it('(b, d) "send now": Stop and a new prompt at once; the long tool does not outlive its turn', async function () {
      const l = await startAgent(name);
      const { rt, setup, log, chunks } = l;
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
      assert.deepEqual(ownLeftovers(l, await report.leftoversFound), [], "the agent's own processes taken for leftovers");
      // codex: the stopped turn's sleep must still be found although a new turn has started.
      // With the scan reading the runtime's current turn start (the new turn's) this printed
      // "Error: sleep 37 ended: not within 3000 ms".
      await waitUntil(() => sleepsOf(setup.root).length === 0, 3000, 'sleep 37 ended');
      assert.deepEqual(await next, { kind: 'completed', stopReason: 'end_turn' });
      assert.equal(chunks.join('').trim(), PLAIN_ANSWER);
      assert.deepEqual(promptOverlaps(log), [], 'prompt sent while another was unanswered');
      await finish(this.test!.fullTitle());
    });

    it('(b) Stop while the model stream stalls (headers, then nothing): aborted, then answered', async function () {
      const { rt, log, chunks } = await startAgent(name);
      const before = model.requests.length;
      const turn = rt.prompt('STALL please');
      // The turn's own request (with tools), not opencode's title request.
      await waitUntil(() => model.requests.slice(before).some((r) => r.keyword === 'STALL' && r.tools.length > 0), 30_000, 'stalled request made');
      await delay(500);
      const report = await rt.stop('user');
      await turn;
      measured(name, 'STALL: cancel → answer', report.settledAt! - report.firstCancelAt!);
      // Sabotage (sendCancel returning before the write: no session/cancel on the wire)
      // printed for all three, after the 10 s budget: "{…"cancelsSent":6,"outcome":
      // "abort-unverified","unverifiedCause":"no answer, idle signal or exit within 10 s of the
      // cancel (6 cancels sent)"…}": none of them gives up on a stalled model by itself.
      assert.equal(report.outcome, 'aborted', JSON.stringify(report));
      chunks.length = 0;
      assert.deepEqual(await rt.prompt('PLAIN after the stall'), { kind: 'completed', stopReason: 'end_turn' });
      assert.equal(chunks.join('').trim(), PLAIN_ANSWER);
      assert.deepEqual(promptOverlaps(log), [], 'prompt sent while another was unanswered');
      await finish(this.test!.fullTitle());
    });

    it('(c, d) Stop while a permission is pending: answered cancelled, the turn settles, the next prompt is answered', async function () {
      const l = await startAgent(name);
      const { rt, setup, log, chunks } = l;
      // gemini 0.61.0 cannot create a new file through fs/read_text_file (see README): edit one.
      if (name === 'gemini') writeFileSync(join(setup.cwd, 'hello.txt'), 'old\n');
      const asked = new Promise<PendingPermission>((resolve) => rt.onPermission(resolve));
      const turn = rt.prompt(`EDIT ${join(setup.cwd, 'hello.txt')}`);
      await asked;
      await delay(300); // let the agent sit in its wait
      const report = await rt.stop('user');
      await turn;
      measured(name, 'permission pending: cancel → answer', report.settledAt! - report.firstCancelAt!, `evidence ${report.evidence?.kind} ${(report.evidence as any)?.stopReason ?? ''}`);
      // What Reins put on the wire for the permission request (from the protocol trace).
      const answers = repliesTo(log, 'session/request_permission');
      // Sabotage (the loop body of cancelPermissions() in agentRuntime.ts commented out) printed
      // for gemini, after the 10 s budget: "AssertionError: {"turnId":1,"cause":"user",…,
      // "cancelsSent":6,"outcome":"abort-unverified","unverifiedCause":"no answer, idle signal
      // or exit within 10 s of the cancel (6 cancels sent)",…}",
      // and for codex and opencode (which settle anyway): "permission answered: []".
      assert.equal(report.outcome, 'aborted', JSON.stringify(report));
      assert.ok(answers.length === 1 && answers[0].includes('"outcome":"cancelled"'), `permission answered: ${JSON.stringify(answers)}`);
      assert.ok(!existsSync(join(setup.cwd, 'hello.txt')) || readFileSync(join(setup.cwd, 'hello.txt'), 'utf8') !== EDIT_CONTENT, 'the edit was not made');
      assert.deepEqual(ownLeftovers(l, await report.leftoversFound), [], "the agent's own processes taken for leftovers");

      chunks.length = 0;
      const next = await rt.prompt('PLAIN after the stop');
      assert.deepEqual(next, { kind: 'completed', stopReason: 'end_turn' });
      assert.equal(chunks.join('').trim(), PLAIN_ANSWER);
      assert.deepEqual(promptOverlaps(log), [], 'prompt sent while another was unanswered');
      await finish(this.test!.fullTitle());
    });

    it('(e) a file write after approval (through fs/write_text_file where the agent uses it)', async function () {
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
      await finish(this.test!.fullTitle());
    });

    it('(f) ending the session during a running tool leaves no process behind', async function () {
      const { rt, setup } = await startAgent(name);
      approveAll(rt);
      void rt.prompt('LONGCMD please');
      await waitUntil(() => sleepsOf(setup.root).length > 0, 30_000, 'sleep 37 started');
      // finish() ends the session while the tool runs and asserts that nothing is left whose
      // environment or command line carries the agent's temp root.
      // Sabotage (every signal in AgentProcess.endTree commented out, so only stdin closes)
      // printed for codex, which does not exit on EOF: "processes of codex left after shutdown
      // [{ cmd: 'node …/codex-acp', pid: 19661 }, { cmd: '…/codex-acp-linux-x64/bin/codex-acp' … }]";
      // opencode and gemini exit on EOF and end their own tools, so they pass without it.
      // Removing only the group kill, or only the per-pid tree kill, fails nothing: each covers
      // the other (codex's PTY child also dies of SIGHUP when codex goes).
      await finish(this.test!.fullTitle());
    });
  });
}
