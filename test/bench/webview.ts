// Group 5 of `npm run bench`: streaming into the real webview. code-server + Chromium show the
// Reins panel; a scripted agent floods agent_message_chunks ("c0 ", "c1 ", …) at 5,000 a
// second for 10 s; a probe inside the panel's frame measures, against the same panel idle
// (measured first, in the same run):
//   - every chunk rendered exactly once and in order (the answer's text at the end);
//   - renders per frame: MutationObserver deliveries on #transcript between two animation frames;
//   - frame gaps: requestAnimationFrame timestamps, p50 / p99 / max;
//   - the longest task: a `longtask` PerformanceObserver reports nothing inside a webview frame
//     (counted, to show it), so a 4 ms timer chain measures how late it fires instead. The probe
//     is proven once per run: the frame is blocked on purpose for 150 ms and must show it.
import { closeSync, cpSync, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { cpuBetween, formatCpu, sampleCpu } from './procCpu';
import { SAMPLE_MS, sampleRenderers, shareOf, type SchedSampler, type StallShare } from './schedStall';
import { traced } from './trace';
import { agentJs, repo } from './agents';
import { median, percentile, record } from './harness';
import {
  collectHeap,
  fmt,
  gaps,
  loadCodeServerLib,
  openProbedPanel,
  OWN_RENDERER,
  READ,
  RESET,
  type CodeServerLib,
  type Collected,
  type Window,
} from './panelProbe';
import { nth } from '../support/helpers';

// The issue's targets (issue 11, group 5).
const GAP_P99_MAX_MS = 33;
const TASK_MAX_MS = 50;
/** A stall in which the heap fell by more than this had a collection in it (the heap only grows between them). */
const HEAP_DROP_MB = 1;

/** What one run of the streaming group saw: a fresh code-server, browser and panel each. */
interface StreamRun {
  idle: Window;
  blocked: Window;
  probeOk: boolean;
  flood: Window;
  /** The chunk numbers shown, in the order the answer shows them. */
  seen: number[];
  sentMs: number | undefined;
  cpu: Map<string, number>;
  cpuWall: number;
  /** The collections before the idle window and before the flood (collectHeap), MB. */
  collected: { idle: Collected; flood: Collected };
  /** Each window's stalls, split into the main thread running and waiting for a core (schedStall.ts). */
  shares: { idle: StallShare[]; blocked: StallShare[]; flood: StallShare[] };
}

/**
 * `runs` runs, each with its own code-server, browser and panel: one 10 s run on a shared 2-core
 * machine is one sample of a spread wider than most changes (BENCHMARKS.md), so the rows give
 * each run's figure and judge the median run; the worst run is printed beside it.
 */
export async function benchWebview(seconds: number, perSecond: number, idleSeconds: number, runs: number): Promise<void> {
  const count = seconds * perSecond;
  console.log(
    `\n5. Streaming into the real webview (code-server + Chromium, the panel ${OWN_RENDERER ? 'in a renderer of its own: REINS_BENCH_OWN_RENDERER' : "in the workbench's renderer"}): ${count} chunks at ${perSecond}/s, against the idle panel (${idleSeconds} s); ${runs} runs`,
  );
  const lib = await loadCodeServerLib();
  const results: StreamRun[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const run = await streamOnce(lib, seconds, perSecond, idleSeconds);
      results.push(run);
      const { from, to } = streamWindow(run);
      // Where the stalls fell: before the first render (the prompt going out), during the stream, or after it.
      const at = (t: number) => (t < from ? 'before' : t > to ? 'after' : `${((t - from) / 1000).toFixed(1)} s`);
      const g = streamGaps(run);
      console.log(
        `    run ${i + 1}: frame gaps p99 ${percentile(g, 99).toFixed(1)} ms, longest task ${Math.max(0, ...run.flood.lateness).toFixed(1)} ms, ${formatCpu(run.cpu, run.cpuWall)}`,
      );
      const split = (i: number) => {
        const share = run.shares.flood[i];
        const drop = run.flood.heapDrops?.[i] ?? 0;
        return share
          ? ` (ran ${share.ranMs.toFixed(0)}, waited ${share.waitedMs.toFixed(0)}${drop > HEAP_DROP_MB ? `; the heap fell ${drop.toFixed(0)} MB` : ''})`
          : '';
      };
      const { idle, flood } = run.collected;
      console.log(
        `      heap before the idle window: ${fmtCollected(idle)}; before the prompt: ${fmtCollected(flood)}; ${heapEndMb(run).toFixed(1)} MB at the answer's end`,
      );
      console.log(`      stalls over 50 ms: ${run.flood.stalls.map(([t, ms], i) => `${ms.toFixed(0)} ms at ${at(t)}${split(i)}`).join(', ') || 'none'}`);
    }
  } finally {
    await lib.cleanupAll();
  }
  report(results, count);
}

