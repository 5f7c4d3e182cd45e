// Group 4: the framing. Reins's reader and writer (src/acp/framing.ts) against the ACP SDK's
// `ndJsonStream` and against the bare floor (what any line reader must do at least: split,
// decode, JSON.parse), on the same bytes, in the same run; and the peak memory one 16 MiB
// message costs each of them, each in a fresh node so that earlier heaps do not blur it.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import type { Message } from 'vscode-jsonrpc/node';
import { NdjsonMessageReader, NdjsonMessageWriter, type ReaderHooks } from '../../src/acp/framing';
import { ProtocolTracer } from '../../src/acp/trace';
import { silentLogger } from '../../src/util/logger';
import { clientMessages, cut, sourceFile, traffic } from './data';
import { alternate, fmtSpread, gc, MB, median, record } from './harness';
import { sleep } from '../support/helpers';

const READ_SIZE = 64 * 1024;

/** The hooks AcpConnection gives the reader: the protocol tracer, with `reins.trace` off (the default). */
function connectionReaderHooks(): ReaderHooks {
  const tracer = new ProtocolTracer(silentLogger, () => 'off');
  return {
    onMalformedLine: (first, error) => silentLogger.warn(`skipped ${error}: ${first}`),
    onMessage: (m, bytes) => tracer.incoming(m, bytes),
  };
}

/** Feeds `chunks` to a fresh NdjsonMessageReader as a child's stdout would ('data' events). */
function readWithReins(chunks: Buffer[], hooks: ReaderHooks | undefined): number {
  const input = new EventEmitter();
  const reader = new NdjsonMessageReader(input as unknown as Readable, hooks);
  let count = 0;
  const listening = reader.listen(() => count++);
  for (const chunk of chunks) input.emit('data', chunk);
  listening.dispose();
  return count;
}

/** The SDK's reader: a web ReadableStream of the same chunks through ndJsonStream, read to the end. */
async function readWithSdk(chunks: Buffer[]): Promise<number> {
  let i = 0;
  const input = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
  const { readable } = ndJsonStream(new WritableStream<Uint8Array>(), input);
  const reader = readable.getReader();
  let count = 0;
  for (;;) {
    const { done } = await reader.read();
    if (done) return count;
    count++;
  }
}

/** The floor: split the bytes on '\n' (keeping a partial line's bytes aside), decode each line once, JSON.parse. */
function readFloor(chunks: Buffer[]): number {
  let carry: Buffer[] = [];
  let count = 0;
  for (const chunk of chunks) {
    let start = 0;
    let nl = chunk.indexOf(10);
    while (nl !== -1) {
      const tail = chunk.subarray(start, nl);
      const line = carry.length ? Buffer.concat([...carry, tail]) : tail;
      carry = [];
      if (line.length && JSON.parse(line.toString('utf8'))) count++;
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) carry.push(chunk.subarray(start));
  }
  return count;
}

// Targets. The floor does the unavoidable work only; Reins's reader adds the per-line checks
// (\r, byte-order mark, blank, is-an-object) and the trace hook, so its honest cost is a
// little above 1×. 1.5× of the floor still catches a framing that re-scans its buffer or goes
// quadratic (those show up as 10× and more); the SDK is reported beside it, not judged.
const READER_MAX_RATIO = 1.5;
const WRITER_MAX_RATIO = 3;

export async function benchReaders(messages: number, rounds: number): Promise<void> {
  const { bytes, count, toolOutputs } = traffic(messages);
  const { chunks, splitUtf8 } = cut(bytes, READ_SIZE);
  console.log(
    `\n4. Framing, reader: ${count} messages (${toolOutputs} of them 100 KB tool outputs), ${(bytes.length / MB).toFixed(1)} MB in ${chunks.length} reads of 64 KiB (${splitUtf8} cut inside a character)`,
  );
  const check = (who: string) => (got: number) => {
    if (got !== count) throw new Error(`${who} read ${got} messages, want ${count}`);
  };
  const hooks = connectionReaderHooks();
  const t = await alternate(rounds, {
    floor: () => check('floor')(readFloor(chunks)),
    sdk: () => readWithSdk(chunks).then(check('ndJsonStream')),
    reins: () => check('Reins')(readWithReins(chunks, hooks)),
  });
  const mbps = (ms: number) => ` (${(bytes.length / MB / (ms / 1000)).toFixed(0)} MB/s)`;
  recordAgainstFloor('reader', t, READER_MAX_RATIO, mbps, "Reins as wired (the connection's trace hook, trace off); medians of alternating rounds");
}

