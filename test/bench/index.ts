// `npm run bench`: Reins's speed and memory, each against a baseline measured in the same run,
// printed as ratios with a target (see README.md). Exit code 1 when a target is missed.
//
//   node out/test/bench/index.js            all benchmarks (re-runs itself with --expose-gc)
//   node out/test/bench/index.js --quick    smaller sizes, for trying the harness out
//   node out/test/bench/index.js --only framing,busy   some groups only (names: see `benches`)
//   REINS_BENCH_LONG_TURNS=60 node out/test/bench/index.js --only long   the long session, shorter
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import { agentJs, benchEndToEnd, benchMemory, benchStop, memoryChild } from './agents';
import { hasGc, now, printTable, record, rows } from './harness';
import { loadCodeServerLib } from './panelProbe';
import { benchBusy } from './busy';
import { benchCheckpoint } from './checkpoint';
import { benchActivation, benchHost } from './host';
import { benchWelcome } from './welcome';
import { benchLifeline } from './lifeline';
import { benchLongMemory } from './longMemory';
import { benchLongReplay } from './longReplay';
import { benchPeak, benchReaders, benchWriters, peakChild } from './framing';
import { benchPipe, pipeChild } from './framingPipe';
import { benchTranscript } from './micro';
import { benchToolOutput } from './toolOutput';
import { benchMarkdownStream } from './markdownStream';
import { benchWebview } from './webview';
import { benchWebviewScroll } from './webviewScroll';
import { benchWebviewOutput } from './webviewOutput';
import { nth } from '../support/helpers';

const RESPAWNED = 'REINS_BENCH_GC';

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const childAt = args.indexOf('--child');
  if (childAt >= 0 && args[childAt + 1] === 'memory') {
    await memoryChild();
    return 0;
  }
  if (childAt >= 0 && args[childAt + 1] === 'pipe') {
    await pipeChild(nth(args, childAt + 2, 'the framer (pipe <framer>)'));
    return 0;
  }
  if (childAt >= 0 && args[childAt + 1] === 'peak') {
    await peakChild(nth(args, childAt + 2, 'the framer (peak <framer> <file>)'), nth(args, childAt + 3, 'the file (peak <framer> <file>)'));
    return 0;
  }

  // Heap figures need full collections: run again under --expose-gc, once.
  if (!hasGc() && !process.env[RESPAWNED]) {
    const again = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, __filename, ...args], {
      stdio: 'inherit',
      env: { ...process.env, [RESPAWNED]: '1' },
    });
    if (again.error === undefined && again.status !== null) return again.status;
    if (again.signal) return 1; // interrupted: do not run everything again without it
    console.log(`(could not re-run with --expose-gc: ${again.error?.message ?? again.signal}; heap figures are n/a)`);
  }

  if (!existsSync(agentJs)) {
    console.error(`${agentJs} is missing: run \`node scripts/esbuild.mjs --tests\` first (npm run bench does).`);
    return 1;
  }

  const quick = args.includes('--quick');
  const scale = quick ? 0.1 : 1;
  console.log(
    `Reins benchmarks — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ` +
      `load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}, gc ${hasGc() ? 'exposed' : 'not exposed'}${quick ? ', quick sizes' : ''}`,
  );
  console.log('ratio = Reins cost / baseline cost (time or memory): 1.00× = as cheap as the baseline, higher = costlier.');

  const started = now();
  const longTurns = Number(process.env.REINS_BENCH_LONG_TURNS) || (quick ? 50 : 500);
  const benches: [string, () => Promise<void>][] = [
    ['framing:reader', () => benchReaders(50_000 * scale, quick ? 5 : 11)],
    ['framing:writer', () => benchWriters(50_000 * scale, quick ? 5 : 11)],
    ['framing:peak', () => benchPeak([...process.execArgv, __filename], quick ? 2 : 16, 3)],
    ['framing:pipe', () => benchPipe(__filename, quick ? 2 : 16, quick ? 1 : 3, false)],
    ['framing:pipe', () => benchPipe(__filename, quick ? 2 : 16, quick ? 1 : 3, true)],
    ['transcript', () => benchTranscript(200_000 * scale, 100_000 * scale)],
    ['tool output', () => benchToolOutput(200, 200_000, quick ? 3 : 7)],
    ['end to end', () => benchEndToEnd(quick ? 5_000 : 50_000)],
    ['stop latency', () => benchStop(quick ? 5 : 20)],
    ['memory', () => benchMemory([...process.execArgv, __filename], quick ? 2 : 5)],
    ['busy', () => benchBusy([200, 1800, 3800], quick ? 1 : 3)],
    ['host', () => benchHost(quick ? 5 : 20, quick ? 1_000 : 10_000)],
    ['activation', () => benchActivation(quick ? 2 : 5)],
    ['activation:welcome', () => benchWelcome(quick ? 1 : 3)],
    ['markdown', () => benchMarkdownStream(quick ? 2 : 10, 5_000, quick ? 3 : 9)],
    ['webview', () => benchWebview(quick ? 2 : 10, 5_000, quick ? 2 : 10, quick ? 1 : 3)],
    ['webview:scroll', () => benchWebviewScroll(quick ? 300 : 3_000, 7)],
    ['webview:output', () => benchWebviewOutput(quick ? 1 : 3)],
    ['lifeline', () => benchLifeline(quick ? 5 : 20, quick ? 5_000 : 50_000)],
    ['checkpoint', () => benchCheckpoint(quick ? 500 : 5_000, quick ? 3 : 7)],
    // REINS_BENCH_LONG_TURNS: fewer turns for a quick look (the session is 500).
    ['long', () => benchLongReplay(longTurns)],
    // The leak check per update received, in this process (no host): `--only long:memory` alone.
    ['long:memory', () => benchLongMemory(longTurns)],
  ];
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? new Set(args[onlyAt + 1]?.split(',')) : undefined;
  for (const [name, run] of benches) {
    if (only && ![...only].some((o) => name.startsWith(o))) continue;
    try {
      await withinCap(run);
    } catch (error) {
      record({ name, reins: 'error', baseline: '-', ratio: undefined, target: 'runs', pass: false, note: String((error as Error)?.stack ?? error) });
    }
  }

  printTable();
  const failed = rows.filter((r) => r.pass === false);
  console.log(`\n${rows.length} rows, ${failed.length} failed, ${((now() - started) / 1000).toFixed(1)} s`);
  return failed.length > 0 ? 1 : 0;
}

