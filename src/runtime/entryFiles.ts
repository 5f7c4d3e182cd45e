// The file that holds a transcript's settled entries out of memory (entryList.ts): each entry's
// JSON written once at the file's end and read back whole, by its place, when it is asked for.
// One file in a directory of this conversation's own, opened at the first entry and kept open
// (read back by its descriptor, so a temp cleaner cannot take it from under us), removed on
// dispose. Synchronous: an entry is a few KB and the transcript's callers are synchronous. No
// `vscode`.
import { closeSync, ftruncateSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Disposable } from '../util/disposable';

/** Where an entry's JSON is in the file. */
export interface Spot {
  readonly offset: number;
  readonly bytes: number;
}

export class EntryFiles implements Disposable {
  private dir: string | undefined;
  private fd: number | undefined;
  private end = 0;
  /** The first write that failed (a full disk): said once, then nothing more is written. */
  private failed: Error | undefined;
  private disposed = false;

  constructor(
    private readonly onError: (error: Error) => void = () => undefined,
    private readonly parent: string = tmpdir(),
  ) {}

  /** Writes `json`; undefined when it could not be (the entry then stays in memory). */
  write(json: string): Spot | undefined {
    if (this.failed || this.disposed) return undefined;
    try {
      if (this.fd === undefined) {
        this.dir ??= mkdtempSync(path.join(this.parent, 'reins-entries-'));
        this.fd = openSync(path.join(this.dir, 'entries.jsonl'), 'w+', 0o600);
      }
      const bytes = Buffer.from(json, 'utf8');
      let written = 0;
      while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written, this.end + written);
      const spot = { offset: this.end, bytes: bytes.length };
      this.end += bytes.length;
      return spot;
    } catch (error) {
      this.failed = error as Error;
      this.onError(this.failed);
      return undefined;
    }
  }

  /** The JSON written at `spot`. */
  read(spot: Spot): string {
    if (this.fd === undefined) throw new Error('the transcript’s entry file is closed');
    const bytes = Buffer.allocUnsafe(spot.bytes);
    let got = 0;
    while (got < spot.bytes) {
      const n = readSync(this.fd, bytes, got, spot.bytes - got, spot.offset + got);
      if (n === 0) throw new Error(`the transcript’s entry file ended at ${spot.offset + got} of ${spot.offset + spot.bytes}`);
      got += n;
    }
    return bytes.toString('utf8');
  }

  /** Bytes written so far (entries replaced since are not taken back until clear()). */
  get size(): number {
    return this.end;
  }

  /** Everything written is let go: a new conversation. */
  clear(): void {
    this.end = 0;
    try {
      if (this.fd !== undefined) ftruncateSync(this.fd, 0);
    } catch {
      // What stays is overwritten from its start.
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.end = 0;
  }
}
