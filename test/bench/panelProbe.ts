// The Reins panel in the real host with a probe in its frame, shared by the webview groups of
// `npm run bench` (webview.ts: streaming; webviewScroll.ts: a long transcript). The probe runs in
// the webview's frame and counts, per window of time: animation frames, renders (mutations of
// #transcript), how late a 4 ms timer fires (the longest task: a `longtask` observer sees nothing
// in a webview frame), and the renderer's heap at each stall.
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TracedBrowser } from './trace';
import { repo } from './agents';
import { median, percentile } from './harness';

export interface Frame {
  evaluate<T>(script: string): Promise<T>;
  $(selector: string): Promise<unknown>;
  locator(selector: string): { click(): Promise<void>; pressSequentially(t: string, o?: { delay?: number }): Promise<void>; press(k: string): Promise<void> };
}
export interface Page {
  goto(url: string, o?: { timeout?: number }): Promise<unknown>;
  frames(): Frame[];
  mainFrame(): Frame;
  locator(selector: string): { waitFor(o?: { timeout?: number }): Promise<void> };
  waitForTimeout(ms: number): Promise<void>;
}
/** What launchBrowser returns, as far as the bench uses it: a TracedBrowser as it is (trace.ts). */
export interface Browser extends TracedBrowser {
  page: Page;
  context: TracedBrowser['context'] & { addInitScript(script: string): Promise<void> };
  close(): Promise<void>;
}
export interface CodeServerLib {
  startCodeServer(o: { folder: string; settings?: Record<string, unknown>; allBuiltins?: boolean }): Promise<{ stop(): Promise<void> }>;
  launchBrowser(o?: { args?: string[]; bypassCSP?: boolean; preferences?: object; pwaWorker?: boolean }): Promise<Browser>;
  workbenchUrl(server: unknown, o: { folder: string; extensionDevelopmentPath: string }): string;
  openWorkbench(page: Page, url: string): Promise<unknown>;
  runCommand(page: Page, title: string, timeoutMs?: number): Promise<number>;
  focusWorkbench(page: Page): Promise<void>;
  findWebviewFrame(page: Page, selector: string, timeoutMs: number, pollMs?: number): Promise<Frame>;
  cleanupAll(): Promise<void>;
}

/** test/host/codeServer.mjs, the smokes' driver of code-server and Chromium (an ES module, so loaded at run time), typed as the caller uses it. */
export async function loadCodeServerLib<T = CodeServerLib>(): Promise<T> {
  return (await import(pathToFileURL(path.join(repo, 'test', 'host', 'codeServer.mjs')).href)) as T;
}

/** What the probe hands back for one window of time. */
export interface Window {
  /** rAF timestamps (ms). */
  frames: number[];
  /** MutationObserver deliveries on #transcript before each frame. */
  renders: number[];
  /** How late each tick of a 4 ms timer chain fired (ms): the time the main thread was held. */
  lateness: number[];
  /** [start, ms] of each stall over 50 ms (when the timer was due, how late it fired). */
  stalls: [number, number][];
  /**
   * For each stall, how far the renderer's JavaScript heap (the workbench's and the panel's: one
   * heap) fell across it, MB: a collection ran in it when it fell. Scavenges too free several MB.
   */
  heapDrops?: number[];
  /** The renderer's JavaScript heap at the probe's last tick before the read (bytes). */
  heap?: number;
  longtasks: number;
  /** performance.now() of the first and the last transcript mutation (streaming). */
  firstRender?: number;
  lastRender?: number;
}