/** Two rows: Reins against the floor (the target) and against the SDK's ndJsonStream (info). */
function recordAgainstFloor(
  what: 'reader' | 'writer',
  t: { reins: number[]; floor: number[]; sdk: number[] },
  maxRatio: number,
  throughput: (ms: number) => string = () => '',
  note?: string,
): void {
  for (const [name, against] of [
    ['floor', t.floor],
    ['ndJsonStream', t.sdk],
  ] as const) {
    const ratio = median(t.reins) / median(against);
    record({
      name: `framing ${what} vs ${name}`,
      reins: `${fmtSpread(t.reins)}${throughput(median(t.reins))}`,
      baseline: `${fmtSpread(against)}${throughput(median(against))}`,
      ratio,
      target: name === 'floor' ? `ratio ≤ ${maxRatio}` : 'info',
      pass: name === 'floor' ? ratio <= maxRatio : undefined,
      note: name === 'floor' ? note : undefined,
    });
  }
}

class NullWritable extends Writable {
  bytes = 0;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.bytes += chunk.length;
    callback();
  }
}

export async function benchWriters(n: number, rounds: number): Promise<void> {
  console.log(`\n4. Framing, writer: ${n / 1000}k client messages (prompts, cancels, permission answers, 4 KiB file reads)`);
  const messages = clientMessages(n) as Message[];
  const tracer = new ProtocolTracer(silentLogger, () => 'off');
  const reins = async () => {
    const writer = new NdjsonMessageWriter(new NullWritable(), { onMessage: (m, b) => tracer.outgoing(m, b) });
    let last: Promise<void> = Promise.resolve();
    for (const m of messages) last = writer.write(m);
    await last;
  };
  const sdk = async () => {
    const { writable } = ndJsonStream(new WritableStream<Uint8Array>({ write() {} }), new ReadableStream<Uint8Array>());
    const writer = writable.getWriter();
    let last: Promise<void> = Promise.resolve();
    for (const m of messages) last = writer.write(m as never);
    await last;
  };
  const floor = async () => {
    const out = new NullWritable();
    for (const m of messages) out.write(JSON.stringify(m) + '\n');
    await new Promise<void>((resolve) => out.write('', () => resolve()));
  };
  const t = await alternate(rounds, { floor, sdk, reins });
  recordAgainstFloor('writer', t, WRITER_MAX_RATIO);
}

// One 16 MiB message: its peak memory, as the kernel's high-water mark of the process (maxRSS)
// over the RSS once the message's bytes are in memory. Each reader runs in a fresh node
// (`--child peak <reader> <file>`), three times, the median kept.
const PEAK_MAX_RATIO = 3;

export async function peakChild(readerName: string, file: string): Promise<void> {
  const all = readFileSync(file);
  const chunks = cut(all, READ_SIZE).chunks;
  gc();
  await sleep(50);
  const before = process.memoryUsage().rss;
  let got = 0;
  if (readerName === 'reins') got = readWithReins(chunks, connectionReaderHooks());
  else if (readerName === 'sdk') got = await readWithSdk(chunks);
  else got = readFloor(chunks);
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ got, growth: peak - before }) + '\n');
}

function runPeak(selfArgs: string[], readerName: string, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...selfArgs, '--child', 'peak', readerName, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`peak child (${readerName}) exited ${code}: ${out}`));
      const m = JSON.parse(out.trim().split('\n').pop()!) as { got: number; growth: number };
      if (m.got !== 1) return reject(new Error(`peak child (${readerName}) read ${m.got} messages`));
      resolve(m.growth);
    });
  });
}

export async function benchPeak(selfArgs: string[], megabytes: number, runs: number): Promise<void> {
  console.log(`\n4. Framing: peak memory for one ${megabytes} MiB message (fs/write_text_file of a source file), fresh node each`);
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-bench-'));
  try {
    const content = sourceFile(megabytes * MB - 200);
    const line = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'fs/write_text_file', params: { sessionId: 'sess-1', path: '/w/big.ts', content } }) + '\n';
    const file = path.join(dir, 'line.json');
    writeFileSync(file, line);
    const size = Buffer.byteLength(line);
    const growth = { floor: [] as number[], sdk: [] as number[], reins: [] as number[] };
    for (let i = 0; i < runs; i++) {
      for (const [name, peaks] of Object.entries(growth)) peaks.push(await runPeak(selfArgs, name, file));
    }
    // In multiples of the message's size, the unit of the target.
    const times = (xs: number[]) => xs.map((b) => b / size);
    const r = median(growth.reins) / size;
    record({
      name: `framing: one ${megabytes} MiB message, peak`,
      reins: fmtSpread(times(growth.reins), '× its size'),
      baseline: `floor ${fmtSpread(times(growth.floor), '×')}; ndJsonStream median ${(median(growth.sdk) / size).toFixed(1)}×`,
      ratio: median(growth.reins) / median(growth.floor),
      target: `median ≤ ${PEAK_MAX_RATIO}× the message`,
      pass: r <= PEAK_MAX_RATIO,
      note: `maxRSS growth over the RSS with the bytes read in, ${runs} fresh processes each (${(size / MB).toFixed(0)} MiB line); ratio: Reins against the floor (decode once + JSON.parse)`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
