// The terminal output buffer (ACP outputByteLimit): kept within the limit by dropping from the
// start at a character boundary, `truncated` once anything was dropped, the exit status once
// the command exited. Pure: bytes in, text out.
import * as assert from 'node:assert/strict';
import { charBoundaryFrom, OutputBuffer } from '../../src/acp/clientMethods/outputBuffer';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('terminal output buffer', () => {
  it('keeps everything under the limit, untruncated, with no exit status while running', () => {
    const b = new OutputBuffer(100);
    b.write(Buffer.from('hello '));
    b.write(Buffer.from('world\n'));
    assert.deepEqual(b.snapshot(), { output: 'hello world\n', truncated: false });
  });

  it('counts every byte written, dropped or kept (what the card says it left out)', () => {
    const b = new OutputBuffer(10);
    for (const line of ['line 1\n', 'line €\n', 'line 3\n']) b.write(Buffer.from(line));
    assert.equal(b.written, 23);
    assert.equal(b.size, 8, 'kept: the end, from a character boundary');
  });

  it('drops the oldest output to stay within the limit, and says so', () => {
    const b = new OutputBuffer(10);
    for (const line of ['line 1\n', 'line 2\n', 'line 3\n']) b.write(Buffer.from(line));
    const { output, truncated } = b.snapshot();
    assert.equal(output, ' 2\nline 3\n');
    assert.equal(bytes(output), 10);
    assert.equal(truncated, true);
  });

  // Sabotage (charBoundaryFrom returning `at` unchanged: a cut inside "€"), this test printed:
  // AssertionError: the kept text starts with a replacement character: "�" (limit 1)
  it('cuts multi-byte text at a character boundary, keeping a little less rather than half a character', () => {
    // "é" is 2 bytes, "€" 3, "𝄞" 4 (a surrogate pair in JavaScript).
    const text = 'é€𝄞'.repeat(20);
    for (let limit = 0; limit <= 40; limit++) {
      const b = new OutputBuffer(limit);
      b.write(Buffer.from(text, 'utf8'));
      const { output, truncated } = b.snapshot();
      assert.ok(!output.includes('\ufffd'), `the kept text starts with a replacement character: ${JSON.stringify(output.slice(0, 3))} (limit ${limit})`);
      assert.ok(bytes(output) <= limit, `kept ${bytes(output)} bytes, limit ${limit}`);
      assert.ok(bytes(output) > limit - 4, `kept ${bytes(output)} bytes: at most one character (4 bytes) less than the limit ${limit}`);
      assert.ok(text.endsWith(output), 'the kept text is the end of the output');
      assert.equal(truncated, true);
    }
  });

  it('joins a character split across two reads instead of showing it broken', () => {
    const b = new OutputBuffer(100);
    const euro = Buffer.from('a€b', 'utf8'); // 61 e2 82 ac 62
    b.write(euro.subarray(0, 2));
    assert.equal(b.snapshot().output, 'a', 'the first byte of € waits for the rest');
    b.write(euro.subarray(2));
    assert.equal(b.snapshot().output, 'a€b');
  });

  it('cuts across many small reads (only the oldest chunk is cut)', () => {
    const b = new OutputBuffer(7);
    for (const ch of 'xxxxxxxxxx€€') b.write(Buffer.from(ch, 'utf8'));
    assert.equal(b.snapshot().output, 'x€€'); // 1 + 3 + 3 bytes
    b.write(Buffer.from('é', 'utf8'));
    assert.equal(b.snapshot().output, '€é', '9 bytes would not fit: "x" and the first "€" go');
  });

  it('a limit of 0 keeps nothing but still says output was dropped', () => {
    const b = new OutputBuffer(0);
    b.write(Buffer.from('anything'));
    assert.deepEqual(b.snapshot(), { output: '', truncated: true });
  });

  it('reports the exit status once exited, a signal as such; a cut-short character at the end becomes U+FFFD', () => {
    const b = new OutputBuffer(100);
    b.write(Buffer.from([0x6f, 0x6b, 0xe2, 0x82])); // "ok" and two of €'s three bytes
    b.finish({ exitCode: null, signal: 'SIGTERM' });
    assert.deepEqual(b.snapshot(), { output: 'ok\ufffd', truncated: false, exitStatus: { exitCode: null, signal: 'SIGTERM' } });
    b.finish({ exitCode: 0, signal: null });
    assert.deepEqual(b.snapshot().exitStatus, { exitCode: null, signal: 'SIGTERM' }, 'the first exit status stays');
  });

  it('invalid UTF-8 becomes U+FFFD and still stays within the limit', () => {
    const b = new OutputBuffer(5);
    b.write(Buffer.from([0xff, 0xfe, 0x41])); // two invalid bytes (3 bytes each as U+FFFD) and "A"
    const { output } = b.snapshot();
    assert.ok(bytes(output) <= 5, `${bytes(output)} bytes`);
    assert.equal(output, '\ufffdA');
  });

  it('the panel tail is cut at a character boundary too, across reads', () => {
    const b = new OutputBuffer(1000);
    b.write(Buffer.from('€€€€'));
    assert.equal(b.tail(7), '€€');
    assert.equal(b.tail(100), '€€€€');
    for (const s of ['ab', 'é', 'cd']) b.write(Buffer.from(s));
    assert.equal(b.tail(5), 'bécd');
    assert.equal(b.tail(4), 'écd');
    assert.equal(b.tail(3), 'cd', 'the newest 3 bytes start inside "é"');
    assert.equal(b.truncated, false);
  });

  it('charBoundaryFrom skips continuation bytes only', () => {
    const buf = Buffer.from('a€b', 'utf8');
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((i) => charBoundaryFrom(buf, i)),
      [0, 1, 4, 4, 4, 5],
    );
  });

  it('refuses a limit that is not a whole number of bytes', () => {
    assert.throws(() => new OutputBuffer(-1), RangeError);
    assert.throws(() => new OutputBuffer(1.5), RangeError);
  });
});
