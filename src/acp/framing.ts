// ACP frames JSON-RPC as one JSON object per line (UTF-8, '\n'), not with LSP's
// Content-Length headers, so vscode-jsonrpc's stream classes do not fit. These are a reader
// and a writer on its abstract bases: the connection above them is vscode-jsonrpc's own.
import type { Readable, Writable } from 'node:stream';
import { AbstractMessageReader, AbstractMessageWriter, type DataCallback, type Disposable, type Message } from 'vscode-jsonrpc/node';
import { LongLineParser, type LongLineResult } from './longLine';

/** Lines longer than this close the connection: a runaway agent must not eat the editor's memory. */
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/**
 * A line that grows past this is parsed as its reads arrive (longLine.ts), not gathered and given
 * to JSON.parse: its bytes, its text and its value never all exist at once. Below it JSON.parse
 * is faster, and a line this size costs little memory either way.
 */
const DEFAULT_LONG_LINE_BYTES = 1024 * 1024;
/** Bytes of a long line kept for the malformed-line hook: at least its first 120 characters. */
const LONG_LINE_HEAD_BYTES = 480;
const BYTE_ORDER_MARK_BYTES = [0xef, 0xbb, 0xbf];

export class LineTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the agent wrote a line larger than ${limit} bytes; the connection was closed`);
    this.name = 'LineTooLargeError';
  }
}

export interface ReaderHooks {
  /** A line that is not a JSON object: it is skipped and the connection goes on. */
  onMalformedLine?(firstBytes: string, error: string): void;
  /** Every parsed message, before the connection handles it (for the protocol trace). */
  onMessage?(message: Message, bytes: number): void;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BYTE_ORDER_MARK = 0xfeff;

export class NdjsonMessageReader extends AbstractMessageReader {
  // A line is gathered as the byte chunks it arrived in and decoded once, when its newline
  // comes: a '\n' byte never occurs inside a UTF-8 sequence, so splitting bytes is safe, and a
  // 16 MiB line costs its bytes, one copy and its string, not a string rebuilt per read.
  private parts: Buffer[] = [];
  /** Bytes of the line so far: the size limit is checked without touching them. */
  private pendingBytes = 0;
  /** The line being parsed as it arrives, once it is long; its first bytes, for a report. */
  private long: { readonly parser: LongLineParser; head: Buffer } | undefined;
  private callback: DataCallback | undefined;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly hooks: ReaderHooks = {},
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
    private readonly longLineBytes = DEFAULT_LONG_LINE_BYTES,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (chunk: Buffer | string) => this.onData(chunk);
    const onEnd = () => this.close();
    const onError = (error: Error) => this.fireError(error);
    this.input.on('data', onData);
    this.input.on('end', onEnd);
    this.input.on('close', onEnd);
    this.input.on('error', onError);
    return {
      dispose: () => {
        this.callback = undefined;
        this.input.off('data', onData);
        this.input.off('end', onEnd);
        this.input.off('close', onEnd);
        this.input.off('error', onError);
      },
    };
  }

  private onData(chunk: Buffer | string): void {
    if (this.closed) return;
    // A stream with an encoding set hands out strings: back to bytes, so there is one path.
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    let newline = bytes.indexOf(NEWLINE);
    while (newline !== -1) {
      const tail = bytes.subarray(start, newline);
      if (this.long) this.endLongLine(tail);
      else this.handleLine(this.takeLine(tail));
      if (this.closed) return;
      start = newline + 1;
      newline = bytes.indexOf(NEWLINE, start);
    }
    if (start === bytes.length) return;
    const rest = start === 0 ? bytes : bytes.subarray(start);
    this.pendingBytes += rest.length;
    if (this.pendingBytes > this.maxLineBytes) return this.tooLarge();
    if (this.long) return this.feedLong(rest);
    this.parts.push(rest);
    // At least the mark's three bytes first, to know whether the line starts with one.
    if (this.pendingBytes >= Math.max(this.longLineBytes, BYTE_ORDER_MARK_BYTES.length)) this.startLongLine();
  }

  /** The line is long: what came of it so far is parsed now and let go, the rest as it comes. */
  private startLongLine(): void {
    const parts = this.parts;
    this.parts = [];
    // The byte-order mark, as on the short path (where it is dropped after decoding).
    const first = firstBytes(parts, 0, BYTE_ORDER_MARK_BYTES.length);
    let skip = BYTE_ORDER_MARK_BYTES.every((b, i) => first[i] === b) ? first.length : 0;
    const parser = new LongLineParser();
    this.long = { parser, head: firstBytes(parts, skip, LONG_LINE_HEAD_BYTES) };
    for (const part of parts) {
      const from = Math.min(skip, part.length);
      skip -= from;
      if (from < part.length) parser.feed(part.subarray(from));
    }
  }

  private feedLong(bytes: Buffer): void {
    const long = this.long!;
    // The head is whole once the line is past the threshold, unless the threshold is tiny (tests).
    if (long.head.length < LONG_LINE_HEAD_BYTES) long.head = Buffer.concat([long.head, bytes.subarray(0, LONG_LINE_HEAD_BYTES - long.head.length)]);
    long.parser.feed(bytes);
  }

  private endLongLine(tail: Buffer): void {
    const bytes = this.pendingBytes + tail.length;
    this.pendingBytes = 0;
    if (bytes > this.maxLineBytes) return this.tooLarge();
    this.feedLong(tail);
    const { parser, head } = this.long!;
    this.long = undefined;
    const result: LongLineResult = parser.end();
    if (result.kind === 'empty') return;
    // A head shorter than its room is the whole line: its carriage return goes, as on the short path.
    const whole = head.length < LONG_LINE_HEAD_BYTES && head[head.length - 1] === CARRIAGE_RETURN;
    const first = () => head.toString('utf8', 0, whole ? head.length - 1 : head.length).slice(0, 120);
    if (result.kind === 'error') return this.hooks.onMalformedLine?.(first(), result.message);
    this.handleMessage(result.value, bytes, first);
  }

  /** The whole line that ends with `tail`, decoded: the bytes gathered so far are let go here. */
  private takeLine(tail: Buffer): string | undefined {
    let line = tail;
    if (this.parts.length > 0) {
      this.parts.push(tail);
      line = Buffer.concat(this.parts, this.pendingBytes + tail.length);
      this.parts = [];
      this.pendingBytes = 0;
    }
    if (line.length > this.maxLineBytes) {
      this.tooLarge();
      return undefined;
    }
    const end = line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? line.length - 1 : line.length;
    return line.toString('utf8', 0, end);
  }

  private handleLine(decoded: string | undefined): void {
    if (decoded === undefined) return;
    // An agent (or a wrapper script) that writes a byte-order mark before its first message
    // must not lose it: JSON.parse refuses the mark, so it is dropped here.
    const line = decoded.charCodeAt(0) === BYTE_ORDER_MARK ? decoded.slice(1) : decoded;
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      this.hooks.onMalformedLine?.(line.slice(0, 120), (error as Error).message);
      return;
    }
    this.handleMessage(message, line.length, () => line.slice(0, 120));
  }

  private handleMessage(message: unknown, size: number, first: () => string): void {
    // A JSON-RPC batch (ACP v2 says so for stdio): each entry a message of its own, in order.
    const entries: unknown[] = Array.isArray(message) && message.length > 0 ? message : [message];
    let malformed = false;
    for (const entry of entries) {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        malformed = true;
        continue;
      }
      this.hooks.onMessage?.(entry as Message, size);
      this.callback?.(entry as Message);
    }
    // Said once for the line, whatever it held.
    if (malformed) this.hooks.onMalformedLine?.(first(), 'not a JSON object');
  }

  private tooLarge(): void {
    this.parts = [];
    this.long = undefined;
    this.pendingBytes = 0;
    this.fireError(new LineTooLargeError(this.maxLineBytes));
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fireClose();
  }
}

/** A copy of bytes `[from, from + count)` of the line gathered in `parts`. */
function firstBytes(parts: readonly Buffer[], from: number, count: number): Buffer {
  const out = Buffer.alloc(count);
  let filled = 0;
  let skip = from;
  for (const part of parts) {
    if (filled === count) break;
    if (skip >= part.length) {
      skip -= part.length;
      continue;
    }
    filled += part.copy(out, filled, skip, Math.min(part.length, skip + count - filled));
    skip = 0;
  }
  return out.subarray(0, filled);
}

export interface WriterHooks {
  onMessage?(message: Message, bytes: number): void;
}

export class NdjsonMessageWriter extends AbstractMessageWriter {
  // Writes chain on this promise so that messages leave in the order they were written,
  // even when the stream applies back-pressure.
  private queue: Promise<void> = Promise.resolve();
  /** No write is waiting: the next one goes out at once (see `write`). */
  private idle = true;
  private errorCount = 0;

  constructor(
    private readonly output: Writable,
    private readonly hooks: WriterHooks = {},
  ) {
    super();
    output.on('error', (error) => this.fireError(error));
    output.on('close', () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    // With nothing waiting, the line is handed to the stream now, not a microtask later: a
    // session/cancel is then on the wire before the caller's own work goes on (a stop fires
    // the status bar, the context keys and the panel synchronously, milliseconds of work).
    const result = this.idle ? this.writeNow(message) : this.queue.then(() => this.writeNow(message));
    this.idle = false;
    const settled = result.catch(() => undefined);
    this.queue = settled;
    void settled.then(() => {
      if (this.queue === settled) this.idle = true;
    });
    return result;
  }

  private writeNow(message: Message): Promise<void> {
    const line = JSON.stringify(message) + '\n';
    return new Promise<void>((resolve, reject) => {
      if (this.output.destroyed || this.output.writableEnded) {
        const error = new Error("the agent's stdin is closed");
        this.fireError(error, message, ++this.errorCount);
        reject(error);
        return;
      }
      this.hooks.onMessage?.(message, line.length);
      this.output.write(line, 'utf8', (error) => {
        if (error) {
          this.fireError(error, message, ++this.errorCount);
          reject(error);
        } else {
          resolve();
        }
      });
    });
  }

  end(): void {
    this.output.end();
  }
}
