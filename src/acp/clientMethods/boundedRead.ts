// Reading a file without ever holding more than a limit of it in memory. A 200 MB file read
// whole through fs/read_text_file once took the extension host to 982 MB: a whole
// read stops as soon as the limit is passed, and a line range is read by streaming, keeping
// only the lines asked for.
import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

const CHUNK = 64 * 1024;

export class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
  }
}

/** The whole file as UTF-8; throws TooLarge once more than `maxBytes` were read (the file may grow after a stat). */
export async function readAllBounded(handle: FileHandle, maxBytes: number, chunkSize = CHUNK): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(chunkSize);
    const { bytesRead } = await handle.read(buffer, 0, chunkSize, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) throw new TooLarge(maxBytes);
    chunks.push(bytesRead === chunkSize ? buffer : buffer.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/**
 * Lines `first` (0-based) .. `first + count - 1` (all the rest when `count` is undefined),
 * joined with '\n', exactly as `sliceLines` cuts them from the whole text. Reads in chunks and
 * keeps only the lines in range; throws TooLarge when those exceed `maxBytes`.
 */
export async function readLineRange(handle: FileHandle, first: number, count: number | undefined, maxBytes: number, chunkSize = CHUNK): Promise<string> {
  const decoder = new StringDecoder('utf8');
  const end = count === undefined ? Infinity : first + count;
  const lines: string[] = [];
  let line = 0; // index of the line being read
  let current = ''; // its text so far, when it is in range
  let kept = 0; // bytes kept (lines in range, with their separators)

  const keep = (piece: string): void => {
    if (line < first || line >= end) return;
    kept += Buffer.byteLength(piece, 'utf8');
    if (kept > maxBytes) throw new TooLarge(maxBytes);
    current += piece;
  };
  /** Consume decoded text; true once the range is complete. */
  const take = (text: string): boolean => {
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      keep(text.slice(from, nl));
      if (line >= first && line < end) {
        lines.push(current);
        kept += 1; // the '\n' that joins it to the next
      }
      current = '';
      line++;
      from = nl + 1;
      if (line >= end) return true;
    }
    keep(text.slice(from));
    return false;
  };

  const buffer = Buffer.allocUnsafe(chunkSize);
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, chunkSize, null);
    if (bytesRead === 0) break;
    if (take(decoder.write(buffer.subarray(0, bytesRead)))) return lines.join('\n');
  }
  take(decoder.end());
  // The text after the last '\n' is a line too (empty when the file ends with one), as split('\n') has it.
  if (line >= first && line < end) lines.push(current);
  return lines.join('\n');
}

/** Lines `line` (1-based) .. `line + limit - 1` of `text`, as the spec's optional range asks. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (!line && !limit) return text;
  const lines = text.split('\n');
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit ? start + limit : lines.length;
  return lines.slice(start, end).join('\n');
}
