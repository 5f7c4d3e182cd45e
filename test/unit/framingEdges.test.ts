// The framing's edges that the mutation run (npm run test:mutation) found untested: the size
// limit at exactly its value, text chunks, the carriage return, what the malformed-line hook
// is given, the stream's end, error and close, listeners removed on dispose, and the writer's
// errors and their count. Each test here killed mutants that survived framing.test.ts.
import * as assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import type { Message } from 'vscode-jsonrpc/node';
import { LineTooLargeError, NdjsonMessageReader, NdjsonMessageWriter } from '../../src/acp/framing';
import { nth } from '../support/helpers';

function reader(input: NodeJS.EventEmitter & PassThrough, maxLineBytes?: number) {
  const got = { messages: [] as Message[], malformed: [] as [string, string][], sizes: [] as number[], errors: [] as Error[], closed: 0 };
  const r = new NdjsonMessageReader(
    input,
    { onMalformedLine: (first, why) => got.malformed.push([first, why]), onMessage: (_m, bytes) => got.sizes.push(bytes) },
    maxLineBytes,
  );
  r.onError((e) => got.errors.push(e));
  r.onClose(() => got.closed++);
  const listening = r.listen((m) => got.messages.push(m));
  return { got, listening };
}

describe('ndjson framing: edges', () => {
  it('LineTooLargeError names itself and its limit', () => {
    const e = new LineTooLargeError(10);
    assert.equal(e.name, 'LineTooLargeError');
    assert.equal(e.limit, 10);
    assert.match(e.message, /larger than 10 bytes/);
  });

  it('a line of exactly the limit is read; one byte more closes the connection (in one chunk and across chunks)', () => {
    const line = '{"a":"xxxx"}'; // 12 bytes
    for (const split of [false, true]) {
      const ok = new PassThrough();
      const a = reader(ok, 12);
      if (split) {
        ok.write(line.slice(0, 12));
        ok.write('\n');
      } else ok.write(`${line}\n`);
      assert.equal(a.got.messages.length, 1, `at the limit (split ${split})`);
      assert.equal(a.got.errors.length, 0);

      const big = new PassThrough();
      const b = reader(big, 11);
      if (split) big.write(line.slice(0, 12));
      else big.write(`${line}\n`);
      assert.equal(b.got.errors.length, 1, `over the limit (split ${split})`);
      assert.ok(b.got.errors[0] instanceof LineTooLargeError);
      assert.equal(b.got.closed, 1);
      // Closed: nothing more is read, even a valid line.
      big.write('{"b":1}\n');
      assert.equal(b.got.messages.length, 0);
    }
  });

  it('a line too large in the middle of a chunk stops the rest of that chunk', () => {
    const input = new PassThrough();
    const r = reader(input, 8);
    input.write('{"a":1}\n{"toolong":1}\n{"b":2}\n');
    assert.equal(r.got.messages.length, 1);
    assert.equal(r.got.errors.length, 1);
  });

  it('text chunks (a stream with an encoding) are read as bytes are', () => {
    const input = new PassThrough();
    const r = reader(input);
    input.emit('data', '{"t":"héllo"}\n{"u":');
    input.emit('data', '2}\n');
    assert.deepEqual(r.got.messages, [{ t: 'héllo' }, { u: 2 }]);
  });

  it('CRLF: the carriage return is not part of the line (sizes, the malformed line shown)', () => {
    const input = new PassThrough();
    const r = reader(input);
    input.write('{"a":1}\r\n"x"\r\n\r\n');
    assert.deepEqual(r.got.sizes, [7]);
    assert.deepEqual(r.got.malformed, [['"x"', 'not a JSON object']]);
  });

  it('the malformed-line hook gets the first 120 characters and the reason; non-objects are malformed', () => {
    const input = new PassThrough();
    const r = reader(input);
    const long = `{${'y'.repeat(200)}`;
    input.write(`${long}\n[1]\nnull\n42\n`);
    assert.equal(r.got.malformed.length, 4);
    const [first, why] = nth(r.got.malformed, 0, 'the malformed lines');
    assert.equal(first, long.slice(0, 120));
    assert.match(why, /JSON/);
    assert.deepEqual(
      r.got.malformed.slice(1).map(([first, why]) => [first, why]),
      [
        ['[1]', 'not a JSON object'],
        ['null', 'not a JSON object'],
        ['42', 'not a JSON object'],
      ],
    );
    assert.equal(r.got.messages.length, 0);
  });

  it('a non-object line is shown by its first 120 characters; a reader without hooks skips bad lines quietly', () => {
    const input = new PassThrough();
    const r = reader(input);
    const str = `"${'z'.repeat(200)}"`;
    input.write(`${str}\n`);
    assert.deepEqual(r.got.malformed, [[str.slice(0, 120), 'not a JSON object']]);

    const bare = new PassThrough();
    const messages: Message[] = [];
    new NdjsonMessageReader(bare).listen((m) => messages.push(m));
    assert.doesNotThrow(() => bare.write('{bad\n[1]\n{"a":1}\n'));
    assert.equal(messages.length, 1);
  });

  it('the stream ending alone closes the connection', () => {
    const input = new PassThrough();
    const r = reader(input);
    input.emit('end');
    assert.equal(r.got.closed, 1);
  });

  it('the stream ending, closing or failing reaches the connection; end then close closes once', () => {
    const ended = new PassThrough();
    const a = reader(ended);
    ended.emit('end');
    ended.emit('close');
    assert.equal(a.got.closed, 1);

    const closed = new PassThrough();
    const b = reader(closed);
    closed.emit('close');
    assert.equal(b.got.closed, 1);

    const failing = new PassThrough();
    const c = reader(failing);
    failing.emit('error', new Error('EPIPE'));
    assert.deepEqual(
      c.got.errors.map((e) => e.message),
      ['EPIPE'],
    );
  });

  it('dispose removes every listener it added and stops delivery', () => {
    const input = new PassThrough();
    const before = ['data', 'end', 'close', 'error'].map((e) => input.listenerCount(e));
    const r = reader(input);
    r.listening.dispose();
    assert.deepEqual(
      ['data', 'end', 'close', 'error'].map((e) => input.listenerCount(e)),
      before,
    );
    input.emit('data', Buffer.from('{"a":1}\n'));
    assert.equal(r.got.messages.length, 0);
  });
});

