// Measures claude-agent-acp's "one turn behind after a cancel" on the wire, and which recovery
// brings it back in step (README: "claude-agent-acp"). Not part of the suite (about 2 minutes);
// the numbers it prints are the ones in the README.
//   node scripts/esbuild.mjs --tests && node out/test/agents/measureOutOfStep.entry.js [variant ...]
// Variants: signature, cancel-again, wait, cancel-wait, new-session, new-session-close, load,
// restart (default: all). Each starts a fresh agent, stops a running `sleep 37`, sends
// `SLOW tag=s1` (answered at once with an empty end_turn while the model streams it for 10 s
// in the background), applies the recovery, then sends two tagged PLAIN prompts: an answer in
// step carries its own prompt's tag. It runs claude-agent-acp 0.23.1 (`claude-0.23`: later versions
// answer in step); REINS_MEASURE_AGENT=claude measures the newest.
import { execSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { prepareAgent, repoRoot, type AgentName } from './agents';
import { PLAIN_ANSWER, startFakeModel, type FakeModel } from './fakeModel';
import { claudeCodeOf, processesOf, sleepsOf } from './harness';
import { RawAcp } from './rawAcp';
import { present, sleep, waitFor } from '../support/helpers';

const AGENT: AgentName = process.env.REINS_MEASURE_AGENT === 'claude' ? 'claude' : 'claude-0.23';

const short = (v: unknown) => JSON.stringify(v).slice(0, 400);

interface Agent {
  acp: RawAcp;
  root: string;
  cwd: string;
  sessionId: string;
  env: Record<string, string>;
  command: string;
}

async function launch(model: FakeModel, reuse?: Agent): Promise<Agent> {
  const setup = reuse ? { root: reuse.root, cwd: reuse.cwd, env: reuse.env, command: reuse.command, args: [] } : prepareAgent(AGENT, model.url);
  const acp = new RawAcp(setup.command, setup.args, setup.env, setup.cwd);
  // As Reins does: a permission asked while no prompt is pending is answered cancelled.
  acp.onPermission = (p) =>
    outstandingPrompt
      ? { outcome: { outcome: 'selected', optionId: p.options.find((o: any) => o.kind === 'allow_once').optionId } }
      : { outcome: { outcome: 'cancelled' } };
  const init = await acp.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  if (!reuse)
    console.log(
      `  initialize: loadSession=${init.msg.result.agentCapabilities.loadSession} sessionCapabilities=${short(init.msg.result.agentCapabilities.sessionCapabilities)}`,
    );
  const s = await acp.request('session/new', { cwd: setup.cwd, mcpServers: [] });
  return { acp, root: setup.root, cwd: setup.cwd, env: setup.env, command: setup.command, sessionId: s.msg.result.sessionId };
}

let outstandingPrompt = 0;
async function prompt(a: Agent, text: string) {
  outstandingPrompt++;
  try {
    const r = await a.acp.request('session/prompt', { sessionId: a.sessionId, prompt: [{ type: 'text', text }] });
    const got = a.acp.text(r.sentAt, r.sentAt + r.ms + 1, a.sessionId);
    const updates = a.acp.updates(r.sentAt, r.sentAt + r.ms + 1, a.sessionId).map((u) => u.update.sessionUpdate);
    return { ...r, text: got, updates, result: r.msg.result, error: r.msg.error };
  } finally {
    outstandingPrompt--;
  }
}

/** A running `sleep 37` stopped with session/cancel, as Reins' Stop does. */
async function stopDuringTool(a: Agent) {
  const turn = prompt(a, 'LONGCMD please');
  await waitFor('sleep 37 started', () => sleepsOf(a.root).length > 0, 30_000);
  await sleep(1000);
  const cancelAt = Date.now();
  a.acp.notify('session/cancel', { sessionId: a.sessionId });
  const r = await turn;
  return { ...r, cancelToAnswer: r.sentAt + r.ms - cancelAt };
}

async function signature(model: FakeModel) {
  const a = await launch(model);
  const p0 = await prompt(a, 'PLAIN tag=p0');
  console.log(`  before any stop: ${p0.ms} ms ${short(p0.msg)} text=${short(p0.text)}`);
  const c = await stopDuringTool(a);
  console.log(`  cancelled turn: answer ${c.cancelToAnswer} ms after session/cancel: ${short(c.msg)}; updates ${c.updates.join(',')}`);
  for (const tag of ['p1', 'p2', 'p3']) {
    const before = model.requests.length;
    const r = await prompt(a, `PLAIN tag=${tag}`);
    await sleep(1500);
    const asked = model.requests.slice(before).map((q) => `${q.keyword}${q.tag ? ` tag=${q.tag}` : ''} at +${q.at - r.sentAt} ms`);
    const late = a.acp.updates(r.sentAt + r.ms + 1).map((u) => `${u.update.sessionUpdate} +${u.at - r.sentAt} ms`);
    console.log(
      `  prompt tag=${tag}: ${r.ms} ms ${short(r.msg)}\n    updates before the answer: [${r.updates.join(',')}] text=${short(r.text)}\n    model asked: [${asked.join('; ')}]\n    updates after the answer (1.5 s): [${late.join('; ')}]`,
    );
  }
  return a;
}

/** Into the state Reins detects: stopped, then an empty end_turn for `SLOW tag=s1` that the
 *  model goes on streaming for 10 s. */
async function outOfStep(model: FakeModel) {
  const first = model.requests.length;
  const a = await launch(model);
  await stopDuringTool(a);
  const r = await prompt(a, 'SLOW tag=s1');
  const slow = () => model.requests.slice(first).find((q) => q.keyword === 'SLOW' && q.tag === 's1');
  await waitFor('the SLOW request reached the model', () => slow() !== undefined, 5000);
  console.log(`  out of step: SLOW answered in ${r.ms} ms ${short(r.result)} text=${short(r.text)}; claude processes ${claudeCodeOf(a.root).length}`);
  return { a, slow: () => slow()! };
}

type Slow = () => { endedAt?: number; aborted?: boolean };
const RECOVERIES: Record<string, (a: Agent, model: FakeModel, slow: Slow) => Promise<Agent>> = {
  'cancel-again': async (a) => {
    a.acp.notify('session/cancel', { sessionId: a.sessionId });
    return a;
  },
  wait: async (a, _model, slow) => {
    // Until the unseen turn's SLOW reply is complete, and 1 s more.
    await waitFor('background reply done', () => slow().endedAt !== undefined, 20_000);
    await sleep(1000);
    return a;
  },
  'cancel-wait': async (a) => {
    a.acp.notify('session/cancel', { sessionId: a.sessionId });
    await sleep(3000);
    return a;
  },
  'new-session': async (a) => {
    const s = await a.acp.request('session/new', { cwd: a.cwd, mcpServers: [] });
    console.log(`    session/new: ${s.ms} ms ${s.msg.error ? short(s.msg.error) : 'ok'}`);
    return { ...a, sessionId: s.msg.result.sessionId };
  },
  'new-session-close': async (a) => {
    const s = await a.acp.request('session/new', { cwd: a.cwd, mcpServers: [] });
    const c = await a.acp.request('session/close', { sessionId: a.sessionId });
    console.log(`    session/new: ${s.ms} ms; session/close of the old one: ${c.ms} ms ${short(c.msg.result ?? c.msg.error)}`);
    return { ...a, sessionId: s.msg.result.sessionId };
  },
  load: async (a) => {
    const t = Date.now();
    const l = await a.acp.request('session/load', { sessionId: a.sessionId, cwd: a.cwd, mcpServers: [] });
    const replayed = a.acp.updates(t).length;
    console.log(`    session/load: ${l.ms} ms ${l.msg.error ? short(l.msg.error) : 'ok'}, ${replayed} updates replayed`);
    return a;
  },
  restart: async (a, model) => {
    const t = Date.now();
    if (process.env.PS)
      console.log(
        execSync(`ps -o pid,ppid,pgid,etime,args -g ${a.acp.pid}; ps -e -o pid,ppid,pgid,args | grep -E 'sleep 37' | grep -v grep || true`).toString(),
      );
    await a.acp.kill();
    if (process.env.PS)
      console.log(
        `    killed in ${Date.now() - t} ms\n` + execSync(`ps -e -o pid,ppid,pgid,args | grep -E 'sleep 37|claude' | grep -v grep || true`).toString(),
      );
    const b = await launch(model, a);
    console.log(`    restart (kill group, spawn, initialize, session/new): ${Date.now() - t} ms`);
    return b;
  },
};

async function recovery(model: FakeModel, name: string) {
  const { a, slow } = await outOfStep(model);
  const t0 = Date.now();
  const b = await present(RECOVERIES[name], `the recovery ${name}`)(a, model, slow);
  const recoverMs = Date.now() - t0;
  const answers: string[] = [];
  for (const tag of ['r1', 'r2']) {
    const first = model.requests.length;
    const r = await prompt(b, `PLAIN tag=${tag}`);
    const own = r.text === `${PLAIN_ANSWER} tag=${tag}`;
    // What the answer's text holds: the SLOW reply's chunks, and which prompts' PLAIN answers.
    const holds = [...(/slow \d/.test(r.text) ? [`${r.text.match(/slow \d+/g)!.length} slow chunks`] : []), ...(r.text.match(/tag=\w+/g) ?? [])];
    const asked = model.requests.slice(first).map((q) => `${q.keyword}${q.tag ? ` tag=${q.tag}` : ''}`);
    answers.push(
      `${tag}: ${own ? 'IN STEP' : 'not in step'} ${r.ms} ms ${r.error ? `error ${short(r.error)}` : `${r.result.stopReason} totalTokens=${r.result.usage?.totalTokens}`}; text holds [${holds.join(', ')}]; model asked meanwhile [${asked.join(', ')}]`,
    );
  }
  await sleep(300);
  const s = slow();
  const left = processesOf(b.root).map((p) => p.cmd.slice(0, 60));
  console.log(
    `  recovery ${name}: ${recoverMs} ms\n    ${answers.join('\n    ')}\n    background SLOW reply: ${s.aborted ? `aborted ${s.endedAt! - t0} ms after the recovery began` : s.endedAt ? `completed (${s.endedAt - t0} ms after)` : 'still streaming'}\n    running now: ${left.length} processes, ${claudeCodeOf(b.root).length} Claude Code: ${short(left)}`,
  );
  await b.acp.kill();
  if (b.acp !== a.acp) await a.acp.kill();
  rmSync(b.root, { recursive: true, force: true });
}

async function main() {
  const logDir = join(repoRoot(), '.cache', 'agents', 'logs');
  mkdirSync(logDir, { recursive: true });
  const model = await startFakeModel({ logFile: join(logDir, 'measure-out-of-step.log') });
  const wanted = process.argv.slice(2);
  const run = (n: string) => wanted.length === 0 || wanted.includes(n);
  try {
    if (run('signature')) {
      console.log('signature');
      const a = await signature(model);
      await a.acp.kill();
      rmSync(a.root, { recursive: true, force: true });
    }
    for (const name of Object.keys(RECOVERIES)) if (run(name)) await recovery(model, name);
  } finally {
    await model.close();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
