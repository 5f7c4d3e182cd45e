// What every interop test file shares: the fake model's life, starting a real agent through
// Reins' own runtime, finding the agent's processes through /proc, reading the protocol trace,
// and ending the agent with the check that nothing of it is left (scenario f, in every test).
// Each *.test.ts is bundled on its own, so this module's state is per file: call
// useRealAgents() inside the file's top-level describe.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRuntime, defaultRuntimeSettings, type PendingPermission, type RuntimeSettings } from '../../src/runtime/agentRuntime';
import type { ReopenRequest } from '../../src/runtime/sessionSwitch';
import { MemoryLogger } from '../../src/util/logger';
import { nth, sleep, waitFor } from '../support/helpers';
import { prepareAgent, repoRoot, type AgentName, type AgentSetup } from './agents';
import { LONG_COMMAND, startFakeModel, type FakeModel } from './fakeModel';

const ALL_AGENTS: AgentName[] = ['codex', 'opencode', 'gemini', 'claude', 'pi', 'copilot', 'qwen'];
/** REINS_AGENTS=codex,claude narrows every file to those agents. */
export function selectedAgents(among: AgentName[] = ALL_AGENTS): AgentName[] {
  const wanted = process.env.REINS_AGENTS?.split(',').map((s) => s.trim());
  return among.filter((a) => !wanted || wanted.includes(a));
}

export const SETTLE_MS = 10_000;
const logDir = join(repoRoot(), '.cache', 'agents', 'logs');

let modelValue: FakeModel | undefined;
export function model(): FakeModel {
  if (!modelValue) throw new Error('useRealAgents() was not called');
  return modelValue;
}

/** Measured timings by "agent: what", printed at the end as min–max (copied into README.md). */
const timings = new Map<string, number[]>();
const notes = new Set<string>();
export function measured(agent: string, what: string, ms: number, note?: string): void {
  const key = `${agent}: ${what}`;
  timings.set(key, [...(timings.get(key) ?? []), ms]);
  if (note) notes.add(`${key}: ${note}`);
}

export interface Live {
  rt: AgentRuntime;
  setup: AgentSetup;
  log: MemoryLogger;
  chunks: string[];
  /** When the last turn ended (Date.now()), as the runtime saw it: the answer's time, not the test's. */
  turnEndedAt: number;
  /** The agent's own processes once it is ready: a stop must never take one for a leftover. */
  own: Set<number>;
}
let live: Live | undefined;

export interface StartOptions {
  settings?: Partial<RuntimeSettings>;
  /** Launch through ownHelpers.mjs, which starts processes of the agent's own during and after
   *  each turn (see that file). */
  ownHelpers?: boolean;
  /** Changes to the agent's folders before it starts (e.g. a project settings file). */
  beforeStart?: (setup: AgentSetup) => void;
  /** Start again in an ended agent's folders (its HOME keeps its sessions), reopening this session. */
  again?: { setup: AgentSetup; reopen: ReopenRequest };
}

export async function startAgent(name: AgentName, opts: StartOptions = {}): Promise<Live> {
  const setup = opts.again?.setup ?? prepareAgent(name, model().url);
  if (opts.ownHelpers) {
    setup.args = [join(repoRoot(), 'test', 'agents', 'ownHelpers.mjs'), setup.command, ...setup.args];
    setup.command = process.execPath;
  }
  opts.beforeStart?.(setup);
  const log = new MemoryLogger();
  const rt = new AgentRuntime({
    name,
    launch: { command: setup.command, args: setup.args, env: setup.env, cwd: setup.cwd },
    // initialize gets 60 s, not 30: under a load average of 15 opencode took longer to answer
    // it, and the suite is not about start-up time.
    settings: () => ({ ...defaultRuntimeSettings, settleTimeoutMs: SETTLE_MS, leftoverProcesses: 'end', initializeTimeoutMs: 60_000, ...opts.settings }),
    log,
    // Verbose: the assertions read what actually went over the wire from the trace.
    trace: () => 'verbose',
    clientInfo: { name: 'reins-interop', version: '0' },
    reopen: opts.again?.reopen,
  });
  const chunks: string[] = [];
  rt.session.onUpdate((n) => {
    const u = n.update;
    if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') chunks.push(u.content.text);
  });
  const l: Live = (live = { rt, setup, log, chunks, turnEndedAt: 0, own: new Set() });
  rt.turns.onTurnEnded(() => (l.turnEndedAt = Date.now()));
  const t0 = Date.now();
  await rt.start();
  measured(name, 'start (spawn, initialize, session/new)', Date.now() - t0);
  l.own = new Set(processesOf(setup.root).map((p) => p.pid));
  return l;
}

/** Approve every permission request (allow once), for the scenarios that need the tool to run. */
export function approveAll(rt: AgentRuntime): void {
  rt.turns.permissions.onRequest((p: PendingPermission) => {
    const allow = p.request.options.find((o) => o.kind === 'allow_once') ?? nth(p.request.options, 0, 'the permission options');
    rt.turns.respondPermission(p.id, allow.optionId);
  });
}

export interface Proc {
  pid: number;
  cmd: string;
}

