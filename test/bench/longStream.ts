// Streaming and typing in group `long` (longReplay.ts): a turn that streams 5,000 chunks a second
// at the end of the panel's transcript, with keys typed into the input box meanwhile; and the
// same keys typed into the idle panel, the floor under the typing row.
//
// A key is timed from its keydown's timeStamp to a task after the next animation frame (the frame
// that paints it), and split where its animation frame callbacks run: the wait for the frame (a vsync, up to 16.7 ms
// at 60 Hz, however idle the page) and what the frame itself took. The split says whether a slow
// key waited for a busy main thread or for the display.
import { percentile } from './harness';
import { lastAgentHas, waitFor } from './longOpen';
import { READ, RESET, type Frame, type Page, type Window } from './panelProbe';

export const STREAM_CHUNKS = 10_000;
export const STREAM_PER_SECOND = 5_000;

/** Installed once per document (a listener per stream measured each key once per stream before it). */
const TYPING = `(() => {
  if (window.__reinsTyping) { window.__reinsTyping.length = 0; window.__reinsToFrame.length = 0; return; }
  const p = window.__reinsTyping = [];
  const f = window.__reinsToFrame = [];
  document.querySelector('#prompt-input').addEventListener('keydown', (e) => {
    const t0 = e.timeStamp;
    requestAnimationFrame(() => { f.push(performance.now() - t0); setTimeout(() => p.push(performance.now() - t0), 0); });
  });
})()`;
const TYPED = `({ typing: window.__reinsTyping, toFrame: window.__reinsToFrame })`;
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
  await input.press('Enter');
  await page.waitForTimeout(300);
  await input.pressSequentially(DRAFT, { delay: 50 });
  // An earlier stream's answer ends with the same words: this one is a newer entry.
  const done = `(${LAST_AGENT_ID}) !== ${JSON.stringify(before)} && ${lastAgentHas('Stream done.')}`;
  await waitFor(page, frame, done, 120_000, 'the streamed answer', 200);
  const window = await frame.evaluate<Window>(READ);
  const typed = await frame.evaluate<Typed>(TYPED);
  const text = await frame.evaluate<string>(`[...document.querySelectorAll('#transcript .entry.agent')].pop().textContent`);
  const seen = [...text.matchAll(/\bc(\d+)\b/g)].map((m) => Number(m[1]));
  await frame.evaluate(CLEAR_INPUT);
  return { window, ...typed, seen: seen.length, inOrder: seen.length === STREAM_CHUNKS && seen.every((c, i) => c === i) };
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
