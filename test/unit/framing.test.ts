import * as assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import type { Message } from 'vscode-jsonrpc/node';
import { LineTooLargeError, NdjsonMessageReader, NdjsonMessageWriter } from '../../src/acp/framing';

function collect(input: PassThrough, maxLineBytes?: number) {
  const messages: Message[] = [];
  const malformed: string[] = [];
  const errors: Error[] = [];
  let closed = 0;
  const reader = new NdjsonMessageReader(input, { onMalformedLine: (first) => malformed.push(first) }, maxLineBytes);
  reader.onError((e) => errors.push(e));
  reader.onClose(() => closed++);
  reader.listen((m) => messages.push(m));
  return { messages, malformed, errors, closed: () => closed };
}

describe('ndjson framing: reader', () => {
  it('reads several messages from one chunk and one message from several chunks', () => {
    const input = new PassThrough();
    const got = collect(input);
    input.write('{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":');
    assert.equal(got.messages.length, 2);
    input.write('"2.0","method":"b"}\n');
    assert.deepEqual(
      got.messages.map((m) => (m as { method?: string }).method),
      [undefined, 'a', 'b'],
    );
  });

  it('keeps a UTF-8 character that is split across chunks whole', () => {
    const input = new PassThrough();
    const got = collect(input);
    const bytes = Buffer.from('{"jsonrpc":"2.0","method":"m","params":{"t":"héllo — 🐴"}}\n', 'utf8');
    const horse = bytes.indexOf(Buffer.from('🐴'));
    // Split inside the 4-byte horse and inside the 2-byte é.
    const cuts = [bytes.indexOf(Buffer.from('é')) + 1, horse + 2, bytes.length];
    let from = 0;
    for (const cut of cuts) {
      input.write(bytes.subarray(from, cut));
      from = cut;
    }
    assert.equal((got.messages[0] as unknown as { params: { t: string } }).params.t, 'héllo — 🐴');
  });

  it('skips blank lines and CRLF endings', () => {
    const input = new PassThrough();
    const got = collect(input);
    input.write('\n\r\n{"jsonrpc":"2.0","method":"x"}\r\n  \n');
    assert.equal(got.messages.length, 1);
    assert.equal(got.malformed.length, 0);
  });

  it('skips a line that is not JSON (reporting its first bytes) and goes on', () => {
    const input = new PassThrough();
    const got = collect(input);
    input.write('Starting agent v1.2…\n[1, 2]\n{"jsonrpc":"2.0","method":"after"}\n');
    assert.deepEqual(got.malformed, ['Starting agent v1.2…', '[1, 2]']);
    assert.equal(got.messages.length, 1);
    assert.equal(got.closed(), 0);
  });

  // Sabotage (the mark not stripped in NdjsonMessageReader.handleLine), this printed:
  //   AssertionError: Expected values to be strictly deep-equal: + actual - expected
  //   + [ '\ufeff{"jsonrpc":"2.0","id":0,"result":{"method":"initialize"}}', … ] (both lines skipped as malformed)
  it('reads a line that starts with a UTF-8 byte-order mark (the mark is dropped)', () => {
    const input = new PassThrough();
    const got = collect(input);
    input.write(Buffer.concat([Buffer.from([0xef, 0xbb]), Buffer.from([0xbf]), Buffer.from('{"jsonrpc":"2.0","id":0,"result":{"method":"initialize"}}\n')]));
    input.write('\ufeff{"jsonrpc":"2.0","method":"after"}\n');
    assert.deepEqual(got.malformed, []);
    assert.deepEqual(
      got.messages.map((m) => {
        const { method, result } = m as unknown as { method?: string; result?: { method: string } };
        return method ?? result?.method;
      }),
      ['initialize', 'after'],
    );
  });

  it('reads a long line gathered from many small reads, a character cut at each read', () => {
    const input = new PassThrough();
    const got = collect(input);
    const text = 'é🐴日'.repeat(20_000);
    const bytes = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'long', params: { text } }) + '\n{"jsonrpc":"2.0","method":"next"}\n', 'utf8');
    for (let i = 0; i < bytes.length; i += 1001) input.write(bytes.subarray(i, i + 1001));
    assert.equal(got.messages.length, 2);
    assert.equal((got.messages[0] as unknown as { params: { text: string } }).params.text, text);
    assert.equal((got.messages[1] as { method?: string }).method, 'next');
  });

  it('closes with a clear error when a line exceeds the limit, even before its newline', () => {
    const input = new PassThrough();
    const got = collect(input, 1000);
    input.write('{"jsonrpc":"2.0","method":"big","params":"' + 'x'.repeat(2000));
    assert.equal(got.errors.length, 1);
    assert.ok(got.errors[0] instanceof LineTooLargeError);
    assert.match(got.errors[0].message, /larger than 1000 bytes/);
    assert.equal(got.closed(), 1);
    input.write('"}\n{"jsonrpc":"2.0","method":"after"}\n');
    assert.equal(got.messages.length, 0, 'nothing is read after the connection closed');
  });

  it('fires close once when the stream ends', () => {
    const input = new PassThrough();
    const got = collect(input);
    input.end();
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        assert.equal(got.closed(), 1);
        resolve();
      }),
    );
  });
});

describe('ndjson framing: writer', () => {
  it('writes one line per message, in order, even when the stream is slow', async () => {
    const chunks: string[] = [];
    const slow = new Writable({
      highWaterMark: 1,
      write(chunk, _enc, done) {
        setTimeout(() => {
          chunks.push(String(chunk));
          done();
        }, Math.random() * 5);
      },
    });
    const writer = new NdjsonMessageWriter(slow);
    await Promise.all(Array.from({ length: 50 }, (_, i) => writer.write({ jsonrpc: '2.0', method: `m${i}` } as Message)));
    const lines = chunks.join('').split('\n').filter(Boolean);
    assert.equal(lines.length, 50);
    assert.deepEqual(
      lines.map((l) => JSON.parse(l).method),
      Array.from({ length: 50 }, (_, i) => `m${i}`),
    );
    assert.ok(chunks.every((c) => c.endsWith('\n') && !c.slice(0, -1).includes('\n')));
  });

  // Sabotage (write() always chaining on its queue, as before): the cancel reached the stream a
  // microtask late, after the caller's synchronous work, and this printed:
  //   AssertionError [ERR_ASSERTION]: … Expected values to be strictly deep-equal: [] !== ['session/cancel']
  it('hands a message to the stream before write() returns when nothing is waiting (a cancel is not held back)', async () => {
    const written: string[] = [];
    const out = new Writable({
      write(chunk, _enc, done) {
        written.push(JSON.parse(String(chunk)).method);
        done();
      },
    });
    const writer = new NdjsonMessageWriter(out);
    const sent = writer.write({ jsonrpc: '2.0', method: 'session/cancel' } as Message);
    assert.deepEqual(written, ['session/cancel'], 'the cancel was on the stream when write() returned');
    await sent;
    // Once that write is done the writer is idle again: the next message also goes at once.
    await Promise.resolve();
    void writer.write({ jsonrpc: '2.0', method: 'session/prompt' } as Message);
    assert.deepEqual(written, ['session/cancel', 'session/prompt']);
  });

  it('rejects a write after the stream ended and reports the error', async () => {
    const out = new PassThrough();
    const writer = new NdjsonMessageWriter(out);
    const errors: unknown[] = [];
    writer.onError((e) => errors.push(e));
    out.end();
    await assert.rejects(writer.write({ jsonrpc: '2.0', method: 'late' } as Message), /stdin is closed/);
    assert.equal(errors.length, 1);
  });
});
