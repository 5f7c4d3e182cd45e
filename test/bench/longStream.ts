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
import { fmt, OWN_RENDERER, PAUSE, READ, RESET, RESUME, type Frame, type Page, type Window } from './panelProbe';

export const STREAM_CHUNKS = 10_000;
export const STREAM_PER_SECOND = 5_000;

/**
 * Installed once per document (a listener per stream measured each key once per stream before it).
 * Also counts what the panel is posted meanwhile (characters of JSON), and the older pages (`earlier`) among it.
 */
const TYPING = `(() => {
  if (window.__reinsTyping) { window.__reinsTyping.length = 0; window.__reinsToFrame.length = 0; window.__reinsSlow.length = 0; window.__reinsPages = 0; window.__reinsPosted = 0; return; }
  const p = window.__reinsTyping = [];
  const f = window.__reinsToFrame = [];
  // The browser's own account of each slow key (Event Timing: 16 ms or more from the key to the
  // paint after it): how long it waited for the main thread, how long the page's handlers took.
  const slow = window.__reinsSlow = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name !== 'keydown' && e.name !== 'keypress') continue;
      slow.push({ name: e.name, duration: e.duration, waited: e.processingStart - e.startTime, handlers: e.processingEnd - e.processingStart });
    }
  }).observe({ type: 'event', durationThreshold: 16 });
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
const TYPED = `({ typing: window.__reinsTyping, toFrame: window.__reinsToFrame, slow: window.__reinsSlow })`;

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
  /** Event Timing's entries for the keys of 16 ms or more (keydown and keypress, ms). */
  slow: SlowKey[];
}

interface SlowKey {
  name: string;
  /** The browser's key to the paint after its handlers (rounded to 8 ms). */
  duration: number;
  /** From the key to its handlers: the main thread busy with something else. */
  waited: number;
  /** The page's handlers of that event. */
  handlers: number;
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

/**
 * A turn that streams STREAM_CHUNKS at STREAM_PER_SECOND, with typing in the input box meanwhile.
 * `probed`: with the probe's frame loop (frame gaps); else paused (PAUSE says why).
 */
async function streamAndType(page: Page, frame: Frame, n: number, probed: boolean): Promise<Streamed> {
  if (!probed) await frame.evaluate(PAUSE);
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
  if (!probed) await frame.evaluate(RESUME);
  return { window, ...typed, seen: seen.length, inOrder: seen.length === STREAM_CHUNKS && seen.every((c, i) => c === i), socketKb, postedKb, pages };
}

/** `n` streams at the panel's end, one after the other; `probed`: with the probe's frame loop. */
export async function streams(page: Page, frame: Frame, n: number, first: number, probed = true): Promise<Streamed[]> {
  const out: Streamed[] = [];
  for (let i = 0; i < n; i++) out.push(await streamAndType(page, frame, first + i, probed));
  return out;
}

/** A stream into the least client: its keys' times, and with the probe its frames. */
export interface FloorStreamed extends Typed {
  frames: number[];
}

/**
 * The floor under typing and frame gaps while streaming: the same stream (the same agent and
 * scenario) into the floor's bare webview (`benchExtensions` with an agent: the least a client
 * does), the same keys typed the same way meanwhile, `n` times: each stream's times. `probed`: the
 * probe's frame loop runs (it must have been evaluated in `frame`), as in Reins's probed streams;
 * else paused, as in its typing streams. Throws if a stream lost a chunk.
 */
export async function floorStreams(page: Page, frame: Frame, n: number, probed: boolean): Promise<FloorStreamed[]> {
  const input = frame.locator('#prompt-input');
  if (!probed) await frame.evaluate(PAUSE);
  await input.click();
  const runs: FloorStreamed[] = [];
  const done = Number(await frame.evaluate<string>(`document.getElementById('stream').dataset.done || '0'`));
  for (let i = done + 1; i <= done + n; i++) {
    await frame.evaluate(TYPING);
    if (probed) await frame.evaluate(RESET);
    await input.press('Enter');
    await page.waitForTimeout(300);
    await input.pressSequentially(DRAFT, { delay: 50 });
    await waitFor(page, frame, `document.getElementById('stream').dataset.done === '${i}'`, 120_000, "the floor's stream", 200);
    const frames = probed ? (await frame.evaluate<Window>(READ)).frames : [];
    runs.push({ ...(await frame.evaluate<Typed>(TYPED)), frames });
    const seen = await frame.evaluate<number>(`(document.getElementById('stream').textContent.match(/\\bc\\d+\\b/g) || []).length`);
    if (seen < STREAM_CHUNKS) throw new Error(`the floor's stream showed ${seen} of ${STREAM_CHUNKS} chunks`);
    await frame.evaluate(CLEAR_INPUT);
  }
  if (!probed) await frame.evaluate(RESUME);
  return runs;
}

/** The same keys as a stream's, typed `n` times into the idle panel (nothing streaming): all their times. */
export async function typeIdle(frame: Frame, n: number): Promise<Typed> {
  const input = frame.locator('#prompt-input');
  await frame.evaluate(PAUSE);
  await input.click();
  const all: Typed = { typing: [], toFrame: [], slow: [] };
  for (let i = 0; i < n; i++) {
    await frame.evaluate(TYPING);
    await input.pressSequentially(DRAFT, { delay: 50 });
    const typed = await frame.evaluate<Typed>(TYPED);
    all.typing.push(...typed.typing);
    all.toFrame.push(...typed.toFrame);
    all.slow.push(...typed.slow);
    await frame.evaluate(CLEAR_INPUT);
  }
  await frame.evaluate(RESUME);
  return all;
}