const fmtCollected = (c: Collected): string =>
  c.skipped ? `${c.beforeMb.toFixed(0)} MB (not collected)` : `${c.beforeMb.toFixed(0)} -> ${c.afterMb.toFixed(0)} MB (collected)`;
/** The heap at the answer's end, MB (the probe's last reading). */
const heapEndMb = (run: StreamRun): number => (run.flood.heap ?? 0) / 1048576;

/** While the answer streamed: from its first to its last render (performance.now() of the frame). */
function streamWindow(run: StreamRun): { from: number; to: number } {
  return { from: run.flood.firstRender ?? 0, to: run.flood.lastRender ?? Infinity };
}

/** The frames while the answer streamed, with the renders before each. */
function streamFrames(run: StreamRun): { t: number; renders: number }[] {
  const { from, to } = streamWindow(run);
  return run.flood.frames.map((t, i) => ({ t, renders: run.flood.renders[i] ?? 0 })).filter(({ t }) => t >= from && t <= to + 50);
}
const streamGaps = (run: StreamRun): number[] => gaps(streamFrames(run).map((f) => f.t));
/**
 * The agent's record of the flood's end (how long sending took), once it wrote it. Only the
 * record's tail is read: the driver shares the two cores with the stream it measures, and the
 * whole record is 50,000 lines.
 */
function floodSent(recordFile: string): { ms?: number } | undefined {
  if (!existsSync(recordFile)) return undefined;
  const fd = openSync(recordFile, 'r');
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 64 * 1024));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    const line = tail
      .toString('utf8')
      .split('\n')
      .find((l) => l.includes('"flood-sent"'));
    return line ? (JSON.parse(line) as { ms?: number }) : undefined;
  } finally {
    closeSync(fd);
  }
}
/** The answer is complete when the transcript has not changed for this long after the last chunk was sent. */
const QUIET_MS = 500;
/** The run whose figure (`figures[i]` is run i's) is the median, the lower one of an even count. */
function runWithMedian(runs: StreamRun[], figures: number[]): StreamRun {
  const median = nth(
    [...figures].sort((a, b) => a - b),
    Math.floor((figures.length - 1) / 2),
    'the figures',
  );
  return nth(runs, figures.indexOf(median), 'the runs');
}
/** The most the main thread ran within any of these stalls (0 when there were none). */
const mostRan = (shares: StallShare[]): number => Math.max(0, ...shares.map((s) => s.ranMs));