/** Processes whose environment or command line carries the agent's temp root. */
export function processesOf(root: string): Proc[] {
  const found: Proc[] = [];
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

export const sleepsOf = (root: string) => processesOf(root).filter((p) => p.cmd === LONG_COMMAND);

/** Claude Code's per-session process: `claude` once it has set its title, `node …/cli.js` before
 *  (SDK 0.2.x), or the native `…/claude-agent-sdk-linux-x64/claude` binary (later SDKs). */
export const claudeCodeOf = (root: string) =>
  processesOf(root).filter((p) => p.cmd === 'claude' || /claude-agent-sdk\/cli\.js|claude-agent-sdk-[\w-]+\/claude(\s|$)/.test(p.cmd));

/**
 * Makes `ps` as slow as on a loaded machine (each call waits `ms` first) for the runtime, which
 * runs in this process; agents already started keep their own PATH. Returns the undo. A race
 * between Reins' process listing and what the agent starts next is then decided the bad way
 * every time instead of now and then.
 */
export function slowPs(ms: number): () => void {
  const real = execFileSync('sh', ['-c', 'command -v ps'], { encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'reins-slow-ps-'));
  writeFileSync(join(dir, 'ps'), `#!/bin/sh\nsleep ${ms / 1000}\nexec ${real} "$@"\n`, { mode: 0o755 });
  const before = process.env.PATH;
  process.env.PATH = `${dir}:${before}`;
  return () => {
    process.env.PATH = before;
    rmSync(dir, { recursive: true, force: true });
  };
}

/** Outgoing trace lines: responses Reins sent to `method` (e.g. session/request_permission). */
export const repliesTo = (log: MemoryLogger, method: string) => log.lines.filter((l) => l.includes('→') && l.includes(` to ${method} after `));
export const requestsOf = (log: MemoryLogger, method: string) => log.lines.filter((l) => l.includes('←') && l.includes(`request ${method} `));

/** Leftovers that are the agent itself. With the runtime's start-time filter alone (1.5 s of
 *  slack) this printed, for codex: "[…/codex-acp-linux-x64/bin/codex-acp]" (the native child
 *  of the npm wrapper) and for gemini "[/usr/bin/node --max-old-space-size=… gemini --acp]"
 *  (its relaunched child); the runtime then ended them, which killed the agent. */
export function ownLeftovers(l: Live, leftovers: { pid: number; command: string }[]): string[] {
  return leftovers.filter((p) => l.own.has(p.pid)).map((p) => p.command);
}

/** The contract's gate, checked on the wire: no session/prompt went out while an earlier one
 *  was still unanswered. Returns the overlaps found (trace lines). */
export function promptOverlaps(log: MemoryLogger): string[] {
  const open = new Set<string>();
  const overlaps: string[] = [];
  for (const line of log.lines) {
    const sent = /→ \S+ request session\/prompt #(\S+)/.exec(line);
    if (sent) {
      if (open.size > 0) overlaps.push(line.slice(0, 120));
      open.add(nth(sent, 1, 'the request id'));
    }
    const answered = /← .*#(\S+) to session\/prompt after/.exec(line);
    if (answered) open.delete(nth(answered, 1, 'the answered id'));
  }
  return overlaps;
}

/** Registers the hooks: the fake model for the file, the timings printed at its end, and the
 *  clean-up of an agent whose test failed before finish(). */
export function useRealAgents(): void {
  before(async function () {
    mkdirSync(logDir, { recursive: true });
    const file = join(logDir, 'fake-model.log');
    appendFileSync(file, '');
    modelValue = await startFakeModel({ logFile: file });
  });

  after(async () => {
    await modelValue?.close();
    modelValue = undefined;
    const range = (v: number[]) => (Math.min(...v) === Math.max(...v) ? `${v[0]}` : `${Math.min(...v)}–${Math.max(...v)}`);
    if (timings.size > 0) console.log(`\n  measured (ms):\n${[...timings].map(([k, v]) => `    ${k}: ${range(v)}`).join('\n')}`);
    if (notes.size > 0) console.log(`${[...notes].map((n) => `    ${n}`).join('\n')}`);
  });

  // A test that failed before finish(): clean up without asserting (its own failure says why).
  afterEach(async function () {
    if (live) await endAgent(live, `${this.currentTest?.fullTitle()} (after a failure)`);
    live = undefined;
  });
}

/** Ends the agent (bounded: an agent that ignores stdin closing must not hang the suite) and
 *  returns what of it is still running; kills that, so a failure does not spill over. */
async function endAgent(l: Live, title: string): Promise<{ left: Proc[]; ended: boolean; ms: number }> {
  const t0 = Date.now();
  const ended = await Promise.race([l.rt.shutdown('deactivate', 2000).then(() => true), sleep(10_000).then(() => false)]);
  l.rt.dispose();
  let left: Proc[] = [];
  await waitFor('agent processes gone', () => (left = processesOf(l.setup.root)).length === 0, 3000).catch(() => undefined);
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

/** (f), at the end of every test: the session ends as at window close (shutdown('deactivate',
 *  2 s)) and nothing of the agent is left. */
export async function finish(title: string): Promise<void> {
  const l = live!;
  live = undefined;
  const { left, ended, ms } = await endAgent(l, title);
  measured(l.setup.name, 'shutdown → no process left', ms);
  assert.deepEqual(left, [], `processes of ${l.setup.name} left after shutdown`);
  assert.ok(ended, 'shutdown did not finish within 10 s');
  rmSync(l.setup.root, { recursive: true, force: true });
}