// The probe, as a string: it runs in the webview's frame (Playwright evaluates it there, past
// the CSP), and a bundled function could carry helper names it does not have there.
export const PROBE = `(() => {
  const p = { frames: [], renders: [], lateness: [], stalls: [], heapDrops: [], heap: 0, longtasks: 0, pending: 0, paused: false };
  window.__reinsProbe = p;
  new MutationObserver(() => {
    p.pending++;
    const t = performance.now();
    if (p.firstRender === undefined) p.firstRender = t;
    p.lastRender = t;
  }).observe(document.querySelector('#transcript'), { childList: true, subtree: true, characterData: true });
  p.frame = (t) => { if (p.paused) { p.looping = false; return; } p.frames.push(t); p.renders.push(p.pending); p.pending = 0; requestAnimationFrame(p.frame); };
  p.looping = true;
  requestAnimationFrame(p.frame);
  let due = performance.now() + 4;
  p.tick = () => { if (p.paused) { p.ticking = false; return; } const now = performance.now(); const late = Math.max(0, now - due); const heap = performance.memory ? performance.memory.usedJSHeapSize : 0; p.lateness.push(late); if (late > 50) { p.stalls.push([now - late, late]); p.heapDrops.push((p.heap - heap) / 1048576); } p.heap = heap; due = now + 4; setTimeout(p.tick, 4); };
  p.ticking = true;
  setTimeout(p.tick, 4);
  p.resume = () => {
    p.paused = false;
    if (!p.looping) { p.looping = true; requestAnimationFrame(p.frame); }
    if (!p.ticking) { p.ticking = true; due = performance.now() + 4; setTimeout(p.tick, 4); }
  };
  try {
    new PerformanceObserver((list) => { p.longtasks += list.getEntries().length; }).observe({ type: 'longtask' });
  } catch {}
})()`;
/**
 * The probe's frame loop and timer stopped, and started again: a loop of animation frames keeps
 * the page drawing a frame at every vsync, so that a key waits for the next one (up to 16.7 ms),
 * where an idle page draws the key's frame when the key comes (a bare webview's textarea: keydown
 * to its frame p50 3 ms, against 9 ms in the probed panel). A frame without the probe (the
 * floor's) has nothing to pause.
 */
export const PAUSE = `(() => { if (window.__reinsProbe) window.__reinsProbe.paused = true; })()`;
export const RESUME = `(() => { if (window.__reinsProbe) window.__reinsProbe.resume(); })()`;
export const RESET = `(() => { const p = window.__reinsProbe; Object.assign(p, { frames: [], renders: [], lateness: [], stalls: [], heapDrops: [], longtasks: 0, pending: 0, firstRender: undefined, lastRender: undefined }); })()`;
export const READ = `(() => { const p = window.__reinsProbe; return { frames: p.frames, renders: p.renders, lateness: p.lateness, stalls: p.stalls, heapDrops: p.heapDrops, heap: p.heap, longtasks: p.longtasks, firstRender: p.firstRender, lastRender: p.lastRender }; })()`;

export const gaps = (frames: number[]): number[] => frames.slice(1).map((t, i) => t - (frames[i] ?? t));
export const fmt = (xs: number[]) =>
  xs.length ? `p50 ${median(xs).toFixed(1)} / p99 ${percentile(xs, 99).toFixed(1)} / max ${Math.max(...xs).toFixed(1)} ms` : 'n/a';

/**
 * REINS_BENCH_OWN_RENDERER=1 runs the panel in a renderer process of its own, as desktop VS Code
 * and vscode.dev run a webview (a frame of another site), instead of code-server's way (a frame of
 * the workbench's own origin, so in the workbench's renderer, on its main thread and heap).
 * Four things make it so, each found by trying (session 12, BENCHMARKS.md):
 *   - the webview endpoint moves to `http://{{uuid}}.localhost:<port>` (OWN_SITE_ENDPOINT): the
 *     webview's pre/index.html accepts a host other than the workbench's only as the hash of its
 *     origin, which the workbench puts in place of {{uuid}}; Chromium resolves *.localhost to
 *     loopback; `--site-per-process` puts each site in its own process;
 *   - code-server's CSP allows frames only from itself, *.vscode-cdn.net and data: (bypassCSP,
 *     which also lifts the panel's own CSP: nothing here depends on it);
 *   - the webview registers a service worker from what is now a third-party frame, which Chromium
 *     refuses ("The user denied permission to use Service Worker") unless the profile allows
 *     third-party cookies (neither --disable-features nor CDP's setCookieControls did).
 * Off by default: the bench measures code-server as users run it. REINS_BENCH_PROFILE's CPU
 * profile, taken on the page's target, is then the workbench's renderer's, not the panel's.
 */
