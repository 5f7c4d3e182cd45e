// A JSON value parsed as its line arrives, for lines too long to hold whole. JSON.parse needs the
// line as one string: for a 16 MiB message that is its bytes, the decoded line and the parsed
// value at once, and text outside Latin-1 is two bytes a character in both strings (5× the
// message). Here the reads are parsed as they come and let go: a long string value is decoded and
// unescaped in pieces of a few reads each, the pieces joined as they come (V8 keeps the join as a
// rope until the text is first read), so the peak is about the value itself.
// The result is the value JSON.parse would give for the same bytes (what NdjsonMessageReader
// gives on the short path: decoded as UTF-8 with replacement characters, the same escapes and
// the same invalid input refused); only the error messages differ.

/** The most of a read parsed at once: a pipe's read is 64 KiB. */
const STEP_BYTES = 256 * 1024;
/**
 * A long string is decoded in pieces of about this many bytes: few enough pieces for the rope,
 * and each piece (and the garbage of making it) a large object of its own, which V8 promotes
 * without copying and frees without compacting.
 */
const PIECE_BYTES = 256 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

const enum State {
  /** A value: the line's, an object member's after ':', an array element's after ','. */
  Value,
  /** Just after '[': a value or ']'. */
  ArrayFirst,
  /** Just after '{': a key or '}'. */
  ObjectFirst,
  /** After ',' in an object: a key. */
  ObjectKey,
  Colon,
  /** After a value inside a container: ',' or its closing bracket. */
  AfterValue,
  InString,
  InNumber,
  InLiteral,
  /** The line's value is complete: only whitespace may follow. */
  Done,
}

interface Container {
  readonly value: Record<string, unknown> | unknown[];
  readonly isArray: boolean;
  /** The member whose value comes next (objects only). */
  key?: string;
}

export type LongLineResult = { kind: 'value'; value: unknown } | { kind: 'empty' } | { kind: 'error'; message: string };

const isWhitespace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
/** The bytes a JSON number is made of; which orders of them are numbers, JSON.parse decides. */
const isNumberByte = (b: number) => (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45;
const isLetter = (b: number) => b >= 0x61 && b <= 0x7a;
const LITERALS = new Map<string, unknown>([
  ['true', true],
  ['false', false],
  ['null', null],
]);

/**
 * Where bytes `[from, end)` can be cut so that decoding the two sides apart gives what decoding
 * them together does: not inside a UTF-8 sequence that the next bytes may complete. Cutting
 * before an ASCII byte or a lead byte always starts the decoder afresh, so at most the last
 * three bytes move to the next piece.
 */
export function utf8Cut(buf: Uint8Array, from: number, end: number): number {
  for (let p = end - 1; p >= from && p >= end - 3; p--) {
    const b = buf[p]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 1;
    return p + need > end ? p : end;
  }
  return end;
}

/** Sets a member as JSON.parse does: `__proto__` too is an own property, not the prototype. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

export interface LongLineOptions {
  /** Bytes parsed at once (tests make it small, to cut everywhere). */
  stepBytes?: number;
  /** Bytes of a long string decoded at once. */
  pieceBytes?: number;
}

export class LongLineParser {
  private readonly stepBytes: number;
  private readonly pieceBytes: number;
  private state = State.Value;
  private readonly stack: Container[] = [];
  private result: unknown;
  private error: string | undefined;
  /** The line's bytes before the current read, for the positions in error messages. */
  private offset = 0;
  /** A number's or a literal's text so far. */
  private token = '';
  /** The string being read: its text so far (a rope of pieces), and whether it is a key. */
  private text = '';
  private isKey = false;
  /** Its bytes not decoded yet (views of the reads they came in), how many, and where they begin. */
  private raw: Uint8Array[] = [];
  private rawBytes = 0;
  private rawAt = 0;
  /** Where a piece's bytes are put together between quotes, for JSON.parse. */
  private scratch = Buffer.alloc(0);
  /** The bytes of the open string that the next read may complete (a split escape or character). */
  private carry: Buffer | undefined;
  /** Where the last escape in the current read began, or -1. */
  private lastEscape = -1;

  constructor(options: LongLineOptions = {}) {
    this.stepBytes = options.stepBytes ?? STEP_BYTES;
    this.pieceBytes = options.pieceBytes ?? PIECE_BYTES;
  }

