// An opt-in Chrome trace of one part of a webview bench, for finding where its frames go:
// `REINS_BENCH_TRACE=<dir>` makes the webview:scroll group write `<dir>/<name>.json` (open it in
// Chrome's Performance panel or https://ui.perfetto.dev, or summarise it with
// `node scripts/traceSummary.mjs <file>`). Off by default: tracing itself slows the frames down.
import { writeFileSync } from 'node:fs';
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

/** Runs `work` under a trace when REINS_BENCH_TRACE names a folder; else just runs it. */
export async function traced<T>(browser: TracedBrowser, name: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.REINS_BENCH_TRACE;
  if (!dir) return work();
  const cdp = await browser.context.newCDPSession(browser.page);
  const events: unknown[] = [];
  cdp.on('Tracing.dataCollected', (p) => events.push(...(p as { value: unknown[] }).value));
  const complete = new Promise<void>((resolve) => cdp.on('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  try {
    return await work();
  } finally {
    await cdp.send('Tracing.end');
    await complete;
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ traceEvents: events }));
    console.log(`    trace of ${name}: ${file} (${events.length} events)`);
    await cdp.detach();
  }
}