async function streamOnce(lib: CodeServerLib, seconds: number, perSecond: number, idleSeconds: number): Promise<StreamRun> {
  const count = seconds * perSecond;
  const scratch = mkdtempSync(path.join(tmpdir(), 'reins-bench-webview-'));
  const workspace = path.join(scratch, 'ws');
  cpSync(path.join(repo, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
  const record_ = path.join(scratch, 'record.jsonl');
  let sched: SchedSampler | undefined;
  const scenario = path.join(scratch, 'scenario.json');
  // A paragraph every 100 chunks: the answer grows as Markdown does, block after block.
  writeFileSync(scenario, JSON.stringify({ name: 'flood', prompts: [{ steps: [{ flood: { count, perSecond, paragraph: 100 } }] }] }));
  mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  writeFileSync(
    path.join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({
      'reins.agents': { flood: { command: process.execPath, args: [agentJs, '--scenario', scenario, '--record', record_] } },
      'reins.defaultAgent': 'flood',
      'reins.openIn': 'editor',
    }),
  );
  try {
    const { server, browser, page, frame } = await openProbedPanel(lib, workspace);
    sched = sampleRenderers();
    const origin = await frame.evaluate<number>('performance.timeOrigin');

    // The idle panel: the baseline, from a collected heap as the flood is.
    await page.waitForTimeout(500);
    const collectedIdle = await collectHeap(browser, frame);
    await frame.evaluate(RESET);
    await page.waitForTimeout(idleSeconds * 1000);
    const idle = await frame.evaluate<Window>(READ);

    // The probe proven: the frame blocked on purpose for 150 ms must show as a late timer and a long frame.
    await frame.evaluate(RESET);
    await frame.evaluate('(() => { const t = performance.now(); while (performance.now() - t < 150) {} })()');
    await page.waitForTimeout(300);
    const blocked = await frame.evaluate<Window>(READ);
    // A frame's rAF timestamp is when its vsync began, which Chromium may stamp while the thread
    // is still blocked: the gap can read a frame short of the block (133 ms for 150 in a quiet
    // run on 2 December). The timer sees the whole block.
    const seenByProbes = Math.max(...blocked.lateness) >= 140 && Math.max(...gaps(blocked.frames)) >= 150 - 2 * 16.7;

    // The flood. The probe starts over when the prompt is typed, just before Enter: the window
    // is the turn's, from the prompt to the answer's end. Playwright's click and typing run its
    // own script in the frame (an 85 ms stall "before" the stream in a run of session 11).
    const input = frame.locator('#prompt-input');
    await input.click();
    await input.pressSequentially('flood', { delay: 10 });
    const collectedFlood = await collectHeap(browser, frame);
    await page.waitForTimeout(300);
    await frame.evaluate(RESET);
    const cpuBefore = sampleCpu();
    const wall0 = Date.now();
    await traced(browser, 'stream', async () => {
      await input.press('Enter');
      await page.waitForTimeout(seconds * 1000);
    });
    const cpu = cpuBetween(cpuBefore, sampleCpu());
    const cpuWall = (Date.now() - wall0) / 1000;
    // The flood's end, waited for without touching the DOM: the agent records when it sent the
    // last chunk, and the probe when the transcript last changed. The bench used to poll the
    // answer's textContent (half a megabyte, and a regex over it) every 250 ms from the 10 s
    // mark; its first poll came before the last render, and the 40–60 ms it took the frame's
    // main thread (and the collection after it) was counted as the stream's longest task in
    // two runs of three (session 11: stalls of 77 ms "at 10.0 s", none once the poll went).
    const deadline = Date.now() + 120_000;
    let lastRender: number | undefined;
    let sent: { ms?: number } | undefined;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`the flood did not end within 120 s of its ${seconds} s`);
      await page.waitForTimeout(QUIET_MS);
      const seen = await frame.evaluate<number | undefined>('window.__reinsProbe.lastRender');
      sent ??= floodSent(record_);
      if (sent && seen !== undefined && seen === lastRender) break; // no render for QUIET_MS
      lastRender = seen;
    }
    const flood = await frame.evaluate<Window>(READ);
    // Read once, after the probe's figures: every chunk shown once, in order.
    const text = await frame.evaluate<string>(`[...document.querySelectorAll('.entry.agent')].map((e) => e.textContent).join(' ')`);
    const samples = sched.stop();
    const shares = {
      idle: shareOf(samples, origin, idle.stalls),
      blocked: shareOf(samples, origin, blocked.stalls),
      flood: shareOf(samples, origin, flood.stalls),
    };
    await browser.close();
    await server.stop();

    const seen = [...text.matchAll(/\bc(\d+)\b/g)].map((m) => Number(m[1]));
    // The busy loop runs on a core: the run-time split must see most of its 150 ms as running.
    const probeOk = seenByProbes && mostRan(shares.blocked) >= 120;
    return { idle, blocked, probeOk, flood, seen, sentMs: sent?.ms, cpu, cpuWall, collected: { idle: collectedIdle, flood: collectedFlood }, shares };
  } finally {
    sched?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The rows, from every run: correctness in all of them, timing judged on the median run. */
function report(runs: StreamRun[], count: number): void {
  const n = runs.length;
  const each = (xs: number[], unit = 'ms') => `${xs.map((x) => x.toFixed(1)).join(' / ')} ${unit}`;
  const first = nth(runs, 0, 'the runs');
  const proven = runs.filter((r) => r.probeOk).length;
  record({
    name: 'webview probe: a 150 ms block seen',
    reins: `timer lateness ${each(runs.map((r) => Math.max(0, ...r.blocked.lateness)))}, frame gap ${each(runs.map((r) => Math.max(0, ...gaps(r.blocked.frames))))}, main thread ran ${each(runs.map((r) => mostRan(r.shares.blocked)))}`,
    baseline: `longtask entries: ${first.blocked.longtasks}`,
    ratio: undefined,
    target: 'timer ≥ 140 ms, frame gap ≥ 117 ms, ran ≥ 120 ms',
    pass: proven === n,
    note: `the frame blocked on purpose once per run (proven in ${proven} of ${n}): the timer-lateness, frame-gap and run-time probes must see it (the frame's longtask observer does not)`,
  });

  const inOrder = runs.map((r) => r.seen.length === count && r.seen.every((c, i) => c === i));
  const twice = runs.map((r) => r.seen.length - new Set(r.seen).size);
  record({
    name: 'webview stream: chunks rendered',
    reins: runs.map((r, i) => `${r.seen.length} of ${count}${twice[i] ? `, ${twice[i]} twice` : ''}${inOrder[i] ? ', in order' : ', NOT in order'}`).join('; '),
    baseline: `sent at ${runs.map((r) => (r.sentMs ? `${Math.round(count / (r.sentMs / 1000))}/s` : 'n/a')).join(', ')}`,
    ratio: undefined,
    target: 'every chunk exactly once, in order, in every run',
    pass: inOrder.every(Boolean),
  });

  const perFrame = runs.flatMap((r) => streamFrames(r).map((f) => f.renders));
  record({
    name: 'webview stream: renders per frame',
    reins: `max ${Math.max(0, ...perFrame)}, mean ${(perFrame.reduce((a, b) => a + b, 0) / Math.max(1, perFrame.length)).toFixed(2)} over ${perFrame.length} frames of ${n} runs`,
    baseline: `idle: max ${Math.max(0, ...runs.flatMap((r) => r.idle.renders))}`,
    ratio: undefined,
    target: '≤ 1 per frame',
    pass: perFrame.length > 0 && Math.max(...perFrame) <= 1,
    note: 'MutationObserver deliveries on #transcript between two animation frames',
  });

  const p99s = runs.map((r) => percentile(streamGaps(r), 99));
  const idleP99s = runs.map((r) => percentile(gaps(r.idle.frames), 99));
  const medianRun = runWithMedian(runs, p99s);
  record({
    name: 'webview stream: frame gaps',
    reins: `p99 median ${median(p99s).toFixed(1)} ms (runs: ${each(p99s)}); the median run: ${fmt(streamGaps(medianRun))}`,
    baseline: `idle p99: ${each(idleP99s)}`,
    ratio: median(p99s) / median(idleP99s),
    target: `median run's p99 ≤ ${GAP_P99_MAX_MS} ms`,
    pass: median(p99s) <= GAP_P99_MAX_MS,
    note: `ratio: the median p99s, streaming over idle; ${streamGaps(medianRun).length} frames while the median run's answer streamed`,
  });

  const longest = runs.map((r) => Math.max(0, ...r.flood.lateness));
  const idleLongest = runs.map((r) => Math.max(0, ...r.idle.lateness));
  record({
    name: 'webview stream: longest task',
    reins: `median ${median(longest).toFixed(1)} ms (runs: ${each(longest)}; timer lateness p99 ${each(runs.map((r) => percentile(r.flood.lateness, 99)))})`,
    baseline: `idle: ${each(idleLongest)}`,
    ratio: median(longest) / Math.max(1, median(idleLongest)),
    target: `median run's ≤ ${TASK_MAX_MS} ms`,
    pass: proven === n && median(longest) <= TASK_MAX_MS,
    note: `how late a 4 ms timer fired, from the prompt to the answer's end (the frame's longtask observer gave ${first.flood.longtasks} entries); the idle panel's own stalls are the machine's; stalls over 50 ms in which the shared JavaScript heap fell by over ${HEAP_DROP_MB} MB (a collection): ${runs.reduce((k, r) => k + (r.flood.heapDrops ?? []).filter((d) => d > HEAP_DROP_MB).length, 0)} of ${runs.reduce((k, r) => k + r.flood.stalls.length, 0)}`,
  });

  const ran = runs.map((r) => mostRan(r.shares.flood));
  // Its median run and that run's stall that ran most (not the frame-gap row's median run: with equal p99s that is the first).
  const ranRun = runWithMedian(runs, ran);
  const worst = ranRun.shares.flood.reduce<StallShare | undefined>((a, b) => (a && a.ranMs >= b.ranMs ? a : b), undefined);
  record({
    name: 'webview stream: longest task, running',
    reins: `median ${median(ran).toFixed(1)} ms (runs: ${each(ran)}); the median run's stall that ran most: ${worst ? `${worst.ms.toFixed(0)} ms, of which the main thread ran ${worst.ranMs.toFixed(0)} and waited for a core ${worst.waitedMs.toFixed(0)}` : 'none'}`,
    baseline: `idle: ${each(runs.map((r) => mostRan(r.shares.idle)))}`,
    ratio: undefined,
    target: `median run's ≤ ${TASK_MAX_MS} ms`,
    pass: proven === n && median(ran) <= TASK_MAX_MS,
    note: `the most the renderer's main thread ran within any stall over 50 ms (/proc schedstat every ${SAMPLE_MS} ms): the stall's task time, without its waits for a core`,
  });

  const grew = runs.map((r) => heapEndMb(r) - r.collected.flood.afterMb);
  record({
    name: 'webview stream: heap growth',
    reins: `median ${median(grew).toFixed(1)} MB (runs: ${each(grew, 'MB')})`,
    baseline: `before the idle window: ${runs.map((r) => fmtCollected(r.collected.idle)).join(' / ')}; before the prompt: ${runs.map((r) => fmtCollected(r.collected.flood)).join(' / ')}`,
    ratio: undefined,
    target: 'info',
    pass: undefined,
    note: "the renderer's heap (the workbench's and the panel's) from the prompt to the answer's end; each window starts from a collected heap (unless REINS_BENCH_NO_COLLECT): the workbench's start leaves garbage that V8 otherwise collects in one 60–90 ms pause wherever its memory reducer's timer falls (collectHeap)",
  });

  const totals = runs.map((r) => [...r.cpu.values()].reduce((a, b) => a + b, 0));
  const renderer = runs.map((r) => Math.max(0, ...[...r.cpu].filter(([role]) => role.startsWith('browser renderer')).map(([, s]) => s)));
  record({
    name: 'webview stream: CPU per process',
    reins: `all processes ${each(totals, 'CPU-s')}, the renderer ${each(renderer, 's')}; the median run: ${formatCpu(medianRun.cpu, medianRun.cpuWall)}`,
    baseline: '2 cores',
    ratio: undefined,
    target: 'info',
    pass: undefined,
    note: 'what the processes took while the flood ran (/proc); the webview waits for a core when the others take both',
  });
}