/** A key's split, p50 / p99 of each part: `keydown → frame start` and `→ painted`. */
/** Each run's p99 of `of`. */
export const p99s = <T extends Typed>(xs: T[], of: (x: T) => number[]) => xs.map((x) => percentile(of(x), 99));

/** The run whose p99 of `of` is the median one: the rows judge it (one run is one sample of a shared machine). */
export function medianRun<T extends Typed>(xs: T[], of: (x: T) => number[]): T {
  const sorted = [...xs].sort((a, b) => percentile(of(a), 99) - percentile(of(b), 99));
  return sorted[Math.floor(sorted.length / 2)]!;
}

export const split = (t: Typed) =>
  `to the frame p50 ${percentile(t.toFrame, 50).toFixed(1)} / p99 ${percentile(t.toFrame, 99).toFixed(1)} ms, painted p50 ${percentile(t.typing, 50).toFixed(1)} / p99 ${percentile(t.typing, 99).toFixed(1)} ms; ${slowKeys(t.slow)}`;

/** The browser's account of the slow keys: how many, the most any waited and spent in handlers, and the three slowest. */
function slowKeys(slow: SlowKey[]): string {
  if (slow.length === 0) return 'no key event of 16 ms or more (Event Timing)';
  const worst = [...slow].sort((a, b) => b.duration - a.duration).slice(0, 3);
  const one = (k: SlowKey) => `${k.name} ${k.duration} ms: waited ${k.waited.toFixed(1)}, handlers ${k.handlers.toFixed(1)}`;
  return `key events of 16 ms or more (Event Timing): ${slow.length}, waited max ${Math.max(...slow.map((k) => k.waited)).toFixed(1)} ms, handlers max ${Math.max(...slow.map((k) => k.handlers)).toFixed(1)} ms; the slowest: ${worst.map(one).join('; ')}`;
}

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

/** The target: one frame at 60 Hz (its 16 ms, as a frame is counted). */
const TYPING_P99_MS = 16.7;

/**
 * The typing rows. Judged: the streams with the probe paused, as a user types (the probe's frame
 * loop makes every key wait for a vsync); the probed streams' keys are printed beside them.
 */
export function recordTyping(
  long: { typed: Streamed[]; probed: Streamed[] },
  short: { typed: Streamed[]; probed: Streamed[]; turns: number },
  idle: Typed,
  floor: Typed | undefined,
  floorStreamed: Typed[] | undefined,
): void {
  const p99 = (xs: number[]) => percentile(xs, 99);
  const typing = (x: Typed) => x.typing;
  const runs = (xs: Typed[]) =>
    p99s(xs, typing)
      .map((x) => x.toFixed(1))
      .join(' / ');
  const typed = medianRun(long.typed, typing);
  const base = medianRun(short.typed, typing);
  const floorTyped = floorStreamed?.length ? medianRun(floorStreamed, typing) : undefined;
  record({
    name: 'long: typing while streaming, input-to-paint',
    reins: `p99 median ${p99(typed.typing).toFixed(1)} ms (runs: ${runs(long.typed)}); the median run's ${typed.typing.length} keys: ${fmt(typed.typing)}`,
    baseline: `${short.turns} turns: p99 median ${p99(base.typing).toFixed(1)} ms (runs: ${runs(short.typed)})`,
    ratio: p99(typed.typing) / p99(base.typing),
    target: `median run's p99 ≤ ${TYPING_P99_MS} ms`,
    pass: p99(typed.typing) <= TYPING_P99_MS,
    note:
      `keydown → the frame after it, while ${STREAM_PER_SECOND}/s stream at the transcript's end, the probe's frame loop paused; ${long.typed.length} runs each; the median run's ${split(typed)}; ` +
      `with the probe's frame loop running, p99 runs ${runs(long.probed)} (${short.turns} turns: ${runs(short.probed)}); the panel ${OWN_RENDERER ? 'in a renderer of its own' : "in the workbench's renderer"}`,
  });
  record({
    name: 'long: typing while streaming, against the least client',
    reins: `at the end of the long transcript: p99 median ${p99(typed.typing).toFixed(1)} ms (${short.turns} turns: ${p99(base.typing).toFixed(1)})`,
    baseline: floorTyped
      ? `the same stream into the floor's webview: p99 median ${p99(floorTyped.typing).toFixed(1)} ms (runs: ${runs(floorStreamed!)}); the median run's ${split(floorTyped)}`
      : 'not measured',
    ratio: floorTyped ? p99(typed.typing) / p99(floorTyped.typing) : undefined,
    target: 'info',
    pass: undefined,
    note: "the least a client does: the same agent and scenario, the chunks' text posted once a frame and appended to plain text in a bare webview (the floor extension, longOpen.ts); the same keys typed the same way in the same host",
  });
  record({
    name: 'long: typing into the idle panel (the floor)',
    reins: `${short.turns} turns, nothing streaming: ${idle.typing.length} keys, p99 ${p99(idle.typing).toFixed(1)} ms; ${split(idle)}`,
    baseline: floor ? `a bare webview's textarea: p99 ${p99(floor.typing).toFixed(1)} ms; ${split(floor)}` : '-',
    ratio: floor ? p99(idle.typing) / p99(floor.typing) : undefined,
    target: 'info',
    pass: undefined,
    note: "the same keys and measure as the typing row, the probe paused; the bare webview: the floor extension's, in the same host",
  });
}
