// Streaming and typing in group `long` (longReplay.ts): a turn that streams 5,000 chunks a second
// at the end of the panel's transcript, with keys typed into the input box meanwhile; and the
// same keys typed into the idle panel, the floor under the typing row.
//
// A key is timed from its keydown's timeStamp to a task after the next animation frame (the frame
// that paints it), and split where its animation frame callbacks run: the wait for the frame (a vsync, up to 16.7 ms
// at 60 Hz, however idle the page) and what the frame itself took. The split says whether a slow
// key waited for a busy main thread or for the display.
import { median, percentile, record } from './harness';
import { lastAgentHas, waitFor } from './longOpen';
import { READ, RESET, type Frame, type Page, type Window } from './panelProbe';

export const STREAM_CHUNKS = 10_000;
export const STREAM_PER_SECOND = 5_000;

/**
 * Installed once per document (a listener per stream measured each key once per stream before it).
 * Also counts what the panel is posted meanwhile (characters of JSON), and the older pages (`earlier`) among it.
 */
const TYPING = `(() => {
  if (window.__reinsTyping) { window.__reinsTyping.length = 0; window.__reinsToFrame.length = 0; window.__reinsPages = 0; window.__reinsPosted = 0; return; }
  const p = window.__reinsTyping = [];
  const f = window.__reinsToFrame = [];
  window.__reinsPages = 0;
  window.__reinsPosted = 0;
  window.addEventListener('message', (e) => {
    const d = e.data;
    window.__reinsPosted += JSON.stringify(d).length;
    if (d?.type === 'earlier' || (d?.type === 'batch' && d.messages.some((m) => m.type === 'earlier'))) window.__reinsPages++;
  });
  document.querySelector('#prompt-input').addEventListener('keydown', (e) => {
    const t0 = e.timeStamp;
    requestAnimationFrame(() => { f.push(performance.now() - t0); setTimeout(() => p.push(performance.now() - t0), 0); });
  });
})()`;
const TYPED = `({ typing: window.__reinsTyping, toFrame: window.__reinsToFrame })`;

/**
 * For the workbench's page, before its scripts: the bytes its WebSockets receive (the remote
 * extension host's RPC among them: what Reins posts to the panel, and what it writes to
 * workspaceState, which VS Code sends whole into the renderer on every update).
 */
export const SOCKET_BYTES = `(() => {
  if (window !== window.top) return;
  const Socket = window.WebSocket;
  window.__reinsSocketBytes = 0;
  window.WebSocket = class extends Socket {
    constructor(url, protocols) {
      super(url, protocols);
      this.addEventListener('message', (e) => { const d = e.data; window.__reinsSocketBytes += d.size ?? d.byteLength ?? d.length ?? 0; });
    }
  };
})()`;
const SOCKET_READ = 'window.__reinsSocketBytes';
const CLEAR_INPUT = `(() => { const i = document.querySelector('#prompt-input'); i.value = ''; i.dispatchEvent(new Event('input')); })()`;
const DRAFT = 'a draft typed while the answer streams in';

export interface Typed {
  /** keydown → a task after the frame that painted it (ms). */
  typing: number[];
  /** keydown → that frame's animation frame callbacks. */
  toFrame: number[];
}

export interface Streamed extends Typed {
  window: Window;
  seen: number;
  inOrder: boolean;
  /** KB the workbench's sockets received from Enter to the draft's last key. */
  socketKb: number;
  /** KB (of JSON) the panel was posted in that time. */
  postedKb: number;
  /** Older pages the panel was sent in that time. */
  pages: number;
}

/** The id of the newest agent entry: a stream's answer is a new one. */
const LAST_AGENT_ID = `([...document.querySelectorAll('#transcript .entry.agent')].pop() || { dataset: {} }).dataset.id || ''`;

