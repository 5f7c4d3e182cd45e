// ACP frames JSON-RPC as one JSON object per line (UTF-8, '\n'), not with LSP's
// Content-Length headers, so vscode-jsonrpc's stream classes do not fit. These are a reader
// and a writer on its abstract bases: the connection above them is vscode-jsonrpc's own.
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import {
  AbstractMessageReader,
  AbstractMessageWriter,
  type DataCallback,
  type Disposable,
  type Message,
} from 'vscode-jsonrpc/node';

/** Lines longer than this close the connection: a runaway agent must not eat the editor's memory. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

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

export class NdjsonMessageReader extends AbstractMessageReader {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  /** Bytes in `buffer`: counted as chunks arrive, so a huge line costs no re-measuring. */
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
    // The decoder keeps an incomplete UTF-8 sequence for the next chunk.
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const hadNewline = text.includes('\n');
    this.buffer += text;
    this.pendingBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (hadNewline) {
      let newline: number;
      while (!this.closed && (newline = this.buffer.indexOf('\n')) !== -1) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        this.handleLine(line);
      }
      // What is left is the start of the next line: usually short, so measuring it is cheap.
      this.pendingBytes = Buffer.byteLength(this.buffer);
    }
    if (!this.closed && this.pendingBytes > this.maxLineBytes) {
      this.buffer = '';
      this.fireError(new LineTooLargeError(this.maxLineBytes));
      this.close();
    }
  }

  private handleLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    if (line.length * 3 > this.maxLineBytes && Buffer.byteLength(line) > this.maxLineBytes) {
      this.fireError(new LineTooLargeError(this.maxLineBytes));
      this.close();
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      this.hooks.onMalformedLine?.(line.slice(0, 120), (error as Error).message);
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.hooks.onMalformedLine?.(line.slice(0, 120), 'not a JSON object');
      return;
    }
    this.hooks.onMessage?.(message as Message, line.length);
    this.callback?.(message as Message);
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
    const result = this.queue.then(() => this.writeNow(message));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private writeNow(message: Message): Promise<void> {
    const line = JSON.stringify(message) + '\n';
    return new Promise<void>((resolve, reject) => {
      if (this.output.destroyed || this.output.writableEnded) {
        const error = new Error('the agent\'s stdin is closed');
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
