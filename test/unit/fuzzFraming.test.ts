// Property tests of the reader and the connection above it (fast-check): any chunking of a valid
// stream gives the same messages; random and mutated bytes never throw out of the reader at any
// trace level, each bad line is logged once and skipped, and the connection goes on. The
// 100,000-frame run of the same property is in test/reliability/frames.test.ts.
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { PassThrough } from 'node:stream';
import type { Message } from 'vscode-jsonrpc/node';
import { NdjsonMessageReader } from '../../src/acp/framing';
import type { TraceLevel } from '../../src/acp/trace';
import { waitFor } from '../support/helpers';
import { chunked, expected, mutatedFrame, pipeConnection, settle, SKIPPED } from '../support/frameFuzz';

const LEVELS: TraceLevel[] = ['off', 'messages', 'verbose'];

/** A JSON-RPC message as an agent might write it, with any JSON in its params. */
const message = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.option(fc.oneof(fc.integer(), fc.string()), { nil: undefined }),
  method: fc.string({ unit: 'grapheme', maxLength: 20 }),
  params: fc.jsonValue({ maxDepth: 4 }),
});

describe('fuzz: framing', function () {
  this.timeout(120_000);

  it('any chunking of a valid stream (cut inside UTF-8 sequences too) yields the same messages', () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 12 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 30 }),
        fc.boolean(),
        (messages, cuts, crlf) => {
          const lines = messages.map((m) => JSON.stringify(m));
          const stream = Buffer.from(lines.map((l) => l + (crlf ? '\r\n' : '\n')).join(''), 'utf8');
          const input = new PassThrough();
          const got: Message[] = [];
          new NdjsonMessageReader(input).listen((m) => got.push(m));
          for (const chunk of chunked(stream, cuts)) input.write(chunk);
          assert.deepEqual(
            got,
            lines.map((l) => JSON.parse(l) as Message),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  // Sabotage (trace.ts as it was before boundedJson): at off and messages "Property failed after
  // 2 tests … Caused by: TypeError: Cannot convert object to primitive value" (an id that is an
  // object, String(m.id)); at verbose "Caused by: RangeError: Maximum call stack size exceeded"
  // (JSON.stringify of a deep payload) — both thrown out of agentWrites.write, i.e. the read loop.
  for (const level of LEVELS) {
    it(`mutated frames at trace ${level}: nothing throws, each bad line is logged once and skipped, each message traced once, the connection goes on`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(mutatedFrame, { minLength: 1, maxLength: 40 }),
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 10 }),
          async (frames, cuts) => {
            const { conn, agentWrites, log, updates } = pipeConnection(level);
            const stream = Buffer.concat(frames.flatMap((f) => [f, Buffer.from('\n')]));
            for (const chunk of chunked(stream, cuts)) agentWrites.write(chunk);
            await settle(frames.length);
            const outcomes = frames.map(expected);
            const skipped = log.lines.filter((l) => SKIPPED.test(l)).length;
            assert.equal(skipped, outcomes.filter((o) => o === 'skipped').length, 'one warning per bad line');
            if (level !== 'off') {
              const traced = log.lines.filter((l) => l.startsWith('info ← ')).length;
              assert.equal(traced, outcomes.filter((o) => o === 'message').length, 'one trace line per message');
            }
            // Still reading: a valid update after the garbage is handled.
            const before = updates.length;
            agentWrites.write(
              '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"after"}}}}\n',
            );
            await settle();
            assert.equal(updates.length, before + 1, 'the update after the mutated frames was handled');
            assert.equal(conn.isClosed, false);
            conn.dispose();
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('random bytes at every trace level: nothing throws out of the reader', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...LEVELS), fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 20 }), async (level, chunks) => {
        const { conn, agentWrites } = pipeConnection(level);
        for (const chunk of chunks) agentWrites.write(chunk);
        agentWrites.write('\n');
        await settle(50);
        conn.dispose();
      }),
      { numRuns: 200 },
    );
  });

  it('a line over the size limit closes the connection with the error that says so, whatever came before', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutatedFrame, { maxLength: 5 }), async (frames) => {
        const { conn, agentWrites, exited } = pipeConnection('verbose', 64 * 1024);
        for (const f of frames) agentWrites.write(Buffer.concat([f, Buffer.from('\n')]));
        agentWrites.write(`{"jsonrpc":"2.0","method":"x","params":"${'y'.repeat(70 * 1024)}"}\n`);
        // The runtime ends the agent once its connection closes: its exit comes, or the
        // connection would wait half a second a run for an exit status to name.
        // Without the size limit (framing.ts's two tooLarge calls removed): "Property failed after
        // 1 tests … Caused by: Error: timed out after 5000 ms waiting for the connection to close".
        await waitFor('the connection to close', () => conn.isClosed, 5000);
        exited.resolve({ code: null, signal: 'SIGTERM', stderrTail: [], at: Date.now() });
        const closed = await conn.closed;
        assert.equal(closed.cause, 'line-too-large');
        assert.match(closed.detail, /larger than 65536 bytes; the connection was closed/);
      }),
      { numRuns: 20 },
    );
  });
});
