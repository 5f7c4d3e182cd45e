// The long-line parser (src/acp/longLine.ts) against JSON.parse, its oracle: any JSON text, cut
// into reads anywhere (inside escapes, surrogate pairs written as escapes, UTF-8 sequences,
// numbers, literals), decoded in pieces as small as one byte, gives the value JSON.parse gives
// for the whole line decoded at once; any bytes JSON.parse refuses are refused, and nothing
// throws. Through the reader: a stream read with every line on the long path gives the same
// messages and the same skipped lines as the short path.
//
// Sabotage, each guard removed once by hand: utf8Cut cutting anywhere, "not the value JSON.parse
// gives for \"\\ud800\\udc00—\"" (a four-byte character decoded in two pieces, 5 of 7 failing);
// no cut before a split escape, "a string is not valid JSON (Unterminated string in JSON at
// position 3)" (4 failing); `__proto__` set by assignment, "not the value JSON.parse gives for
// {\"\\u005f\\u005fpro\\u0074o\\u005f_\": \"\"}".
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { PassThrough } from 'node:stream';
import type { Message } from 'vscode-jsonrpc/node';
import { NdjsonMessageReader } from '../../src/acp/framing';
import { LongLineParser, type LongLineResult, utf8Cut } from '../../src/acp/longLine';
import { chunked, mutatedFrame } from '../support/frameFuzz';

/** What the short path makes of a line's bytes: the oracle. */
function oracle(bytes: Buffer): LongLineResult['kind'] | { value: unknown } {
  const text = bytes.toString('utf8');
  if (/^[ \t\r\n]*$/.test(text)) return 'empty';
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return 'error';
  }
}

function parse(chunks: Buffer[], stepBytes?: number, pieceBytes?: number): LongLineResult {
  const parser = new LongLineParser({ stepBytes, pieceBytes });
  for (const chunk of chunks) parser.feed(chunk);
  return parser.end();
}

function assertLikeOracle(bytes: Buffer, got: LongLineResult): void {
  const want = oracle(bytes);
  if (typeof want === 'string')
    assert.equal(got.kind, want, `${got.kind === 'error' ? got.message : got.kind} for ${JSON.stringify(bytes.toString('utf8').slice(0, 200))}`);
  else {
    assert.equal(got.kind, 'value', got.kind === 'error' ? got.message : got.kind);
    assert.ok(
      sameJson((got as { value: unknown }).value, want.value),
      `not the value JSON.parse gives for ${JSON.stringify(bytes.toString('utf8').slice(0, 200))}`,
    );
  }
}

/**
 * Whether two parsed values are the same JSON, members in the same order; -0 is not 0. Without
 * recursion: the corpus holds values nested 20,000 deep, past assert.deepStrictEqual's stack.
 */
function sameJson(a: unknown, b: unknown): boolean {
  const pairs: [unknown, unknown][] = [[a, b]];
  while (pairs.length > 0) {
    const [x, y] = pairs.pop()!;
    if (typeof x !== 'object' || x === null || typeof y !== 'object' || y === null) {
      if (!Object.is(x, y)) return false;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y) || Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false;
    const keys = Object.keys(x);
    const otherKeys = Object.keys(y);
    if (keys.length !== otherKeys.length || keys.some((k, i) => k !== otherKeys[i])) return false;
    for (const k of keys) pairs.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
  }
  return true;
}

/** A deterministic choice from a seed, for the writer below. */
function chooser(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** JSON text for `value` written every way JSON allows: escapes chosen at random, whitespace between tokens. */
function write(value: unknown, pick: (n: number) => number): string {
  const ws = () => ['', '', ' ', '\t', '\r ', '  '][pick(6)]!;
  if (typeof value === 'string') {
    let out = '"';
    const u = (code: number) => {
      const hex = code.toString(16).padStart(4, '0');
      return `\\u${pick(2) ? hex : hex.toUpperCase()}`;
    };
    for (const point of value) {
      const how = pick(3);
      if (point.length === 2) out += how === 0 ? u(point.charCodeAt(0)) + u(point.charCodeAt(1)) : point;
      else {
        const code = point.charCodeAt(0);
        const mustEscape = code < 0x20 || point === '"' || point === '\\';
        if (how === 0 || (mustEscape && !SHORT_ESCAPES[point])) out += u(code);
        else if (how === 1 && SHORT_ESCAPES[point]) out += SHORT_ESCAPES[point];
        else out += mustEscape ? SHORT_ESCAPES[point] : point;
      }
    }
    return `${out}"`;
  }
  if (Array.isArray(value)) return `[${ws()}${value.map((v) => write(v, pick) + ws()).join(`,${ws()}`)}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${write(k, pick)}${ws()}:${ws()}${write(v, pick)}`);
    return `{${ws()}${members.join(`${ws()},${ws()}`)}${ws()}}`;
  }
  return JSON.stringify(value);
}

