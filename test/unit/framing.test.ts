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
    assert.deepEqual(got.messages.map((m) => (m as { method?: string }).method), [undefined, 'a', 'b']);
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
    assert.deepEqual(lines.map((l) => JSON.parse(l).method), Array.from({ length: 50 }, (_, i) => `m${i}`));
    assert.ok(chunks.every((c) => c.endsWith('\n') && !c.slice(0, -1).includes('\n')));
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