  /** The next bytes of the line (without its newline). Kept only until the piece they belong to is decoded. */
  feed(chunk: Uint8Array): void {
    // A read larger than a pipe's is taken in steps, so that each step's garbage stays small.
    for (let at = 0; at < chunk.byteLength; at += this.stepBytes) this.step(chunk.subarray(at, at + this.stepBytes));
  }

  private step(chunk: Uint8Array): void {
    if (this.error !== undefined) return;
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let offset = this.offset;
    if (this.carry) {
      offset -= this.carry.length;
      buf = Buffer.concat([this.carry, buf]);
      this.carry = undefined;
    }
    this.offset = offset + buf.length;
    const n = buf.length;
    let i = 0;
    while (i < n && this.error === undefined) {
      switch (this.state) {
        case State.InString: {
          const close = this.scanString(buf, i);
          if (close === -1) {
            this.keepOpenString(buf, i, n, offset);
            return;
          }
          this.addRaw(buf, i, close, offset);
          const piece = this.decodeRaw();
          if (piece !== undefined) this.endString(this.text + piece);
          i = close + 1;
          break;
        }
        case State.InNumber:
        case State.InLiteral: {
          const accepts = this.state === State.InNumber ? isNumberByte : isLetter;
          let j = i;
          while (j < n && accepts(buf[j]!)) j++;
          this.token += buf.toString('latin1', i, j);
          if (j < n) this.endToken(offset + j);
          i = j;
          break;
        }
        default: {
          const b = buf[i]!;
          if (isWhitespace(b)) i++;
          // A number or a literal starts in its own state, at its first byte.
          else if (this.structural(b, offset + i)) i++;
        }
      }
    }
  }

  /** The line has ended: its value, nothing (only whitespace), or why it is not JSON. */
  end(): LongLineResult {
    if (this.error === undefined) {
      if (this.state === State.InNumber || this.state === State.InLiteral) this.endToken(this.offset);
      if (this.state === State.InString) this.fail('the line ends inside a string', this.offset);
      else if (this.state === State.Value && this.stack.length === 0) return { kind: 'empty' };
      else if (this.state !== State.Done) this.fail('the line ends inside a value', this.offset);
    }
    if (this.error !== undefined) return { kind: 'error', message: this.error };
    return { kind: 'value', value: this.result };
  }

  /** Handles one structural byte at line position `at`; false when it starts a token not yet read. */
  private structural(b: number, at: number): boolean {
    const char = String.fromCharCode(b);
    switch (this.state) {
      case State.ArrayFirst:
        if (char === ']') {
          this.close();
          return true;
        }
        return this.startValue(b, at);
      case State.Value:
        return this.startValue(b, at);
      case State.ObjectFirst:
      case State.ObjectKey:
        if (char === '}' && this.state === State.ObjectFirst) this.close();
        else if (b === QUOTE) this.startString(true);
        else this.unexpected(b, at);
        return true;
      case State.Colon:
        if (char === ':') this.state = State.Value;
        else this.unexpected(b, at);
        return true;
      case State.AfterValue: {
        const top = this.stack[this.stack.length - 1]!;
        if (char === ',') this.state = top.isArray ? State.Value : State.ObjectKey;
        else if (char === (top.isArray ? ']' : '}')) this.close();
        else this.unexpected(b, at);
        return true;
      }
      default:
        this.unexpected(b, at);
        return true;
    }
  }

  private startValue(b: number, at: number): boolean {
    if (b === 0x7b) this.open({ value: {}, isArray: false }, State.ObjectFirst);
    else if (b === 0x5b) this.open({ value: [], isArray: true }, State.ArrayFirst);
    else if (b === QUOTE) this.startString(false);
    else if (b === 0x2d || (b >= 0x30 && b <= 0x39)) return this.startToken(State.InNumber);
    else if (b === 0x74 || b === 0x66 || b === 0x6e) return this.startToken(State.InLiteral);
    else this.unexpected(b, at);
    return true;
  }

  private startToken(state: State.InNumber | State.InLiteral): false {
    this.state = state;
    this.token = '';
    return false;
  }