/** Text with every kind of character: ASCII, Latin-1, wider, astral pairs, lone surrogates, controls. */
const anyText = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x7f }),
      fc.integer({ min: 0x80, max: 0x7ff }),
      fc.integer({ min: 0x800, max: 0xffff }),
      fc.integer({ min: 0x10000, max: 0x10ffff }),
      fc.constantFrom(0x22, 0x5c, 0x2f, 0x0a, 0x00, 0x1f, 0xd83d, 0xde00, 0x2014, 0xfeff),
    ),
    { maxLength: 40 },
  )
  .map((codes) => codes.map((c) => (c >= 0xd800 && c <= 0xdfff ? String.fromCharCode(c) : String.fromCodePoint(c))).join(''));

const key = fc.oneof(anyText, fc.constantFrom('__proto__', 'constructor', 'toString', '0', '1', 'a', 'a'));
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyText,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.constantFrom(true, false, null, 0, -0, 1e300, 5e-324, 123456789012345680000),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map((pairs) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of pairs) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      return o;
    }),
  ),
})).value;

const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 });
const small = fc.integer({ min: 1, max: 9 });

describe('long lines: parsed as they arrive, like JSON.parse', function () {
  this.timeout(120_000);

  it('any JSON, written any way, cut anywhere, gives what JSON.parse gives', () => {
    fc.assert(
      fc.property(json, fc.integer(), cuts, small, small, (value, seed, at, step, piece) => {
        const bytes = Buffer.from(write(value, chooser(seed)), 'utf8');
        assertLikeOracle(bytes, parse(chunked(bytes, at), step, piece));
      }),
      { numRuns: 2000 },
    );
  });

  it('any bytes near JSON (mutated, truncated, invalid UTF-8, bad numbers and escapes) are read or refused as JSON.parse does', () => {
    const noise = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 4 }),
      fc.constantFrom(
        '"',
        '\\',
        '\\u',
        '\\ud83d',
        '\\x',
        ',',
        ':',
        '}',
        ']',
        '01',
        '1.',
        '-',
        '.5',
        '1e',
        '+1',
        '1e+',
        'tru',
        'nul',
        'nullx',
        '-0',
        '1E5',
        '\u00a0',
        '\u2028',
        '\x00',
        '\xff',
      ),
    );
    const mutation = fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(3), noise);
    fc.assert(
      fc.property(json, fc.integer(), fc.array(mutation, { minLength: 1, maxLength: 3 }), cuts, small, small, (value, seed, mutations, at, step, piece) => {
        let bytes = Buffer.from(write(value, chooser(seed)), 'utf8');
        for (const [where, drop, what] of mutations) {
          const i = Math.floor(where * bytes.length);
          const add = typeof what === 'string' ? Buffer.from(what, what.startsWith('\xff') ? 'latin1' : 'utf8') : Buffer.from(what);
          bytes = Buffer.concat([bytes.subarray(0, i), add, bytes.subarray(i + drop)]);
        }
        assertLikeOracle(bytes, parse(chunked(bytes, at), step, piece));
      }),
      { numRuns: 5000 },
    );
  });

  it('a surrogate pair written as escapes, and a four-byte character, cut at every byte', () => {
    for (const text of ['{"t":"a\\ud83d\\ude00b"}', '{"t":"a🐴b—é"}', '{"t":"\\u00e9\\"\\\\\\/\\n"}', '{"n":-12.5e-3,"t":true,"f":false,"z":null}']) {
      const bytes = Buffer.from(text, 'utf8');
      for (let i = 0; i <= bytes.length; i++) {
        for (let j = i; j <= bytes.length; j++) {
          const chunks = [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)];
          assert.deepStrictEqual(parse(chunks, undefined, 1), { kind: 'value', value: JSON.parse(text) as unknown }, `${text} cut at ${i}, ${j}`);
        }
      }
    }
  });

  it('a cut never splits a UTF-8 sequence that the next bytes could complete', () => {
    const dash = Buffer.from('a—', 'utf8'); // 61 e2 80 94
    assert.equal(utf8Cut(dash, 0, 2), 1, 'after the lead byte: before it');
    assert.equal(utf8Cut(dash, 0, 3), 1, 'after two of three: before the lead');
    assert.equal(utf8Cut(dash, 0, 4), 4, 'complete: at the end');
    assert.equal(utf8Cut(Buffer.from([0x80, 0x80, 0x80, 0x80]), 0, 4), 4, 'stray continuation bytes: anywhere');
    assert.equal(utf8Cut(Buffer.from([0xff]), 0, 1), 1, 'a byte that starts nothing: anywhere');
  });

  it('a 4 MiB line of wide text in 64 KiB reads, with the default pieces, is the value JSON.parse gives', () => {
    const content = 'const — "quoted" \\ line\n\t🐴 é'.repeat(120_000);
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { update: { content, n: [1, 2.5, -3e10] } } });
    const bytes = Buffer.from(text, 'utf8');
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 65_536) chunks.push(bytes.subarray(i, i + 65_536));
    const got = parse(chunks);
    assert.equal(got.kind, 'value');
    assert.deepStrictEqual((got as { value: unknown }).value, JSON.parse(text));
  });
});