/**
 * A group with no result within GROUP_MINUTES is recorded as an error, the browsers and
 * code-servers it started are stopped, and the run goes on to the next group. One `long` run in
 * ten hung for 9 minutes in Playwright's `keyboard.press`, which has no timeout of its own.
 * `REINS_BENCH_GROUP_MINUTES` changes the cap (a full-size group takes 1-4 minutes here). Tried
 * with a cap of 0.5 min on `--only long`: when `long:memory` began, nothing of `long` ran but its
 * agent's watchdog finishing and 5 exited processes; without `cleanupAll`, 17 of its browser's and
 * code-server's processes still ran beside the next group.
 */
const GROUP_MINUTES = Number(process.env.REINS_BENCH_GROUP_MINUTES ?? 20);
async function withinCap(run: () => Promise<unknown>): Promise<void> {
  const work = run();
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), GROUP_MINUTES * 60_000)));
  try {
    if ((await Promise.race([work, cap])) !== 'hung') return;
  } finally {
    clearTimeout(timer);
  }
  work.catch(() => undefined); // it fails once its browser is stopped: nothing left to report
  const host = await loadCodeServerLib();
  await host.cleanupAll();
  throw new Error(`no result within ${GROUP_MINUTES} min: hung (the browsers and code-servers it started are stopped)`);
}

// A benchmark that hangs (an agent that never answers) must not hang the run. A full run on a
// loaded 2-core machine takes over 20 minutes (the host groups start code-server seven times);
// what was measured before the cap is still printed.
const CAP_MINUTES = process.argv.includes('--quick') ? 30 : 90;
setTimeout(() => {
  printTable();
  console.error(`bench: gave up after ${CAP_MINUTES} minutes (the rows above are what was measured)`);
  process.exit(1);
}, CAP_MINUTES * 60_000).unref();

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
