// Group `markdown` of `npm run bench`: the webview's side of a streaming answer, without the
// browser. The answer of the streaming bench (group 5: 5,000 chunks a second for 10 s, a
// paragraph every 100 chunks) arrives in the host's batches (BATCH_MS); each batch is appended and
// stepped through as render/agent.ts does in one frame. Baseline, in the same run: rendering the
// whole final answer once (what a renderer that re-renders the answer pays for one frame at its
// end). A stream whose steps cost the same as one render of the whole is linear; a stream whose
// steps copy or re-render what came before costs that render once per batch, hundreds of times.
import { renderMarkdown } from '../../media/webview/markdown';
import { MarkdownStream } from '../../media/webview/markdownStream';
import { BATCH_MS } from '../../src/panel/outbox';
import { alternate, fmtMs, fmtSpread, median, record } from './harness';

/**
 * The streamed steps may cost this many renders of the whole answer. Measured on the quiet 2-core
 * machine: 2.2–3.2× with 33 ms batches (each frame renders the open paragraph again; 304 frames). With the source
 * kept as one string, which every step copied, and the whole text trimmed after every frame
 * (the code before session 9, put back once by hand): 230 ms against 20 ms, 11.3×, FAIL.
 */
const MAX_RATIO = 5;

export async function benchMarkdownStream(seconds: number, perSecond: number, rounds: number): Promise<void> {
  const count = seconds * perSecond;
  const perBatch = Math.round((perSecond * BATCH_MS) / 1000);
  console.log(`\n5a. Markdown: a ${seconds} s answer (${count / 1000}k chunks) stepped through in ${perBatch}-chunk batches, as the panel shows it`);
  const chunks = Array.from({ length: count }, (_, i) => `c${i} ${i % 100 === 99 ? '\n\n' : ''}`);
  const whole = chunks.join('');
  let frames = 0;
  const streamed = () => {
    const stream = new MarkdownStream();
    frames = 0;
    for (let at = 0; at < count; at += perBatch) {
      for (const chunk of chunks.slice(at, at + perBatch)) stream.append(chunk);
      while (stream.pending) stream.step();
      if (stream.blank) throw new Error('the answer shows as empty');
      frames++;
    }
    if (stream.text !== whole) throw new Error('the stream lost text');
  };
  let rendered = 0;
  const once = () => {
    rendered = renderMarkdown(whole).length;
  };
  const t = await alternate(rounds, { once, streamed });
  const r = median(t.streamed);
  const b = median(t.once);
  record({
    name: 'markdown: a streamed answer, all its steps',
    reins: `${fmtSpread(t.streamed)} (${frames} frames, ${((r / frames) * 1000).toFixed(0)} µs each)`,
    baseline: `the whole answer rendered once: ${fmtSpread(t.once)} (${(rendered / 1024).toFixed(0)} KiB of HTML)`,
    ratio: r / b,
    target: `ratio ≤ ${MAX_RATIO}`,
    pass: r / b <= MAX_RATIO,
    note: `medians ${fmtMs(r)} vs ${fmtMs(b)}: the cost of a frame must not grow with the answer (${(whole.length / 1024).toFixed(0)} KiB of text)`,
  });
}
