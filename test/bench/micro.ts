// In-process benchmark: the transcript's streamed appends, Reins's real class against a plain
// baseline over the same input in the same process.
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { Transcript } from '../../src/runtime/transcript';
import { chunkNotification, chunkTexts } from './data';
import { alternate, fmtMs, fmtRate, fmtSpread, gc, hasGc, median, record } from './harness';
import { nth } from '../support/helpers';

// Appending to the streamed entry is a type switch, a map lookup, a string append and one
// event (the panel host listens). The baseline is a bare `s += text`, a few nanoseconds, so
// the time ratio is large by nature; the target only guards against a per-chunk cost that
// grows (copying the entry, re-rendering, scanning the list), which would show as 1000× and
// more at 200k chunks. 50× of ~12 ns is ~0.6 µs a chunk, still a fraction of what parsing the
// chunk's line costs (benchmark 1: ~2.5 µs), so below that the transcript cannot become the
// bottleneck. What must stay near 1× is memory: the transcript must keep the text and little
// else.
const TRANSCRIPT_MAX_RATIO = 50;
/** Retained heap per chunk: the same rope of strings as the baseline, plus small constants. */
const TRANSCRIPT_MAX_HEAP_RATIO = 1.5;

export async function benchTranscript(n: number, heapChunks: number): Promise<void> {
  console.log(`\n3. Transcript: ${n / 1000}k agent_message_chunk updates through Transcript.apply`);
  const texts = chunkTexts(n, 5);
  const notes = texts.map((t) => chunkNotification(t).params as SessionNotification);
  let length = 0;
  const reins = () => {
    const transcript = new Transcript();
    let ops = 0;
    const sub = transcript.onOp(() => ops++); // one subscriber, as the panel host is
    transcript.user('go');
    for (const note of notes) transcript.apply(note);
    sub.dispose();
    const entry = transcript.get('a2');
    length = entry?.kind === 'agent' ? entry.markdown.length : -1;
    if (ops !== n + 1) throw new Error(`transcript emitted ${ops} ops, want ${n + 1}`);
  };
  let plainLength = 0;
  const plain = () => {
    let s = '';
    for (const note of notes) {
      const c = note.update.sessionUpdate === 'agent_message_chunk' ? note.update.content : undefined;
      if (c?.type === 'text') s += c.text;
    }
    plainLength = s.length;
  };
  const t = await alternate(9, { plain, reins });
  if (length !== plainLength) throw new Error(`transcript text has ${length} characters, want ${plainLength}`);
  const r = median(t.reins);
  const b = median(t.plain);
  record({
    name: 'transcript: apply',
    reins: `${fmtSpread(t.reins)} (${fmtRate(n, r, 'chunk')})`,
    baseline: `${fmtSpread(t.plain)} (${fmtRate(n, b, 'chunk')})`,
    ratio: r / b,
    target: `ratio ≤ ${TRANSCRIPT_MAX_RATIO}`,
    pass: r / b <= TRANSCRIPT_MAX_RATIO,
    note: `medians ${fmtMs(r)} vs ${fmtMs(b)} for ${n / 1000}k chunks (${((r * 1e6) / n).toFixed(0)} vs ${((b * 1e6) / n).toFixed(0)} ns/chunk), ${(length / 1e6).toFixed(1)} M characters in one agent entry`,
  });

  // Heap retained per 10k chunks. Each update is parsed from its line here, as the reader
  // makes it, so that its text is a fresh string the transcript (or the baseline) must keep.
  if (!hasGc()) {
    record({
      name: 'transcript: heap / 10k chunks',
      reins: 'n/a',
      baseline: 'n/a',
      ratio: undefined,
      target: `ratio ≤ ${TRANSCRIPT_MAX_HEAP_RATIO}`,
      pass: undefined,
      note: 'node without --expose-gc: heap growth not measured',
    });
    return;
  }
  const lines = texts.slice(0, heapChunks).map((t) => JSON.stringify(chunkNotification(t).params));
  const textBytes = texts.slice(0, heapChunks).reduce((sum, t) => sum + t.length, 0);
  const grow = (fill: () => unknown): number => {
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = fill();
    gc();
    gc();
    const after = process.memoryUsage().heapUsed;
    if (!kept) throw new Error('nothing kept');
    return ((after - before) / heapChunks) * 10_000;
  };
  // The first measurement in a process reads low (memory V8 releases during the fill), so
  // each is warmed up once, then five each, alternating.
  const heapOf = (fills: (() => unknown)[]): number[][] => {
    for (const fill of fills) grow(fill);
    const runs = fills.map(() => [] as number[]);
    for (let i = 0; i < 5; i++) fills.forEach((fill, k) => nth(runs, k, 'the runs').push(grow(fill)));
    return runs;
  };
  const plainFill = () => {
    let s = '';
    for (const line of lines) {
      const note = JSON.parse(line) as SessionNotification;
      if (note.update.sessionUpdate === 'agent_message_chunk' && note.update.content.type === 'text') s += note.update.content.text;
    }
    return [s];
  };
  const reinsFill = () => {
    const transcript = new Transcript();
    transcript.onOp(() => {});
    for (const line of lines) transcript.apply(JSON.parse(line) as SessionNotification);
    return transcript;
  };
  const [plainRuns = [], reinsRuns = []] = heapOf([plainFill, reinsFill]);
  const heapPlain = median(plainRuns);
  const heapReins = median(reinsRuns);
  const kb = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
  const kib = (xs: number[]) => xs.map((x) => x / 1024);
  record({
    name: 'transcript: heap / 10k chunks',
    reins: fmtSpread(kib(reinsRuns), 'KiB'),
    baseline: fmtSpread(kib(plainRuns), 'KiB'),
    ratio: heapReins / heapPlain,
    target: `ratio ≤ ${TRANSCRIPT_MAX_HEAP_RATIO}`,
    pass: heapReins / heapPlain <= TRANSCRIPT_MAX_HEAP_RATIO,
    note: `over ${heapChunks / 1000}k chunks; the text itself is ${kb((textBytes / heapChunks) * 10_000)} (UTF-16 ${kb(((textBytes * 2) / heapChunks) * 10_000)}) per 10k chunks`,
  });
}
