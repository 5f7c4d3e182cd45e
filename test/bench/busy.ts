// Group 3: a prompt sent while goose still winds down an earlier run. goose rejects it
// ("active run") until the run clears T ms later; what the user feels is how long after the
// clear the prompt gets through. Reins (AgentRuntime: cancel, back-off retry, and at once on
// goose's idle signal) with the signal and without it, against the fixed policy the seed had
// (cancel, wait 2 s, retry, twice), on the same agent (busyAgent.entry.ts), in the same run.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentRuntime, defaultRuntimeSettings } from '../../src/runtime/agentRuntime';
import { silentLogger } from '../../src/util/logger';
import { RawClient } from './agents';
import { sleep } from '../support/helpers';
import { fmtSpread, median, record } from './harness';

const busyAgent = path.join(__dirname, 'busyAgent.entry.js');
/** How far over a bare client's retry on the idle signal Reins's may be (as the stop rows' 5 ms). */
const SIGNAL_FLOOR_MS = 5;

interface Outcome {
  /** The run cleared → the prompt got through (ms), or undefined when it never did. */
  latency?: number;
  cancels: number;
}

function readOutcome(file: string): Outcome | undefined {
  if (!existsSync(file)) return undefined;
  const r = JSON.parse(readFileSync(file, 'utf8')) as { clearedAt: number; acceptedAt: number; cancels: number };
  return { latency: r.acceptedAt - r.clearedAt, cancels: r.cancels };
}

async function viaReins(dir: string, t: number, idle: boolean, n: number): Promise<Outcome> {
  const result = path.join(dir, `reins-${t}-${idle}-${n}.json`);
  const rt = new AgentRuntime({
    name: 'bench-busy',
    launch: { command: process.execPath, args: [busyAgent, String(t), idle ? '1' : '0', result], cwd: dir },
    settings: () => ({ ...defaultRuntimeSettings, initializeTimeoutMs: 10_000 }),
    log: silentLogger,
  });
  try {
    await rt.start();
    const turn = await rt.turns.prompt('go');
    if (turn.kind !== 'completed') return { cancels: rt.turns.sent.cancels };
    return readOutcome(result) ?? { cancels: rt.turns.sent.cancels };
  } finally {
    await rt.shutdown('deactivate', 500);
  }
}

/** The seed's policy: on "busy", cancel, wait 2 s, retry; twice; then give up. */
async function viaFixedPolicy(dir: string, t: number, n: number): Promise<Outcome> {
  const result = path.join(dir, `fixed-${t}-${n}.json`);
  const raw = new RawClient([String(t), '0', result], dir, busyAgent);
  let cancels = 0;
  try {
    await raw.start(dir);
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await raw.prompt('go').answer;
      if (!answer.error) return readOutcome(result) ?? { cancels };
      if (attempt === 2) break;
      raw.cancel();
      cancels++;
      await sleep(2000);
    }
    return { cancels };
  } finally {
    await raw.end();
  }
}

/**
 * The floor of "retry on the idle signal": a bare client that, rejected, cancels and sends the
 * prompt again the moment goose's idle signal arrives. What is left of Reins's figure over this
 * is Reins's own path (reader, vscode-jsonrpc's queue, the machine, the controller, the writer).
 */
async function viaBareOnSignal(dir: string, t: number, n: number): Promise<Outcome> {
  const result = path.join(dir, `bare-${t}-${n}.json`);
  const raw = new RawClient([String(t), '1', result], dir, busyAgent);
  let cancels = 0;
  try {
    await raw.start(dir);
    const idle = raw.next((m) => m.method === 'session/update' && JSON.stringify(m.params).includes('"activeRunId":null'));
    const first = await raw.prompt('go').answer;
    if (!first.error) return readOutcome(result) ?? { cancels };
    raw.cancel();
    cancels++;
    await idle;
    const answer = await raw.prompt('go').answer;
    return answer.error ? { cancels } : (readOutcome(result) ?? { cancels });
  } finally {
    await raw.end();
  }
}

export async function benchBusy(unwinds: number[], runs: number): Promise<void> {
  console.log(`\n3. Busy retry: goose's earlier run clears T = ${unwinds.map((t) => t / 1000).join(', ')} s after the prompt; ${runs} runs each`);
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-bench-busy-'));
  try {
    for (const t of unwinds) {
      const samples: Record<'signal' | 'backoff' | 'fixed' | 'bare', Outcome[]> = { signal: [], backoff: [], fixed: [], bare: [] };
      for (let n = 0; n < runs; n++) {
        samples.signal.push(await viaReins(dir, t, true, n));
        samples.bare.push(await viaBareOnSignal(dir, t, n));
        samples.backoff.push(await viaReins(dir, t, false, n));
        samples.fixed.push(await viaFixedPolicy(dir, t, n));
      }
      const lat = (o: Outcome[]) => o.flatMap((x) => (x.latency === undefined ? [] : [x.latency]));
      const failed = (o: Outcome[]) => o.filter((x) => x.latency === undefined).length;
      const cancels = (o: Outcome[]) => `cancels ${median(o.map((x) => x.cancels))}`;
      const fixed = lat(samples.fixed);
      const bare = lat(samples.bare);
      const said = (o: Outcome[]) => `${cancels(o)}${failed(o) ? `, ${failed(o)} failed` : ''}`;
      // With the signal the retry is immediate: judged against a bare client retrying on the same
      // signal (a few ms over it, as the stop rows), so that the machine's load moves both.
      const signal = lat(samples.signal);
      record({
        name: `busy retry, T = ${t / 1000} s, idle signal`,
        reins: `${fmtSpread(signal)}, ${said(samples.signal)}`,
        baseline: `a bare client retrying on the signal: ${fmtSpread(bare)}, ${said(samples.bare)}`,
        ratio: signal.length && bare.length ? median(signal) / median(bare) : undefined,
        target: `median ≤ baseline + ${SIGNAL_FLOOR_MS} ms, none failed`,
        pass: signal.length === runs && bare.length > 0 && median(signal) <= median(bare) + SIGNAL_FLOOR_MS,
        note: 'from the agent clearing its run to the retried prompt reaching it, stamped by the agent',
      });
      // Without the signal the back-off (≤ 1 s steps) must still beat the fixed policy's 2 s
      // waits. Neither may give up while the agent clears in time.
      const backoff = lat(samples.backoff);
      record({
        name: `busy retry, T = ${t / 1000} s, back-off only`,
        reins: `${fmtSpread(backoff)}, ${said(samples.backoff)}`,
        baseline: `fixed 2 s × 2: ${fmtSpread(fixed)}, ${said(samples.fixed)}`,
        ratio: backoff.length && fixed.length ? median(backoff) / median(fixed) : undefined,
        target: 'median ≤ 1 s, none failed',
        pass: backoff.length === runs && median(backoff) <= 1000,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
