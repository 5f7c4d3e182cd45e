// ACP frames JSON-RPC as one JSON object per line (UTF-8, '\n'), not with LSP's
// Content-Length headers, so vscode-jsonrpc's stream classes do not fit. These are a reader
// and a writer on its abstract bases: the connection above them is vscode-jsonrpc's own.
import type { Readable, Writable } from 'node:stream';
import { AbstractMessageReader, AbstractMessageWriter, type DataCallback, type Disposable, type Message } from 'vscode-jsonrpc/node';

/** Lines longer than this close the connection: a runaway agent must not eat the editor's memory. */
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

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
  /** Bytes in `parts`: the size limit is checked without touching them. */
  private pendingBytes = 0;
  private callback: DataCallback | undefined;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly hooks: ReaderHooks = {},
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
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
      this.handleLine(this.takeLine(bytes.subarray(start, newline)));
      if (this.closed) return;
      start = newline + 1;
      newline = bytes.indexOf(NEWLINE, start);
    }
    if (start === bytes.length) return;
    this.parts.push(start === 0 ? bytes : bytes.subarray(start));
    this.pendingBytes += bytes.length - start;
    if (this.pendingBytes > this.maxLineBytes) this.tooLarge();
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
    // A JSON-RPC batch (ACP v2 says so for stdio): each entry a message of its own, in order.
    const entries: unknown[] = Array.isArray(message) && message.length > 0 ? message : [message];
    let malformed = false;
    for (const entry of entries) {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        malformed = true;
        continue;
      }
      this.hooks.onMessage?.(entry as Message, line.length);
      this.callback?.(entry as Message);
    }
    // Said once for the line, whatever it held.
    if (malformed) this.hooks.onMalformedLine?.(line.slice(0, 120), 'not a JSON object');
  }

  private tooLarge(): void {
    this.parts = [];
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
