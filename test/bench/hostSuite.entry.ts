// The half of `npm run bench` that runs inside the real extension host (code-server): loaded as
// extensionTestsPath by test/bench/host.ts, it measures Reins through its real commands and
// writes the raw samples to REINS_BENCH_OUT as JSON; host.ts turns them into rows.
//
// Times that cross processes are wall-clock milliseconds with sub-millisecond precision
// (performance.timeOrigin + performance.now()) here and in the scripted agent's record: the
// agent stamps when a cancel reached it and when it wrote its answer.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import * as vscode from 'vscode';
import type { ReinsApi } from '../../src/api';
import { readRecord, received, type RecordEntry } from '../fixtures/scriptedAgent/records';
import { sleep } from '../support/helpers';
import { RawClient } from './agents';
import { chunkTexts } from './data';
import { machineTicks } from './procCpu';

const EXTENSION_ID = 'reins-dev.reins';
const wall = (): number => performance.timeOrigin + performance.now();

/** One cold `ext.activate()`: wall time, and the extension host process's CPU time meanwhile (less moved by other load). */
export interface Activation {
  wallMs: number;
  cpuMs: number;
}

export interface HostSamples {
  /** Reins, and the bare extensions activated just before and just after it (host.ts makes them; a first one warms the host up). */
  activation?: Activation;
  baselineActivations: Activation[];
  /** How long the suite waited for a quiet machine before the activations (machineQuiet). */
  quietWaitMs?: number;
  /** What the log's activation line says of the code cache (src/boot/codeCache.ts): used, made, rejected, none. */
  codeCache?: string;
  /** With REINS_BENCH_CODE_CACHE_DIR: whether Reins wrote its code cache there before the suite ended. */
  codeCacheWritten?: boolean;
  bundleLoadMs: number[];
  bundleBytes: Record<string, number>;
  /** Stop command → session/cancel read by the agent; the same for a bare client in this host. */
  stopToWire: number[];
  bareToWire: number[];
  /** The agent wrote its `cancelled` answer → onDidStop fired / `reins.stop` resolved; → a bare client read it. */
  answerToGate: number[];
  answerToStopResolved: number[];
  answerToBare: number[];
  memory?: { messages: number; textBytes: number; before: NodeJS.MemoryUsage; after: NodeJS.MemoryUsage; ms: number };
  /**
   * What Reins's bundle required during its activation, and during the first agent's start
   * (Module._load requests, in order): the agent machinery is to come with the second, not the
   * first. `net` is the marker (only vscode-jsonrpc's node transport requires it).
   */
  activationRequires?: string[];
  firstAgentRequires?: string[];
  /** The first prompt, the agent started and the machinery loaded on the way: wall ms. */
  firstAgentMs?: number;
  errors: string[];
}

/**
 * Calls `fn`, recording the module requests made meanwhile (Module._load, past VS Code's own
 * interceptor) by the extension's bundles under `root` (its folder), or for one of them: other
 * extensions the workbench activates at the same moment load theirs too (json-language-features
 * requires `net`), and were counted as Reins's in one run of five on 2 December.
 */
async function requiresDuring<T>(root: string, fn: () => Thenable<T> | Promise<T>): Promise<{ value: T; requests: string[] }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Module = require('node:module') as { _load: (request: string, parent?: { filename?: string }, ...rest: unknown[]) => unknown };
  const load = Module._load;
  const requests: string[] = [];
  // Its bundles (dist/), under the folder as given and as Node resolves it: the bench host's
  // extension links the repository's files (host.ts), and the bundle's own requires name the real
  // path (the repository also holds .vscode-test/, where the built-in extensions live).
  const dist = path.join(root, 'dist');
  const roots = [dist, fs.existsSync(dist) ? fs.realpathSync(dist) : dist].map((r) => r + path.sep);
  const ours = (file: string | undefined): boolean => file !== undefined && roots.some((r) => path.resolve(file).startsWith(r));
  Module._load = function (this: unknown, request: string, parent?: { filename?: string }, ...rest: unknown[]) {
    if (ours(parent?.filename) || ours(request)) requests.push(request);
    return load.call(this, request, parent, ...rest);
  };
  try {
    return { value: await fn(), requests };
  } finally {
    Module._load = load;
  }
}

