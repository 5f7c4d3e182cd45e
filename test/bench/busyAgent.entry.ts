// A goose-like agent for the busy-retry benchmark (test/bench/busy.ts), Node built-ins only.
// Its earlier run stays active for T ms from the first prompt: until then every prompt is
// rejected as goose rejects it (-32602, "session already has active run"); when the run clears
// it says so (session_info_update, _meta.goose.activeRunId: null) if asked to. It stamps when
// the run cleared and when a prompt got through, counts the cancels, and writes them to a file.
//   node busyAgent.entry.js <T ms> <idle signal: 1|0> <result file>
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { present } from '../support/helpers';

const [clearAfterMs, idleSignal, resultFile] = [Number(process.argv[2]), process.argv[3] === '1', present(process.argv[4], 'the result file (argument 3)')];
const wall = () => performance.timeOrigin + performance.now();
const send = (msg: object) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');

let clearsAt: number | undefined;
let clearedAt: number | undefined;
let cancels = 0;
let rejections = 0;

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line) as { id?: number; method?: string; params?: { sessionId?: string } };
  switch (msg.method) {
    case 'initialize':
      return send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    case 'session/new':
      return send({ id: msg.id, result: { sessionId: 'bench-1' } });
    case 'session/cancel':
      cancels++;
      return;
    case 'session/prompt': {
      const now = wall();
      if (clearsAt === undefined) {
        clearsAt = now + clearAfterMs;
        setTimeout(() => {
          clearedAt = wall();
          if (idleSignal)
            send({
              method: 'session/update',
              params: { sessionId: 'bench-1', update: { sessionUpdate: 'session_info_update', _meta: { goose: { activeRunId: null } } } },
            });
        }, clearAfterMs);
      }
      if (clearedAt === undefined) {
        rejections++;
        return send({
          id: msg.id,
          error: { code: -32602, message: 'Invalid params', data: 'session already has active run `run_1`; use _goose/unstable/session/steer' },
        });
      }
      writeFileSync(resultFile, JSON.stringify({ clearedAt, acceptedAt: now, cancels, rejections }));
      return send({ id: msg.id, result: { stopReason: 'end_turn' } });
    }
    default:
      if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
});