  private endToken(at: number): void {
    const token = this.token;
    this.token = '';
    if (this.state === State.InLiteral) {
      if (LITERALS.has(token)) this.emit(LITERALS.get(token));
      else this.fail(`'${token.slice(0, 20)}' is not a JSON literal`, at - token.length);
      return;
    }
    let value: unknown;
    try {
      // The grammar and the rounding of a number are JSON.parse's own.
      value = JSON.parse(token);
    } catch {
      this.fail(`'${token.slice(0, 40)}' is not a JSON number`, at - token.length);
      return;
    }
    this.emit(value);
  }

  private open(container: Container, state: State): void {
    this.stack.push(container);
    this.state = state;
  }

  private close(): void {
    this.emit(this.stack.pop()!.value);
  }

  /** A value is complete: it goes to its container, or is the line's. */
  private emit(value: unknown): void {
    const parent = this.stack[this.stack.length - 1];
    if (!parent) {
      this.result = value;
      this.state = State.Done;
      return;
    }
    if (parent.isArray) (parent.value as unknown[]).push(value);
    else setMember(parent.value as Record<string, unknown>, parent.key!, value);
    this.state = State.AfterValue;
  }

  private startString(isKey: boolean): void {
    this.state = State.InString;
    this.isKey = isKey;
    this.text = '';
  }

  private endString(text: string): void {
    this.text = '';
    if (!this.isKey) return this.emit(text);
    this.stack[this.stack.length - 1]!.key = text;
    this.state = State.Colon;
  }

  /** The position of the string's closing quote in `buf` from `from`, or -1; notes the last escape. */
  private scanString(buf: Buffer, from: number): number {
    this.lastEscape = -1;
    const n = buf.length;
    for (let i = from; i < n; i++) {
      const b = buf[i];
      if (b === QUOTE) return i;
      if (b === BACKSLASH) {
        this.lastEscape = i;
        i++; // the escaped byte is never the string's end
      }
    }
    return -1;
  }

  /** The read ends inside a string: what is certain of it is kept, the rest waits for the next read. */
  private keepOpenString(buf: Buffer, from: number, n: number, offset: number): void {
    let cut = n;
    const escape = this.lastEscape;
    if (escape !== -1 && escape + (buf[escape + 1] === LETTER_U ? 6 : 2) > n) cut = escape;
    else cut = utf8Cut(buf, from, n);
    this.addRaw(buf, from, cut, offset);
    if (this.rawBytes >= this.pieceBytes) {
      const piece = this.decodeRaw();
      if (piece === undefined) return;
      this.text += piece;
    }
    // A copy, so that the read is let go once its piece is decoded.
    if (cut < n) this.carry = Buffer.from(buf.subarray(cut, n));
  }

  private addRaw(buf: Buffer, from: number, to: number, offset: number): void {
    if (to === from) return;
    if (this.rawBytes === 0) this.rawAt = offset + from;
    this.raw.push(buf.subarray(from, to));
    this.rawBytes += to - from;
  }

  /** The string's bytes kept so far, decoded and unescaped as JSON.parse would. */
  private decodeRaw(): string | undefined {
    const size = this.rawBytes + 2;
    if (this.scratch.length < size) this.scratch = Buffer.allocUnsafeSlow(Math.max(size, this.pieceBytes + this.stepBytes + 2));
    const scratch = this.scratch;
    scratch[0] = QUOTE;
    let at = 1;
    for (const part of this.raw) {
      scratch.set(part, at);
      at += part.length;
    }
    scratch[at] = QUOTE;
    this.raw = [];
    this.rawBytes = 0;
    try {
      return JSON.parse(scratch.toString('utf8', 0, at + 1)) as string;
    } catch (error) {
      this.fail(`a string is not valid JSON (${(error as Error).message})`, this.rawAt);
      return undefined;
    }
  }

  private unexpected(b: number, at: number): void {
    const shown = b >= 0x20 && b < 0x7f ? `'${String.fromCharCode(b)}'` : `byte 0x${b.toString(16).padStart(2, '0')}`;
    this.fail(`unexpected ${shown}`, at);
  }

  private fail(why: string, at: number): void {
    this.error ??= `${why} at byte ${at} of a long line`;
    this.carry = undefined;
    this.text = '';
    this.raw = [];
  }
}