export const OWN_RENDERER = !!process.env.REINS_BENCH_OWN_RENDERER;
const OWN_RENDERER_BROWSER = {
  args: ['--site-per-process'],
  bypassCSP: true,
  preferences: { profile: { cookie_controls_mode: 0, block_third_party_cookies: false, default_content_setting_values: { cookies: 1 } } },
};
// Runs before the workbench's own scripts: the parser delivers the observer's records (a
// microtask checkpoint) before it runs the script after the configuration's <meta>.
const OWN_SITE_ENDPOINT = `(() => {
  if (window !== window.top) return;
  new MutationObserver((_, observer) => {
    const meta = document.getElementById('vscode-workbench-web-configuration');
    if (!meta) return;
    observer.disconnect();
    const settings = JSON.parse(meta.getAttribute('data-settings'));
    const pre = new URL(settings.webviewEndpoint, location.href);
    settings.webviewEndpoint = 'http://{{uuid}}.localhost:' + pre.port + pre.pathname;
    meta.setAttribute('data-settings', JSON.stringify(settings));
  }).observe(document, { childList: true, subtree: true });
})()`;

/**
 * A command from the palette. With the panel in a renderer of its own, a key pressed after the
 * panel's frame had the keyboard reached neither it nor the workbench (F1 opened no palette for
 * 120 s, the workbench's focus on BODY): the workbench takes the keyboard first (a click on it).
 */
export async function command(lib: CodeServerLib, page: Page, title: string, timeoutMs = 60_000): Promise<number> {
  if (OWN_RENDERER) await lib.focusWorkbench(page);
  return lib.runCommand(page, title, timeoutMs);
}

/** code-server and Chromium with the Reins panel opened on `workspace` as a user would, the probe in its frame. */
export async function openProbedPanel(lib: CodeServerLib, workspace: string, extensionDevelopmentPath = repo, initScripts: string[] = []) {
  const server = await lib.startCodeServer({ folder: workspace, allBuiltins: true }); // as BENCHMARKS.md's table was measured
  // performance.memory as it is, not rounded: the probe reads the heap at each stall.
  const own = OWN_RENDERER ? OWN_RENDERER_BROWSER : { args: [] };
  const browser = await lib.launchBrowser({ ...own, pwaWorker: true, args: ['--enable-precise-memory-info', ...own.args] });
  const { page } = browser;
  if (OWN_RENDERER) await browser.context.addInitScript(OWN_SITE_ENDPOINT);
  for (const script of initScripts) await browser.context.addInitScript(script);
  // The first response only (codeServer.mjs says why); the status bar is waited for on its own.
  await lib.openWorkbench(page, lib.workbenchUrl(server, { folder: workspace, extensionDevelopmentPath }));
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 240_000 });
  await lib.runCommand(page, 'Reins: Open Agent Panel', 120_000);
  const frame = await lib.findWebviewFrame(page, '#prompt-input', 120_000);
  await frame.evaluate(PROBE);
  return { server, browser, page, frame };
}

export interface Collected {
  beforeMb: number;
  afterMb: number;
  /** Set when the collection was skipped (REINS_BENCH_NO_COLLECT, or the panel in a renderer of its own). */
  skipped?: true;
}
/**
 * Collects the renderer's JavaScript heap and says how far it fell, MB. The heap is one for the
 * workbench and the panel (code-server puts the webview in the workbench's renderer). The
 * workbench's start leaves 35–60 MB of garbage in it, which V8's memory reducer collects on its
 * own timer, in one pause of 60–90 ms once allocation slows: in most runs of sessions 10–11 that
 * was the stream's end, so the longest-task row measured the workbench's start, not the stream.
 * With each window started from a collected heap, no run of session 12 had a stall over 50 ms
 * (12 of 12 in four group runs; the heap grew 1.3–2.6 MB over the whole stream). Tried before it,
 * a collection before the flood alone freed 35–59 MB there (heap 118–141 -> 82–83 MB).
 */
export async function collectHeap(browser: TracedBrowser, frame: Frame): Promise<Collected> {
  const heapMb = () => frame.evaluate<number>('performance.memory.usedJSHeapSize / 1048576');
  const beforeMb = await heapMb();
  // REINS_BENCH_NO_COLLECT=1 measures as sessions 10–11 did, to see the collection come back. In
  // a renderer of its own the panel's heap is its own: the page's collection would be the workbench's.
  if (process.env.REINS_BENCH_NO_COLLECT || OWN_RENDERER) return { beforeMb, afterMb: beforeMb, skipped: true };
  const cdp = await browser.context.newCDPSession(browser.page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
  } finally {
    await cdp.detach();
  }
  return { beforeMb, afterMb: await heapMb() };
}
