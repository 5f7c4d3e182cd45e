// In-process benchmarks: the framing reader and writer, and the transcript's streamed appends.
// Each runs Reins's real class and a plain baseline over the same input in the same process.
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import type { Message } from 'vscode-jsonrpc/node';
import { NdjsonMessageReader, NdjsonMessageWriter, type ReaderHooks } from '../../src/acp/framing';
import { ProtocolTracer } from '../../src/acp/trace';
import { Transcript } from '../../src/session/transcript';
import { silentLogger } from '../../src/util/logger';
import { chunkLines, chunkNotification, chunkTexts, clientMessages, cut } from './data';
import { bestOf, fmtMBps, fmtMs, fmtRate, gc, hasGc, MB, median, record } from './harness';

const READ_SIZE = 64 * 1024;

/** The hooks AcpConnection gives the reader: the protocol tracer, with `reins.trace` off (the default). */
function connectionReaderHooks(): ReaderHooks {
  const tracer = new ProtocolTracer(silentLogger, () => 'off');
  return {
    onMalformedLine: (first, error) => silentLogger.warn(`skipped ${error}: ${first}`),
    onMessage: (m, bytes) => tracer.incoming(m, bytes),
  };
}

/** Feeds `chunks` to a fresh NdjsonMessageReader as a child's stdout would ('data' events); returns the messages read. */
function readWithReins(chunks: Buffer[], hooks: ReaderHooks | undefined): number {
  const input = new EventEmitter();
  const reader = new NdjsonMessageReader(input as unknown as Readable, hooks);
  let count = 0;
  const listening = reader.listen(() => count++);
  for (const chunk of chunks) input.emit('data', chunk);
  listening.dispose();
  return count;
}

/** The baseline: what any line reader must do at least — decode, split on '\n', JSON.parse. */
function readPlain(chunks: Buffer[]): number {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let count = 0;
  for (const chunk of chunks) {
    const text = decoder.write(chunk);
    // A read inside a long line: keep it, do not re-split what is buffered.
    if (!text.includes('\n')) {
      carry += text;
      continue;
    }
    const parts = (carry + text).split('\n');
    carry = parts.pop()!;
    for (const line of parts) {
      if (line && JSON.parse(line)) count++;
    }
  }
  return count;
}

// Targets. The baselines do the unavoidable work only (decode, split, JSON.parse / stringify);
// Reins's reader adds per-line checks (\r, blank, size limit, is-an-object) and the trace hook,
// so its honest cost is a little above 1×. 3× leaves room for a loaded 2-core machine (the
// two are measured alternately, fastest of 5, so load mostly cancels out) while still
// catching a framing that went quadratic or re-measures its buffer per chunk (those show up
// as 10× and more).
const FRAMING_MAX_RATIO = 3;

export async function benchFraming(n: number): Promise<void> {
  console.log(`\n1. Framing: ${n / 1000}k agent_message_chunk lines through NdjsonMessageReader, in 64 KiB reads`);
  const bytes = chunkLines(chunkTexts(n));
  const { chunks, splitUtf8 } = cut(bytes, READ_SIZE);
  const mb = bytes.length / MB;
  const check = (got: number) => {
    if (got !== n) throw new Error(`read ${got} messages, want ${n}`);
  };
  const hooks = connectionReaderHooks();
  const t = await bestOf(5, () => check(readPlain(chunks)), () => check(readWithReins(chunks, hooks)));
  record({
    name: 'framing: reader (as wired)',
    reins: `${fmtMBps(bytes.length, t.reins)} · ${fmtRate(n, t.reins, 'msg')}`,
    baseline: `${fmtMBps(bytes.length, t.baseline)} · ${fmtRate(n, t.baseline, 'msg')}`,
    ratio: t.reins / t.baseline,
    target: `ratio ≤ ${FRAMING_MAX_RATIO}`,
    pass: t.reins / t.baseline <= FRAMING_MAX_RATIO,
    note: `${mb.toFixed(1)} MB in ${chunks.length} reads, ${splitUtf8} of them cut inside a UTF-8 character; reader with the connection's trace hook (trace off)`,
  });

  // The same without hooks: what the reader itself costs, apart from the tracer.
  const bare = await bestOf(3, () => check(readPlain(chunks)), () => check(readWithReins(chunks, undefined)));
  record({
    name: 'framing: reader (no hooks)',
    reins: `${fmtMBps(bytes.length, bare.reins)} · ${fmtRate(n, bare.reins, 'msg')}`,
    baseline: `${fmtMBps(bytes.length, bare.baseline)} · ${fmtRate(n, bare.baseline, 'msg')}`,
    ratio: bare.reins / bare.baseline,
    target: `ratio ≤ ${FRAMING_MAX_RATIO}`,
    pass: bare.reins / bare.baseline <= FRAMING_MAX_RATIO,
  });
}

/**
 * One very large line (a file's content in a tool call or fs/write_text_file) arriving in
 * 64 KiB reads: the reader must not re-scan or re-measure what it has buffered on every read.
 */