const gc: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

async function settleHeap(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(50);
  }
  return process.memoryUsage();
}

async function waitFor<T>(what: string, get: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = get();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-hostbench-'));
let agents = 0;

async function addAgent(extensionPath: string, scenario: object): Promise<{ name: string; record: string }> {
  const name = `bench-${++agents}`;
  const record = path.join(scratch, `${name}.jsonl`);
  const file = path.join(scratch, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(scenario));
  const config = vscode.workspace.getConfiguration('reins');
  const all = { ...(config.get<Record<string, unknown>>('agents') ?? {}) };
  all[name] = {
    command: process.execPath,
    args: [path.join(extensionPath, 'dist', 'scripted-agent.js'), '--scenario', file, '--record', record],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  };
  await config.update('agents', all, vscode.ConfigurationTarget.Global);
  if (!(await vscode.commands.executeCommand<boolean>('reins.selectAgent', name))) throw new Error(`could not select ${name}`);
  return { name, record };
}

const streaming = {
  steps: [{ text: 'This answer streams slowly so that a stop lands in the middle of it. '.repeat(20), chunk: 4, intervalMs: 20 }],
  onCancel: 'quick',
};

/** The first entry after `since` that matches. */
function after(entries: RecordEntry[], since: number, match: (e: RecordEntry) => boolean): RecordEntry | undefined {
  return entries.find((e) => e.t >= since && match(e));
}
const isCancelledAnswer = (e: RecordEntry) => e.dir === 'out' && (e.msg as { result?: { stopReason?: string } })?.result?.stopReason === 'cancelled';

async function stops(api: ReinsApi, extensionPath: string, runs: number, out: HostSamples): Promise<void> {
  const { record } = await addAgent(extensionPath, { name: 'bench-stop', prompts: [streaming] });
  let gateAt = 0;
  const sub = api.onDidStop(() => (gateAt = wall()));
  try {
    for (let i = 0; i <= runs; i++) {
      const before = wall();
      const turn = vscode.commands.executeCommand('reins.sendPrompt', `go ${i}`);
      await waitFor('the first update', () =>
        after(readRecord(record), before, (e) => e.dir === 'out' && (e.msg as { method?: string }).method === 'session/update'),
      );
      await sleep(15);
      gateAt = 0;
      const t0 = wall();
      await vscode.commands.executeCommand('reins.stop');
      const resolvedAt = wall();
      await turn;
      const entries = await waitFor('the cancelled answer', () => {
        const e = readRecord(record);
        return after(e, t0, isCancelledAnswer) ? e : undefined;
      });
      const cancel = after(entries, t0, (e) => e.dir === 'in' && (e.msg as { method?: string }).method === 'session/cancel')!;
      const answer = after(entries, t0, isCancelledAnswer)!;
      if (i === 0) continue; // warm-up
      out.stopToWire.push(cancel.t - t0);
      out.answerToStopResolved.push(resolvedAt - answer.t);
      if (gateAt) out.answerToGate.push(gateAt - answer.t);
    }
  } finally {
    sub.dispose();
  }
  // The baseline: a bare client in this same host, on the same scenario, cancelling the same way.
  const bareRecord = path.join(scratch, 'bare.jsonl');
  const file = path.join(scratch, 'bare.json');
  fs.writeFileSync(file, JSON.stringify({ name: 'bench-bare', prompts: [streaming] }));
  const raw = new RawClient(['--scenario', file, '--record', bareRecord], scratch);
  try {
    await raw.start(scratch);
    for (let i = 0; i <= runs; i++) {
      const first = raw.next((m) => m.method === 'session/update');
      const { answer } = raw.prompt(`go ${i}`);
      await first;
      await sleep(15);
      const t0 = wall();
      raw.cancel();
      await answer;
      const readAt = wall();
      const entries = await waitFor('the bare cancelled answer', () => {
        const e = readRecord(bareRecord);
        return after(e, t0, isCancelledAnswer) ? e : undefined;
      });
      const cancel = received(entries, 'session/cancel').find((e) => e.t >= t0)!;
      const written = after(entries, t0, isCancelledAnswer)!;
      if (i === 0) continue;
      out.bareToWire.push(cancel.t - t0);
      out.answerToBare.push(readAt - written.t);
    }
  } finally {
    await raw.end();
  }
}

async function memory(extensionPath: string, messages: number, out: HostSamples): Promise<void> {
  const texts = chunkTexts(messages, 13);
  // Prompt #0 is a short turn that starts the agent, so that the figure is the session's
  // messages, not the agent's start; prompt #1 streams the messages.
  const big = { steps: texts.map((text) => ({ text, chunk: 1_000_000, intervalMs: 0 })) };
  await addAgent(extensionPath, { name: 'bench-memory', prompts: [{ steps: [{ text: 'ready' }] }, big] });
  await vscode.commands.executeCommand('reins.sendPrompt', 'warm up');
  const before = await settleHeap();
  const t0 = wall();
  await vscode.commands.executeCommand('reins.sendPrompt', 'stream');
  const ms = wall() - t0;
  await sleep(500); // the panel's batches and the log drain
  const afterUsage = await settleHeap();
  out.memory = { messages, textBytes: texts.reduce((s, t) => s + t.length, 0), before, after: afterUsage, ms };
}

/** The machine's busy and total CPU time so far, or undefined where there is no /proc/stat. */
function machineCpu(): { busy: number; total: number } | undefined {
  try {
    return machineTicks();
  } catch {
    return undefined;
  }
}

/**
 * Waits until the machine is quiet: two 500 ms windows in a row with under 20% of its CPU busy
 * (at most 20 s). The suite starts while the window is still starting: the workbench, the
 * built-in extensions activating for the workspace (TypeScript's, git's) and this host compete
 * for the same 2 cores, and put 25–500 ms of noise into one bare activation. Reins activates
 * on `onStartupFinished`, after that. Returns the ms waited.
 */
async function machineQuiet(): Promise<number> {
  const t0 = performance.now();
  let quiet = 0;
  let last = machineCpu();
  if (!last) return 0;
  while (quiet < 2 && performance.now() - t0 < 20_000) {
    await sleep(500);
    const now = machineCpu();
    if (!now) return 0;
    quiet = (now.busy - last.busy) / Math.max(1, now.total - last.total) < 0.2 ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - t0;
}

/**
 * With REINS_BENCH_CPU_PROFILE (a folder), Reins's activation is recorded as a V8 CPU profile
 * there (open it in DevTools' Performance panel): where a regression of the activation rows went.
 * The profiler's own cost makes that run's figures no measure.
 */
async function profiled<T>(on: boolean, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.REINS_BENCH_CPU_PROFILE;
  if (!on || !dir) return fn();
  const inspector = await import('node:inspector');
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `activation-${process.pid}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/** The log's activation line: "Reins 0.x activated in N ms (bundle loaded in M ms, code cache: used)". */
function codeCacheUse(logUri: vscode.Uri): string | undefined {
  // The channel's file is in a folder of this extension host's logs, not always logUri itself.
  const logs = path.dirname(logUri.fsPath);
  try {
    for (const dir of fs.readdirSync(logs)) {
      const file = path.join(logs, dir, 'Reins.log');
      const m = fs.existsSync(file) ? /bundle loaded in ([\d.]+) ms, code cache: (\w+)/.exec(fs.readFileSync(file, 'utf8')) : null;
      if (m) return `${m[2]}, bundle loaded in ${m[1]} ms`;
    }
  } catch {
    // no log folder: said as unknown
  }
  return undefined;
}

/** Activates `id` from cold; undefined (and an error said) when it was active already. */
async function activateCold<T>(id: string, out: HostSamples): Promise<{ ext: vscode.Extension<T>; api: T; took?: Activation }> {
  const ext = vscode.extensions.getExtension<T>(id);
  if (!ext)
    throw new Error(
      `${id} is not loaded (loaded: ${vscode.extensions.all
        .map((e) => e.id)
        .filter((e) => !e.startsWith('vscode.'))
        .join(', ')})`,
    );
  const cold = !ext.isActive;
  if (!cold) out.errors.push(`${id} was already active: its activation is not measured`);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const { value: api, requests } = await profiled(id === EXTENSION_ID, () => requiresDuring(path.resolve(ext.extensionPath), () => ext.activate()));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (id === EXTENSION_ID) out.activationRequires = requests;
  return { ext, api, took: cold ? { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 } : undefined };
}

export async function run(): Promise<void> {
  const out: HostSamples = {
    baselineActivations: [],
    bundleLoadMs: [],
    bundleBytes: {},
    stopToWire: [],
    bareToWire: [],
    answerToGate: [],
    answerToStopResolved: [],
    answerToBare: [],
    errors: [],
  };
  const file = process.env.REINS_BENCH_OUT;
  const runs = Number(process.env.REINS_BENCH_RUNS || 20);
  const messages = Number(process.env.REINS_BENCH_MESSAGES || 10_000);
  try {
    // A bare extension just before Reins and another just after: what VS Code's own part of an
    // activation costs (the context, its storage, loading a module) at this moment of this run.
    const [warmUp, before, after] = (process.env.REINS_BENCH_BASELINES ?? '').split(',').filter(Boolean);
    out.quietWaitMs = await machineQuiet();
    if (warmUp) await activateCold(warmUp, out);
    if (before) out.baselineActivations.push(...[(await activateCold(before, out)).took].filter((a) => a !== undefined));
    const { ext, api, took } = await activateCold<ReinsApi>(EXTENSION_ID, out);
    out.activation = took;
    // Once what Reins set going has settled (its view's first reveal is the workbench's work, and
    // the next activation waited 50–140 ms for it): the bare one after measures the host, not Reins.
    await machineQuiet();
    if (after) out.baselineActivations.push(...[(await activateCold(after, out)).took].filter((a) => a !== undefined));
    const dist = path.join(ext.extensionPath, 'dist');
    for (const f of fs.readdirSync(dist)) if (f.endsWith('.js')) out.bundleBytes[f] = fs.statSync(path.join(dist, f)).size;
    // Loading the bundle alone (no activate): evaluated afresh, a few times.
    // The bundle itself (dist/extension.js only loads it, with the code cache, at activation).
    const main = require.resolve(path.join(dist, 'reins.js'));
    for (let i = 0; i < 5; i++) {
      const cached = require.cache[main];
      delete require.cache[main];
      const t = performance.now();
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(main);
      out.bundleLoadMs.push(performance.now() - t);
      if (cached) require.cache[main] = cached;
    }
    // The first agent: the machinery is loaded now (the probe of activationRequires: `net` must show here).
    // Choosing the agent counts too: selecting it may already start it.
    const t = performance.now();
    out.firstAgentRequires = (
      await requiresDuring(path.resolve(ext.extensionPath), async () => {
        await addAgent(ext.extensionPath, { name: 'bench-first', prompts: [{ steps: [{ text: 'ready' }] }] });
        await vscode.commands.executeCommand('reins.sendPrompt', 'first');
      })
    ).requests;
    out.firstAgentMs = performance.now() - t;
    out.codeCache = codeCacheUse(api.logUri);
    // host.ts keeps the cache this host made for the next hosts (src/boot/loader.ts writes it just after activation).
    const cacheDir = process.env.REINS_BENCH_CODE_CACHE_DIR;
    if (cacheDir)
      out.codeCacheWritten = await waitFor(
        'the code cache',
        () => (fs.existsSync(cacheDir) && fs.readdirSync(cacheDir).some((n) => n.endsWith('.v8cache')) ? true : undefined),
        20_000,
      ).catch(() => false);
    const steps: [string, () => Promise<void>][] = process.env.REINS_BENCH_ACTIVATION_ONLY
      ? []
      : [
          ['stops', () => stops(api, ext.extensionPath, runs, out)],
          ['memory', () => memory(ext.extensionPath, messages, out)],
        ];
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (error) {
        out.errors.push(`${name}: ${(error as Error)?.stack ?? String(error)}`);
      }
    }
  } catch (error) {
    out.errors.push(String((error as Error)?.stack ?? error));
  } finally {
    await vscode.commands.executeCommand('reins.forceStop').then(undefined, () => undefined);
    if (file) fs.writeFileSync(file, JSON.stringify(out));
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