/** A turn that streams STREAM_CHUNKS at STREAM_PER_SECOND, with typing in the input box meanwhile. */
async function streamAndType(page: Page, frame: Frame, n: number): Promise<Streamed> {
  await frame.evaluate(TYPING);
  const input = frame.locator('#prompt-input');
  await input.click();
  await input.pressSequentially(`stream ${n}`, { delay: 10 });
  await frame.evaluate(RESET);
  await frame.evaluate(TYPING);
  const before = await frame.evaluate<string>(LAST_AGENT_ID);
  const bytesBefore = await page.mainFrame().evaluate<number>(SOCKET_READ);
  await input.press('Enter');
  await page.waitForTimeout(300);
  await input.pressSequentially(DRAFT, { delay: 50 });
  const socketKb = ((await page.mainFrame().evaluate<number>(SOCKET_READ)) - bytesBefore) / 1024;
  const pages = await frame.evaluate<number>('window.__reinsPages');
  const postedKb = (await frame.evaluate<number>('window.__reinsPosted')) / 1024;
  // An earlier stream's answer ends with the same words: this one is a newer entry.
  const done = `(${LAST_AGENT_ID}) !== ${JSON.stringify(before)} && ${lastAgentHas('Stream done.')}`;
  await waitFor(page, frame, done, 120_000, 'the streamed answer', 200);
  const window = await frame.evaluate<Window>(READ);
  const typed = await frame.evaluate<Typed>(TYPED);
  const text = await frame.evaluate<string>(`[...document.querySelectorAll('#transcript .entry.agent')].pop().textContent`);
  const seen = [...text.matchAll(/\bc(\d+)\b/g)].map((m) => Number(m[1]));
  await frame.evaluate(CLEAR_INPUT);
  return { window, ...typed, seen: seen.length, inOrder: seen.length === STREAM_CHUNKS && seen.every((c, i) => c === i), socketKb, postedKb, pages };
}

/** `n` streams at the panel's end, one after the other. */
export async function streams(page: Page, frame: Frame, n: number, first: number): Promise<Streamed[]> {
  const out: Streamed[] = [];
  for (let i = 0; i < n; i++) out.push(await streamAndType(page, frame, first + i));
  return out;
}

/** The same keys as a stream's, typed `n` times into the idle panel (nothing streaming): all their times. */
export async function typeIdle(frame: Frame, n: number): Promise<Typed> {
  const input = frame.locator('#prompt-input');
  await input.click();
  const all: Typed = { typing: [], toFrame: [] };
  for (let i = 0; i < n; i++) {
    await frame.evaluate(TYPING);
    await input.pressSequentially(DRAFT, { delay: 50 });
    const typed = await frame.evaluate<Typed>(TYPED);
    all.typing.push(...typed.typing);
    all.toFrame.push(...typed.toFrame);
    await frame.evaluate(CLEAR_INPUT);
  }
  return all;
}

/** A key's split, p50 / p99 of each part: `keydown → frame start` and `→ painted`. */
export const split = (t: Typed) =>
  `to the frame p50 ${percentile(t.toFrame, 50).toFixed(1)} / p99 ${percentile(t.toFrame, 99).toFixed(1)} ms, painted p50 ${percentile(t.typing, 50).toFixed(1)} / p99 ${percentile(t.typing, 99).toFixed(1)} ms`;

/** The workbench's sockets may carry this much more than what the panel is posted (the RPC's own framing). */
const TRAFFIC_RATIO = 1.5;

/**
 * What crosses from the extension host into the workbench while a turn streams and a draft is
 * typed at the end of the long transcript: about what the panel is posted, as much as at the end
 * of the short one, and no older page between two keys. Sabotage, each once at 100 turns: the
 * transcript kept in workspaceState again printed "median 1043 KB … posted to the panel: median
 * 60 KB; 10 turns: median 686 KB … ratio 17.35× … FAIL"; the older pages not waiting for the
 * typing to stop, "median 561 KB …; older pages posted meanwhile 9 / 16 / 10 … 10 turns: median
 * 66 KB … FAIL".
 */
export function recordTraffic(long: Streamed[], short: Streamed[], shortTurns: number): void {
  const kb = (xs: Streamed[], of: (x: Streamed) => number) =>
    `median ${median(xs.map(of)).toFixed(0)} KB (runs: ${xs.map((x) => of(x).toFixed(0)).join(' / ')})`;
  const socket = (x: Streamed) => x.socketKb;
  const ratio = median(long.map(socket)) / median(long.map((x) => x.postedKb));
  const asShort = median(long.map(socket)) / median(short.map(socket));
  const pages = long.map((x) => x.pages);
  record({
    name: 'long: extension host to workbench while streaming and typing',
    reins: `${kb(long, socket)}; older pages posted meanwhile ${pages.join(' / ')}`,
    baseline: `posted to the panel: ${kb(long, (x) => x.postedKb)}; ${shortTurns} turns: ${kb(short, socket)}`,
    ratio,
    target: `≤ ${TRAFFIC_RATIO}× what the panel is posted and × the ${shortTurns}-turn one's, no older page`,
    pass: ratio <= TRAFFIC_RATIO && asShort <= TRAFFIC_RATIO && pages.every((p) => p === 0),
    note: `bytes the workbench's sockets received from Enter to the draft's last key (${asShort.toFixed(2)}× the ${shortTurns}-turn transcript's): the panel's messages, and anything else the extension host sends the renderer (a workspaceState update is sent whole)`,
  });
}