export async function benchLargeLine(megabytes: number): Promise<void> {
  console.log(`\n1b. Framing: one ${megabytes} MiB line in 64 KiB reads`);
  const text = chunkTexts(megabytes * 80_000, 3).join('').slice(0, megabytes * 1024 * 1024 * 0.9);
  const line = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'fs/write_text_file', params: { sessionId: 'sess-1', path: '/w/big.txt', content: text } });
  const bytes = Buffer.from(line + '\n', 'utf8');
  const { chunks } = cut(bytes, READ_SIZE);
  const hooks = connectionReaderHooks();
  const check = (got: number) => {
    if (got !== 1) throw new Error(`read ${got} messages, want 1`);
  };
  const t = await bestOf(5, () => check(readPlain(chunks)), () => check(readWithReins(chunks, hooks)));
  record({
    name: `framing: one ${megabytes} MiB line`,
    reins: `${fmtMBps(bytes.length, t.reins)}`,
    baseline: `${fmtMBps(bytes.length, t.baseline)}`,
    ratio: t.reins / t.baseline,
    target: `ratio ≤ ${FRAMING_MAX_RATIO}`,
    pass: t.reins / t.baseline <= FRAMING_MAX_RATIO,
    note: `${(bytes.length / MB).toFixed(1)} MB in ${chunks.length} reads`,
  });
}

class NullWritable extends Writable {
  bytes = 0;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.bytes += chunk.length;
    callback();
  }
}

// The writer chains every write on a promise (ordering under back-pressure) and resolves each
// from the stream's callback: a couple of promise hops per message on top of JSON.stringify.
// Client messages are few (prompts, permission and fs answers), so 3× of the bare stringify +
// write is ample; a writer that serialised twice or waited a timer per message would be far
// above it.
const WRITER_MAX_RATIO = 3;

export async function benchWriter(n: number): Promise<void> {
  console.log(`\n2. Writer: ${n / 1000}k client messages through NdjsonMessageWriter into a null Writable`);
  const messages = clientMessages(n) as Message[];
  const tracer = new ProtocolTracer(silentLogger, () => 'off');
  let bytes = 0;
  const reins = async () => {
    const out = new NullWritable();
    const writer = new NdjsonMessageWriter(out, { onMessage: (m, b) => tracer.outgoing(m, b) });
    let last: Promise<void> = Promise.resolve();
    for (const m of messages) last = writer.write(m);
    await last;
    bytes = out.bytes;
  };
  const plain = async () => {
    const out = new NullWritable();
    for (const m of messages) out.write(JSON.stringify(m) + '\n');
    await new Promise<void>((resolve) => out.write('', () => resolve()));
  };
  const t = await bestOf(5, plain, reins);
  record({
    name: 'writer',
    reins: `${fmtMBps(bytes, t.reins)} · ${fmtRate(n, t.reins, 'msg')}`,
    baseline: `${fmtMBps(bytes, t.baseline)} · ${fmtRate(n, t.baseline, 'msg')}`,
    ratio: t.reins / t.baseline,
    target: `ratio ≤ ${WRITER_MAX_RATIO}`,
    pass: t.reins / t.baseline <= WRITER_MAX_RATIO,
    note: `${(bytes / MB).toFixed(1)} MB; writer with the connection's trace hook (trace off)`,
  });
}

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
  const t = await bestOf(5, plain, reins);
  if (length !== plainLength) throw new Error(`transcript text has ${length} characters, want ${plainLength}`);
  record({
    name: 'transcript: apply',
    reins: `${fmtRate(n, t.reins, 'chunk')} (${((t.reins * 1e6) / n).toFixed(0)} ns/chunk)`,
    baseline: `${fmtRate(n, t.baseline, 'chunk')} (${((t.baseline * 1e6) / n).toFixed(0)} ns/chunk)`,
    ratio: t.reins / t.baseline,
    target: `ratio ≤ ${TRANSCRIPT_MAX_RATIO}`,
    pass: t.reins / t.baseline <= TRANSCRIPT_MAX_RATIO,
    note: `${fmtMs(t.reins)} vs ${fmtMs(t.baseline)} for ${n / 1000}k chunks, ${(length / 1e6).toFixed(1)} M characters in one agent entry`,
  });

  // Heap retained per 10k chunks. Each update is parsed from its line here, as the reader
  // makes it, so that its text is a fresh string the transcript (or the baseline) must keep.
  if (!hasGc()) {
    record({ name: 'transcript: heap / 10k chunks', reins: 'n/a', baseline: 'n/a', ratio: undefined, target: `ratio ≤ ${TRANSCRIPT_MAX_HEAP_RATIO}`, pass: undefined, note: 'node without --expose-gc: heap growth not measured' });
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
  // each is warmed up once, then the median of three, alternating.
  const heapOf = (fills: (() => unknown)[]): number[] => {
    for (const fill of fills) grow(fill);
    const runs = fills.map(() => [] as number[]);
    for (let i = 0; i < 3; i++) fills.forEach((fill, k) => runs[k].push(grow(fill)));
    return runs.map(median);
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
  const [heapPlain, heapReins] = heapOf([plainFill, reinsFill]);
  const kb = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
  record({
    name: 'transcript: heap / 10k chunks',
    reins: kb(heapReins),
    baseline: kb(heapPlain),
    ratio: heapReins / heapPlain,
    target: `ratio ≤ ${TRANSCRIPT_MAX_HEAP_RATIO}`,
    pass: heapReins / heapPlain <= TRANSCRIPT_MAX_HEAP_RATIO,
    note: `over ${heapChunks / 1000}k chunks; the text itself is ${kb((textBytes / heapChunks) * 10_000)} (UTF-16 ${kb(((textBytes * 2) / heapChunks) * 10_000)}) per 10k chunks`,
  });
}