describe('long lines through the reader', () => {
  /** Messages and skipped lines' first characters, with every line on the long path or none. */
  function read(chunks: Buffer[], longLineBytes: number | undefined) {
    const input = new PassThrough();
    const got = { messages: [] as Message[], skipped: [] as string[] };
    new NdjsonMessageReader(input, { onMalformedLine: (first) => got.skipped.push(first) }, undefined, longLineBytes).listen((m) => got.messages.push(m));
    for (const chunk of chunks) input.write(chunk);
    return got;
  }

  it('mutated frames cut anywhere: the long path delivers and skips the same lines as the short one', () => {
    fc.assert(
      fc.property(fc.array(mutatedFrame, { minLength: 1, maxLength: 12 }), cuts, fc.boolean(), (frames, at, bom) => {
        const stream = Buffer.concat(frames.flatMap((f, i) => [i === 0 && bom ? Buffer.from('\ufeff') : Buffer.alloc(0), f, Buffer.from('\n')]));
        const chunks = chunked(stream, at);
        const long = read(chunks, 1);
        const short = read(chunks, undefined);
        assert.deepEqual(long.skipped, short.skipped);
        assert.ok(sameJson(long.messages, short.messages), 'the same messages');
      }),
      { numRuns: 500 },
    );
  });

  it('at the default threshold: a 2 MiB line in 64 KiB writes is the message JSON.parse gives; a broken one is skipped, shown by its first 120 characters', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { content: 'é — x\n'.repeat(300_000) } });
    const bytes = Buffer.from(`${text}\n${text.slice(0, -1)}\n{"jsonrpc":"2.0","method":"after"}\n`, 'utf8');
    const reads: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 65_536) reads.push(bytes.subarray(i, i + 65_536));
    const got = read(reads, undefined);
    assert.equal(got.messages.length, 2);
    assert.ok(sameJson(got.messages[0], JSON.parse(text)), 'the long message');
    assert.equal((got.messages[1] as { method?: string }).method, 'after');
    assert.deepEqual(got.skipped, [text.slice(0, 120)]);
  });

  it('a byte-order mark before a long first line is dropped, as before a short one', () => {
    const line = Buffer.from(`\ufeff{"jsonrpc":"2.0","method":"m","params":{"t":"${'x'.repeat(100)}"}}\n`, 'utf8');
    const oneByOne = [...line].map((b) => Buffer.from([b]));
    const got = read(oneByOne, 8);
    assert.deepEqual(got.skipped, []);
    assert.equal(got.messages.length, 1);
  });
});
