// `framing:pipe`: one 16 MiB message as an agent sends it, through a pipe into a plain node
// process (no --expose-gc, no flags) that reads its stdin with Reins' framing, and the peak memory
// that costs, measured from outside: the parent reads the child's VmRSS from /proc once it is
// ready, resets its high-water mark (clear_refs 5), writes the line, and reads VmHWM once the
// child has parsed it. The same for the bare floor and the ACP SDK's ndJsonStream, alternating.
// Unlike `framing:peak` (the bytes read into memory first, then cut), the reads arrive as a
// child's stdout does, and nothing the child does to itself can hide a copy.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { NdjsonMessageReader } from '../../src/acp/framing';
import { sourceFile } from './data';
import { fmtSpread, MB, median, record } from './harness';

const PIPE_MAX_RATIO = 3;
const READERS = ['floor', 'sdk', 'reins'] as const;
type ReaderName = (typeof READERS)[number];

/** The child: reads one line from stdin with `reader`, says `ready` first and `{got}` after. */
export async function pipeChild(reader: string): Promise<void> {
  const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
  let got = 0;
  const done = () => say({ got });
  if (reader === 'reins') {
    new NdjsonMessageReader(process.stdin).listen(() => {
      got++;
      done();
    });
  } else if (reader === 'sdk') {
    const { readable } = ndJsonStream(new WritableStream<Uint8Array>(), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
    void (async () => {
      const r = readable.getReader();
      while (!(await r.read()).done) {
        got++;
        done();
      }
    })();
  } else {
    // The floor: the chunks of the line kept as they came, one concat, one decode, JSON.parse.
    let carry: Buffer[] = [];
    process.stdin.on('data', (chunk: Buffer) => {
      const nl = chunk.indexOf(10);
      if (nl === -1) return void carry.push(chunk);
      carry.push(chunk.subarray(0, nl));
      const line = Buffer.concat(carry);
      carry = [];
      if (JSON.parse(line.toString('utf8'))) got++;
      done();
    });
  }
  say({ ready: true });
  // Stays until the parent has read its peak and closes stdin.
  await new Promise<void>((resolve) => process.stdin.on('end', resolve));
}

function status(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Lines of the child's stdout, one at a time. */
function lines(child: ChildProcess): () => Promise<Record<string, unknown>> {
  let buffered = '';
  const waiting: ((line: string) => void)[] = [];
  const ready: string[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(line);
      else ready.push(line);
    }
  });
  return () =>
    new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before answering`)));
      const take = (line: string) => resolve(JSON.parse(line) as Record<string, unknown>);
      const first = ready.shift();
      if (first !== undefined) take(first);
      else waiting.push(take);
    });
}

/** One fresh child: its peak RSS growth while it reads `line`, in bytes. */
async function onePipe(script: string, reader: ReaderName, line: Buffer): Promise<number> {
  const child = spawn(process.execPath, [script, '--child', 'pipe', reader], { stdio: ['pipe', 'pipe', 'inherit'] });
  const next = lines(child);
  try {
    await next(); // ready
    await new Promise((r) => setTimeout(r, 200)); // its start-up's garbage settled
    const before = status(child.pid!);
    let reset = true;
    try {
      writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
    } catch {
      reset = false; // an older kernel: the start-up's peak counts too (only ever more)
    }
    const base = reset ? before.rss : Math.min(before.rss, before.hwm);
    child.stdin.write(line);
    const answer = await next();
    if (answer.got !== 1) throw new Error(`${reader} read ${String(answer.got)} messages, want 1`);
    return status(child.pid!).hwm - base;
  } finally {
    child.stdin.end();
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  }
}

/**
 * `wide`: the text holds a character outside Latin-1 every 4 KiB (a comment's dash, a name's
 * accent: source text as it is), so that V8 keeps it as a two-byte string, twice its UTF-8 size.
 */
export async function benchPipe(script: string, megabytes: number, runs: number, wide: boolean): Promise<void> {
  const what = wide ? 'with non-Latin-1 text' : 'ASCII';
  console.log(`\n4. Framing: one ${megabytes} MiB message (${what}) through a pipe into a plain node, peak RSS growth read from /proc`);
  const ascii = sourceFile(megabytes * MB - 200);
  const content = wide ? ascii.replace(/(.{4095})./gs, '$1—') : ascii;
  const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { content } } }) + '\n');
  const growth: Record<ReaderName, number[]> = { floor: [], sdk: [], reins: [] };
  for (let i = 0; i < runs; i++) for (const reader of READERS) growth[reader].push(await onePipe(script, reader, line));
  const times = (xs: number[]) => xs.map((b) => b / line.length);
  const r = median(growth.reins) / line.length;
  record({
    name: `framing: one ${megabytes} MiB message through a pipe (${what}), peak`,
    reins: fmtSpread(times(growth.reins), '× its size'),
    baseline: `floor ${fmtSpread(times(growth.floor), '×')}; ndJsonStream median ${(median(growth.sdk) / line.length).toFixed(2)}×`,
    ratio: median(growth.reins) / median(growth.floor),
    target: `median ≤ ${PIPE_MAX_RATIO}× the message`,
    pass: r <= PIPE_MAX_RATIO,
    note: `VmHWM − VmRSS of a fresh plain node reading its stdin, ${runs} processes each (${(line.length / MB).toFixed(0)} MiB line); ratio: Reins against the floor (concat + decode + JSON.parse)`,
  });
}