describe('ndjson framing: writer edges', () => {
  it('writes each message as one line and tells the hook its size', async () => {
    const chunks: string[] = [];
    const sizes: number[] = [];
    const out = new Writable({ write: (c: Buffer, _e, cb) => (chunks.push(c.toString('utf8')), cb()) });
    const w = new NdjsonMessageWriter(out, { onMessage: (_m, bytes) => sizes.push(bytes) });
    await w.write({ jsonrpc: '2.0', method: 'é' } as Message);
    assert.deepEqual(chunks, ['{"jsonrpc":"2.0","method":"é"}\n']);
    assert.deepEqual(sizes, [31]);
  });

  it('writes to a closed stdin fail with the reason, counted 1, 2, …', async () => {
    const out = new PassThrough();
    const w = new NdjsonMessageWriter(out);
    const errors: [Error, Message | undefined, number | undefined][] = [];
    w.onError((e) => errors.push(e));
    out.end();
    const m = { jsonrpc: '2.0', method: 'x' } as Message;
    await assert.rejects(w.write(m), /the agent's stdin is closed/);
    await assert.rejects(w.write(m), /stdin is closed/);
    assert.deepEqual(
      errors.map(([e, msg, n]) => [e.message, msg, n]),
      [
        ["the agent's stdin is closed", m, 1],
        ["the agent's stdin is closed", m, 2],
      ],
    );
  });

  it('a failed write rejects and is counted; the stream erroring or closing reaches the connection', async () => {
    const out = new Writable({ write: (_c, _e, cb) => cb(new Error('EPIPE')) });
    out.on('error', () => undefined); // the writer's own listener records it
    const w = new NdjsonMessageWriter(out);
    const errors: [Error, Message | undefined, number | undefined][] = [];
    let closed = 0;
    w.onError((e) => errors.push(e));
    w.onClose(() => closed++);
    const m = { jsonrpc: '2.0', method: 'x' } as Message;
    await assert.rejects(w.write(m), /EPIPE/);
    assert.ok(errors.some(([e, msg, n]) => e.message === 'EPIPE' && msg === m && n === 1));
    // The stream closing (here after the failure destroyed it) reaches the connection.
    assert.equal(closed, 1);
    const other = new PassThrough();
    const w2 = new NdjsonMessageWriter(other);
    let closed2 = 0;
    w2.onClose(() => closed2++);
    (other as EventEmitter).emit('close');
    assert.equal(closed2, 1);
  });

  it("the output stream's own error reaches the connection", () => {
    const out = new PassThrough();
    const w = new NdjsonMessageWriter(out);
    const errors: Error[] = [];
    w.onError(([e]) => errors.push(e));
    out.emit('error', new Error('EBADF'));
    assert.deepEqual(
      errors.map((e) => e.message),
      ['EBADF'],
    );
  });

  it('end() ends the output', () => {
    const out = new PassThrough();
    new NdjsonMessageWriter(out).end();
    assert.equal(out.writableEnded, true);
  });
});
