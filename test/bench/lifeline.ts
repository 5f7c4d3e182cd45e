// What the lifeline (a watchdog process and a record per agent, src/acp/lifeline.ts) costs:
// the agent's start (spawn → its answer to initialize) and a stream through its stdout, each
// with the lifeline configured (Reins) and without it (baseline), alternately, in one run.
// The watchdog runs beside the agent, not on its pipes, so the stream should not move at all;
// the start pays one more fork/exec in the host and a Node starting up on a shared CPU.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentProcess } from '../../src/acp/agentProcess';
import { AgentRecords } from '../../src/acp/agentRecords';
import { configureLifeline } from '../../src/acp/lifeline';
import { silentLogger } from '../../src/util/logger';
import { agentJs, repo } from './agents';
import { chunkTexts } from './data';
import { fmtMs, fmtRate, fmtSpread, median, now, record } from './harness';
import { nth, sleep } from '../support/helpers';

// Start: the agent's own start is ~100 ms of Node; the watchdog's fork/exec and its Node
// starting on the other core may add a little. 1.5× or +30 ms, whichever is larger.
const START_MAX_RATIO = 1.5;
const START_FLOOR_MS = 30;
// Stream: nothing of the lifeline is on the path; 1.25× allows for the noise of two runs.
const STREAM_MAX_RATIO = 1.25;

interface Run {
  startMs: number;
  streamMs?: number;
  watchdogPrivateKiB?: number;
}

/** Spawns the scripted agent, waits for initialize's answer, optionally streams, then ends it. */
async function once(args: string[], cwd: string, stream: boolean, n = 0): Promise<Run> {
  const t0 = now();
  const agent = new AgentProcess({ command: process.execPath, args: [agentJs, ...args], cwd }, silentLogger);
  let buffered = '';
  let lines = 0;
  const waiters: { until: (line: string) => boolean; resolve: () => void }[] = [];
  agent.stdout.setEncoding('utf8');
  agent.stdout.on('data', (chunk: string) => {
    const parts = (buffered + chunk).split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      lines++;
      for (let i = waiters.length - 1; i >= 0; i--) if (nth(waiters, i, 'waiters').until(line)) nth(waiters.splice(i, 1), 0, 'waiters.splice(i, 1)').resolve();
    }
  });
  const lineWith = (text: string) => new Promise<void>((resolve) => waiters.push({ until: (l) => l.includes(text), resolve }));
  const send = (id: number, method: string, params: object) => agent.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  const initialized = lineWith('"id":1,');
  send(1, 'initialize', { protocolVersion: 1 });
  await initialized;
  const run: Run = { startMs: now() - t0 };
  if (stream) {
    // The watchdog's own start (a Node, ~100 ms of CPU) is counted in the start row; here the
    // question is whether anything of the lifeline slows the stream once both are running.
    await sleep(500);
    const opened = lineWith('"id":2,');
    send(2, 'session/new', { cwd, mcpServers: [] });
    await opened;
    const before = lines;
    const answered = lineWith('"id":3,');
    const t1 = now();
    send(3, 'session/prompt', { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'go' }] });
    await answered;
    run.streamMs = now() - t1;
    if (lines - before - 1 !== n) throw new Error(`stream: ${lines - before - 1} updates, expected ${n}`);
  }
  const dog = agent.watchdogPid;
  if (dog !== undefined) run.watchdogPrivateKiB = privateKiB(dog);
  await agent.end(300);
  return run;
}

function privateKiB(pid: number): number | undefined {
  try {
    // Private memory: what this process adds (the Node binary's pages are shared with others).
    const match = /^Private_Dirty:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

export async function benchLifeline(startRuns: number, chunks: number): Promise<void> {
  console.log(`\n7. Lifeline: agent start (${startRuns} runs each) and a ${chunks / 1000}k-chunk stream, with and without the watchdog`);
  if (process.platform === 'win32') return console.log('  (no watchdog on Windows)');
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-bench-lifeline-'));
  const withLifeline = () =>
    configureLifeline({ node: process.execPath, watchdogScript: path.join(repo, 'dist', 'watchdog.js'), records: new AgentRecords(path.join(dir, 'records')) });
  const without = () => configureLifeline(undefined);
  try {
    const quick = path.join(dir, 'quick.json');
    writeFileSync(quick, JSON.stringify({ prompts: [{ steps: [{ text: 'hi' }] }] }));
    const texts = chunkTexts(chunks, 11);
    const streamFile = path.join(dir, 'stream.json');
    writeFileSync(streamFile, JSON.stringify({ prompts: [{ steps: texts.map((text) => ({ text, chunk: 1_000_000, intervalMs: 0 })) }] }));

    const starts = { reins: [] as number[], baseline: [] as number[] };
    const memory: number[] = [];
    for (let i = 0; i < startRuns + 2; i++) {
      // Each pair in the other order: whichever runs second finds the first one's processes
      // still ending, and on a loaded machine that order effect is as large as what is measured.
      const first = i % 2 === 0;
      const measure = async (lifeline: boolean) => (lifeline ? withLifeline() : without(), await once(['--scenario', quick], dir, false));
      const b = first ? await measure(false) : undefined;
      const r = await measure(true);
      const b2 = first ? b! : await measure(false);
      if (r.watchdogPrivateKiB !== undefined) memory.push(r.watchdogPrivateKiB);
      // Let the watchdog and the ended agents go before the next pair.
      await sleep(150);
      if (i < 2) continue; // warm-up
      starts.baseline.push(b2.startMs);
      starts.reins.push(r.startMs);
    }
    const [rs, bs] = [median(starts.reins), median(starts.baseline)];
    const limit = Math.max(bs * START_MAX_RATIO, bs + START_FLOOR_MS);
    record({
      name: 'lifeline: agent start',
      reins: fmtSpread(starts.reins),
      baseline: fmtSpread(starts.baseline),
      ratio: rs / bs,
      target: `≤ max(${START_MAX_RATIO}×, +${START_FLOOR_MS} ms) = ${fmtMs(limit)}`,
      pass: rs <= limit,
      note: `spawn → initialize answered; the watchdog's private memory: median ${median(memory)} KiB`,
    });

    const streams = { reins: [] as number[], baseline: [] as number[] };
    for (let i = 0; i < 6; i++) {
      without();
      const b = await once(['--scenario', streamFile], dir, true, chunks);
      withLifeline();
      const r = await once(['--scenario', streamFile], dir, true, chunks);
      if (i === 0) continue; // warm-up
      streams.baseline.push(b.streamMs!);
      streams.reins.push(r.streamMs!);
    }
    const [rt, bt] = [median(streams.reins), median(streams.baseline)];
    record({
      name: 'lifeline: stream',
      reins: `${fmtSpread(streams.reins)} (${fmtRate(chunks, rt, 'chunk')})`,
      baseline: `${fmtSpread(streams.baseline)} (${fmtRate(chunks, bt, 'chunk')})`,
      ratio: rt / bt,
      target: `ratio ≤ ${STREAM_MAX_RATIO}`,
      pass: rt / bt <= STREAM_MAX_RATIO,
      note: 'medians of 5; raw lines through AgentProcess.stdout (the watchdog is not on the pipe)',
    });
  } finally {
    without();
    rmSync(dir, { recursive: true, force: true });
  }
}
