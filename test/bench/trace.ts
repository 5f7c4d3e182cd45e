// An opt-in Chrome trace of one part of a webview bench, for finding where its frames go:
// `REINS_BENCH_TRACE=<dir>` makes the webview:scroll group write `<dir>/<name>.json` (open it in
// Chrome's Performance panel or https://ui.perfetto.dev, or summarise it with
// `node scripts/traceSummary.mjs <file>`). Off by default: tracing itself slows the frames down.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** The part of Playwright's CDPSession this uses. */
interface CdpSession {
  send(method: string, params?: object): Promise<unknown>;
  on(event: string, listener: (params: unknown) => void): void;
  detach(): Promise<void>;
}
export interface TracedBrowser {
  context: { newCDPSession(page: unknown): Promise<CdpSession> };
  page: unknown;
}

const CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'blink',
  'cc',
  'gpu',
  'v8.execute',
  'toplevel',
  'blink_style',
  'disabled-by-default-blink.debug',
  'blink.debug',
].join(',');
/**
 * Without blink's debug categories: their selector statistics made each style recalculation of a
 * panel's first snapshot take seconds (Document::recalcStyle 11.9 s in a trace of three opens).
 */
export const LIGHT_CATEGORIES = CATEGORIES.split(',')
  .filter((c) => !/blink\.debug/.test(c))
  .concat('blink.user_timing')
  .join(',');

/**
 * Runs `work` under a trace when REINS_BENCH_TRACE names a folder, or under a JavaScript CPU
 * profile when REINS_BENCH_PROFILE does (`<dir>/<name>.cpuprofile`, with a summary printed: the
 * time per script, which tells the workbench's JavaScript from the webview's, since the two
 * share the renderer's main thread); else just runs it.
 */
export async function traced<T>(browser: TracedBrowser, name: string, work: () => Promise<T>, categories = CATEGORIES): Promise<T> {
  const profile = process.env.REINS_BENCH_PROFILE;
  const dir = profile || process.env.REINS_BENCH_TRACE;
  if (!dir) return work();
  // A folder not made yet is made: without it the group failed after its opens (ENOENT).
  mkdirSync(dir, { recursive: true });
  if (profile) return profiled(browser, name, profile, work);
  const events: unknown[] = [];
  let complete: Promise<void> | undefined;
  return recording(browser, work, {
    start: async (cdp) => {
      cdp.on('Tracing.dataCollected', (p) => events.push(...(p as { value: unknown[] }).value));
      complete = new Promise<void>((resolve) => cdp.on('Tracing.tracingComplete', () => resolve()));
      await cdp.send('Tracing.start', { categories, transferMode: 'ReportEvents' });
    },
    finish: async (cdp) => {
      await cdp.send('Tracing.end');
      await complete;
      const file = path.join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify({ traceEvents: events }));
      return `    trace of ${name}: ${file} (${events.length} events)`;
    },
  });
}

/** `work` between `start` and `finish` on a CDP session of the page; `finish` runs however `work` ends, and says what it wrote. */
async function recording<T>(
  browser: TracedBrowser,
  work: () => Promise<T>,
  { start, finish }: { start: (cdp: CdpSession) => Promise<void>; finish: (cdp: CdpSession) => Promise<string> },
): Promise<T> {
  const cdp = await browser.context.newCDPSession(browser.page);
  await start(cdp);
  try {
    return await work();
  } finally {
    console.log(await finish(cdp));
    await cdp.detach();
  }
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

async function profiled<T>(browser: TracedBrowser, name: string, dir: string, work: () => Promise<T>): Promise<T> {
  return recording(browser, work, {
    start: async (cdp) => {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await cdp.send('Profiler.start');
    },
    finish: async (cdp) => {
      const { profile } = (await cdp.send('Profiler.stop')) as { profile: CpuProfile };
      const file = path.join(dir, `${name}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return `    profile of ${name}: ${file}\n${summarise(profile)}`;
    },
  });
}

/** Self time per script and the busiest functions, in ms. */
function summarise(profile: CpuProfile): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const perScript = new Map<string, number>();
  const perFunction = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    // The script's file name, without its folder and query.
    const script = frame.url ? ((frame.url.split('?')[0] ?? '').split('/').pop() ?? '') : frame.functionName;
    perScript.set(script, (perScript.get(script) ?? 0) + ms);
    const fn = `${frame.functionName || '(anonymous)'} ${script}:${frame.lineNumber}`;
    perFunction.set(fn, (perFunction.get(fn) ?? 0) + ms);
  });
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, ms]) => `      ${ms.toFixed(0).padStart(6)} ms  ${k}`)
      .join('\n');
  return `    per script:\n${top(perScript, 12)}\n    per function:\n${top(perFunction, 25)}`;
}
