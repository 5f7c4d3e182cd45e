// What one terminal has printed, kept within a byte limit (ACP `outputByteLimit`): when more
// arrives, the oldest output goes, cut at a character boundary so that what is kept is always
// valid text (the spec's MUST), even if that keeps a few bytes less than the limit.
//
// Bytes are decoded as they arrive (a character split across two reads is held back until its
// last byte comes; bytes that are not UTF-8 become U+FFFD) and kept as UTF-8 chunks, each a
// whole number of characters, so that only the oldest chunk is ever cut and nothing is copied
// for each read. Pure: no processes, no timers.
import { StringDecoder } from 'node:string_decoder';

/** The spec's TerminalExitStatus: a code, or the signal that ended the command. */
export interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
}

export interface OutputSnapshot {
  output: string;
  /** Output was dropped from the start to stay within the limit. */
  truncated: boolean;
  /** Present once the command has exited. */
  exitStatus?: ExitStatus;
}

export class OutputBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** UTF-8 bytes of all the text ever kept, dropped or not. */
  private total = 0;
  private dropped = false;
  private exit: ExitStatus | undefined;
  private readonly decoder = new StringDecoder('utf8');
  /** Grows with every byte kept; lets a reader tell whether anything changed since it last looked. */
  private version = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`output byte limit must be a whole number of bytes, not ${limit}`);
  }

  /** Bytes as the process wrote them. */
  write(data: Buffer | string): void {
    this.keep(typeof data === 'string' ? data : this.decoder.write(data));
  }

  /** The command exited: what the decoder still holds (a character cut short) is kept as U+FFFD. */
  finish(status: ExitStatus): void {
    if (this.exit) return;
    this.keep(this.decoder.end());
    this.exit = { exitCode: status.exitCode, signal: status.signal };
  }

  get exitStatus(): ExitStatus | undefined {
    return this.exit;
  }

  /** Changes whenever the text changes (for throttled readers). */
  get revision(): number {
    return this.version;
  }

  /** Output was dropped from the start to stay within the limit. */
  get truncated(): boolean {
    return this.dropped;
  }

  /** UTF-8 bytes of all the output so far, including what was dropped. */
  get written(): number {
    return this.total;
  }

  /** UTF-8 bytes kept now (never more than the limit). */
  get size(): number {
    return this.bytes;
  }

  snapshot(): OutputSnapshot {
    const output = this.text();
    return this.exit ? { output, truncated: this.dropped, exitStatus: { ...this.exit } } : { output, truncated: this.dropped };
  }

  text(): string {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.bytes)];
    return this.chunks[0]?.toString('utf8') ?? '';
  }

  /**
   * The last `maxBytes` of the text, cut at a character boundary (what the panel shows, ten
   * times a second): only the newest chunks are read, never the whole output.
   */
  tail(maxBytes: number): string {
    const newest: Buffer[] = [];
    let bytes = 0;
    for (let i = this.chunks.length - 1; i >= 0 && bytes < maxBytes; i--) {
      const chunk = this.chunks[i]!; // 0 <= i < length
      newest.unshift(chunk);
      bytes += chunk.length;
    }
    const end = Buffer.concat(newest, bytes);
    return end.subarray(bytes <= maxBytes ? 0 : charBoundaryFrom(end, bytes - maxBytes)).toString('utf8');
  }

  private keep(text: string): void {
    if (text.length === 0) return;
    const chunk = Buffer.from(text, 'utf8');
    this.version++;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    this.total += chunk.length;
    if (this.bytes > this.limit) this.trim();
  }

  /** Drop from the start until the rest fits: whole chunks first, then part of the oldest. */
  private trim(): void {
    this.dropped = true;
    let first = this.chunks[0];
    while (first && this.bytes - first.length >= this.limit) {
      this.chunks.shift();
      this.bytes -= first.length;
      first = this.chunks[0];
    }
    if (!first || this.bytes <= this.limit) return;
    const cut = charBoundaryFrom(first, this.bytes - this.limit);
    const rest = first.subarray(cut);
    this.bytes -= cut;
    if (rest.length === 0) this.chunks.shift();
    else this.chunks[0] = rest;
  }
}

/**
 * The first character boundary at or after `at` in valid UTF-8: continuation bytes
 * (0b10xxxxxx) never start a character, so skip them. Cutting there can only drop more.
 */
export function charBoundaryFrom(bytes: Buffer, at: number): number {
  let i = Math.max(0, at);
  while (i < bytes.length && (bytes.readUInt8(i) & 0xc0) === 0x80) i++;
  return i;
}

/** "exit code 1" or "killed by SIGTERM". Here, not in terminals.ts, so that the transcript's
 * terminal cards can use it without loading the agent machinery (src/runtime/machineryLoader.ts). */
export function describeStatus(status: ExitStatus): string {
  return status.signal ? `killed by ${status.signal}` : `exit code ${status.exitCode}`;
}
