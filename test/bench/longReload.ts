// The `long` group's window reload (longReplay.ts runs it): a draft and a place up in the
// transcript, the window reloaded, and when the newest answer, the draft and the place are back,
// watched in the page from the new webview document's first frame.
import { lastAgentHas, POLL_MS } from './longOpen';
import type { Browser as ProbedBrowser, CodeServerLib, Frame, Page } from './panelProbe';

export type ReloadLib = CodeServerLib & { reloadWorkbench(page: Page): Promise<unknown> };

export interface Reloaded {
  back: number;
  /** When each of the three was first seen back (ms from the new document's start; NaN: never). */
  transcriptAt: number;
  draftAt: number;
  placeAt: number;
  /** When the harness first read the page (ms from the document's start). */
  firstLook: number;
  draft: boolean;
  scrollOff: number;
}

/** A draft and a place up in the transcript, then a window reload: when are all three back? */
export async function reload(lib: ReloadLib, browser: ProbedBrowser, page: Page, frame: Frame, marker: string): Promise<Reloaded> {
  const draft = `draft kept over a reload ${marker.length}`;
  const input = frame.locator('#prompt-input');
  await input.click();
  await input.pressSequentially(draft, { delay: 5 });
  const fromEnd = await frame.evaluate<number>(
    `(() => { const s = document.querySelector('main.scroller'); s.scrollTop = Math.max(0, s.scrollHeight - s.clientHeight - 1500); return s.scrollHeight - s.clientHeight - s.scrollTop; })()`,
  );
  // The webview saves its state within 200 ms, but the browser workbench writes webview states to
  // its storage every 5 s: after 1.5 s the reload found the state of before (draft false, scroll
  // off by -1500 px: at the end), whatever the panel did.
  await page.waitForTimeout(6_000);
  // The three watched from the new document's first frame, in the page: the harness finds the
  // frame only later (a panel in a renderer of its own: 1218 ms after its document started, when
  // its snapshot had come at 714 and all three were back at the first look).
  await browser.context.addInitScript(reloadWatch(marker, draft, fromEnd));
  await lib.reloadWorkbench(page);
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 240_000 });
  const next = await lib.findWebviewFrame(page, '#prompt-input', 240_000, POLL_MS);
  const state = `(() => { const s = document.querySelector('main.scroller'); const off = s.scrollHeight - s.clientHeight - s.scrollTop; return { t: performance.now(), transcript: ${lastAgentHas(marker)}, draft: document.querySelector('#prompt-input').value === ${JSON.stringify(draft)}, off: off - ${fromEnd} }; })()`;
  const at = { transcript: NaN, draft: NaN, place: NaN };
  let back = NaN;
  let last = { t: NaN, transcript: false, draft: false, off: NaN };
  const deadline = Date.now() + 180_000;
  let firstLook = NaN;
  while (Date.now() < deadline) {
    last = await next.evaluate<typeof last>(state);
    if (Number.isNaN(firstLook)) firstLook = last.t;
    if (last.transcript && Number.isNaN(at.transcript)) at.transcript = last.t;
    if (last.draft && Number.isNaN(at.draft)) at.draft = last.t;
    const placed = last.transcript && Math.abs(last.off) < 200;
    if (placed && Number.isNaN(at.place)) at.place = last.t;
    if (!placed) at.place = NaN; // not there yet: the end of a replay may move it
    if (last.transcript && last.draft && placed) {
      back = last.t;
      break;
    }
    await page.waitForTimeout(20);
  }
  const snapshots = await next.evaluate<string>(
    `performance.getEntriesByName('reins:snapshot').map((m) => m.startTime.toFixed(0) + ' ' + JSON.stringify(m.detail)).join('; ')`,
  );
  console.log(`    reload: snapshots ${snapshots}; at the end ${JSON.stringify(last)}; the harness's first look at ${firstLook.toFixed(0)} ms`);
  const watched = await next.evaluate<WatchedReload | undefined>('window.reinsReloadWatch');
  if (!watched) throw new Error('the reload watch did not run in the panel (its init script)');
  console.log(`    reload: watched in the page: ${JSON.stringify(watched)}`);
  await next.evaluate(`(() => { const i = document.querySelector('#prompt-input'); i.value = ''; i.dispatchEvent(new Event('input')); })()`);
  // What the page saw first, where the harness looked late; the harness's look when it saw first.
  const first = (page: number, look: number) => (Number.isFinite(page) ? Math.min(page, look) : look);
  return {
    back: Number.isFinite(back) ? first(watched.back, back) : back,
    transcriptAt: first(watched.transcript, at.transcript),
    draftAt: first(watched.draft, at.draft),
    placeAt: Number.isFinite(back) ? first(watched.place, at.place) : at.place,
    firstLook,
    draft: last.draft,
    scrollOff: last.off,
  };
}

/** What reloadWatch records, in ms from the document's start (NaN: not yet). */
interface WatchedReload {
  transcript: number;
  draft: number;
  place: number;
  back: number;
}

/**
 * An init script (every frame of the browser, from its document's start). VS Code writes a
 * webview's page into an inner frame with document.open(), which ends what ran there before, so the
 * watch runs in the frame around it (same origin) and reads the inner document each frame until
 * all three are back: the newest answer (its last agent entry holds `marker`), the draft, and the
 * place (`fromEnd` px from the end, within 200). The first time of each, in ms from the inner
 * document's start (the harness's clock), in `window.reinsReloadWatch` of both frames. Frames
 * without a prompt box stop after 30 s.
 */
function reloadWatch(marker: string, draft: string, fromEnd: number): string {
  return `(() => {
  if (window === window.top) return;
  const seen = { transcript: NaN, draft: NaN, place: NaN, back: NaN };
  const panel = () => {
    for (const d of [document, ...[...document.querySelectorAll('iframe')].map((f) => { try { return f.contentDocument; } catch { return null; } })]) {
      if (d && d.querySelector('#prompt-input')) return d;
    }
    return undefined;
  };
  const tick = () => {
    const doc = panel();
    if (!doc) { if (performance.now() < 30000) requestAnimationFrame(tick); return; }
    const inner = doc.defaultView;
    const t = performance.timeOrigin + performance.now() - inner.performance.timeOrigin;
    window.reinsReloadWatch = seen;
    inner.reinsReloadWatch = seen;
    const s = doc.querySelector('main.scroller');
    const last = [...doc.querySelectorAll('#transcript .entry.agent')].pop();
    const answer = !!last && last.textContent.includes(${JSON.stringify(marker)});
    if (answer && Number.isNaN(seen.transcript)) seen.transcript = t;
    if (doc.querySelector('#prompt-input').value === ${JSON.stringify(draft)} && Number.isNaN(seen.draft)) seen.draft = t;
    const placed = answer && !!s && Math.abs(s.scrollHeight - s.clientHeight - s.scrollTop - ${fromEnd}) < 200;
    if (placed && Number.isNaN(seen.place)) seen.place = t;
    if (!placed) seen.place = NaN;
    if (!Number.isNaN(seen.transcript) && !Number.isNaN(seen.draft) && placed) { seen.back = t; return; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})()`;
}
