// The long run of the framing fuzz (npm run test:reliability): 100,000 mutated frames through a
// real AcpConnection at trace `verbose` (the level that walks every payload) and 100,000 at
// `off` (the default). Each bad line is logged once and skipped, each message is delivered,
// nothing throws out of the read loop, and the connection still reads afterwards. About 90 s
// of CPU for both levels (9 minutes of wall time on the 2 shared cores under load).
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import type { TraceLevel } from '../../src/acp/trace';
import { expected, mutatedFrame, pipeConnection, settle, SKIPPED } from '../support/frameFuzz';

const FRAMES = 100_000;
const PER_RUN = 100;

for (const level of ['verbose', 'off'] as TraceLevel[]) {
  describe(`reliability: ${FRAMES.toLocaleString('en')} mutated frames at trace ${level}`, () => {
    it('each bad one logged once and skipped, the rest delivered, nothing thrown, the connection goes on', async () => {
      const tally = { message: 0, skipped: 0, blank: 0 };
      const started = Date.now();
      // A fixed seed: the same frames every run, so a failure is reproducible and the counts are comparable.
      await fc.assert(
        fc.asyncProperty(fc.array(mutatedFrame, { minLength: PER_RUN, maxLength: PER_RUN }), async (frames) => {
          const { conn, agentWrites, log, updates } = pipeConnection(level);
          for (const frame of frames) agentWrites.write(Buffer.concat([frame, Buffer.from('\n')]));
          await settle(frames.length);
          const outcomes = frames.map(expected);
          for (const o of outcomes) tally[o]++;
          assert.equal(log.lines.filter((l) => SKIPPED.test(l)).length, outcomes.filter((o) => o === 'skipped').length);
          const before = updates.length;
          agentWrites.write('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}\n');
          await settle();
          assert.equal(updates.length, before + 1);
          assert.equal(conn.isClosed, false);
          conn.dispose();
        }),
        { numRuns: FRAMES / PER_RUN, seed: 12 },
      );
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      console.log(
        `      ${FRAMES} frames at ${level} in ${seconds} s: ${tally.message} delivered, ${tally.skipped} skipped (one warning each), ${tally.blank} blank; 0 thrown`,
      );
      assert.equal(tally.message + tally.skipped + tally.blank, FRAMES);
    });
  });
}
