// Backpressure on the agent's stdout (src/acp/readFlow.ts) through a real pipe: the scripted agent
// floods chunks as fast as it can; the connection's reading pauses while too many wait to be
// handled, and every chunk still arrives once, in order.
//
// Sabotage notes (each guard removed by hand once, this file run, what it printed):
// - No pause (ReadFlow.queued() never calling input.pause()): "small limits" printed
//   "AssertionError: the reading never paused: 0 > 0" (every chunk still arrived).
// - The connection not counting what it handled (the messageStrategy's flow.handled() dropped):
//   "small limits" printed "the stall guard resumed the reading: warn reading the agent's output
//   resumed after 1000 ms with nothing handled, 146 messages (23987 bytes) counted as waiting",
//   and the default limits' test failed too; the chunks still came (the guard: no deadlock).
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentProcess } from '../../src/acp/agentProcess';
import { AcpConnection } from '../../src/acp/connection';
import { DEFAULT_FLOW_LIMITS, type FlowLimits } from '../../src/acp/readFlow';
import { MemoryLogger } from '../../src/util/logger';

const repo = path.resolve(__dirname, '../../..');

/** "c0 c1 … c(n-1) ": what the flood's first n chunks read as. */
function chunks(n: number): string {
  let text = '';
  for (let i = 0; i < n; i++) text += `c${i} `;
  return text;
}

async function flood(count: number, flow: FlowLimits) {
  const log = new MemoryLogger();
  // As fast as the agent can: all its chunks are due at once.
  const scenario = { prompts: [{ steps: [{ flood: { count, perSecond: 1e9 } }] }] };
  const proc = new AgentProcess(
    {
      command: process.execPath,
      args: [path.join(repo, 'dist/scripted-agent.js'), '--scenario-json', JSON.stringify(scenario)],
      cwd: mkdtempSync(path.join(tmpdir(), 'reins-flow-')),
    },
    log,
  );
  let text = '';
  let updates = 0;
  const conn = new AcpConnection(
    proc,
    {
      sessionUpdate(n) {
        updates++;
        const c = n.update.sessionUpdate === 'agent_message_chunk' ? n.update.content : undefined;
        if (c?.type === 'text') text += c.text;
      },
      requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
    },
    log,
    { flow },
  );
  let pauses = 0;
  proc.stdout.on('pause', () => pauses++);
  try {
    await conn.initialize({ protocolVersion: 1 }, 10_000);
    const { sessionId } = await conn.newSession({ cwd: '/', mcpServers: [] }, 10_000);
    const answer = await conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'go' }] });
    return { answer, text, updates, pauses, warnings: log.lines.filter((l) => l.startsWith('warn')) };
  } finally {
    conn.dispose();
    await proc.end();
  }
}

describe('read flow: the agent floods, reading pauses, nothing is lost', function () {
  this.timeout(60_000);

  it('small limits: paused many times, drained by what is handled, every chunk once and in order', async () => {
    const n = 20_000;
    const got = await flood(n, { maxMessages: 50, maxBytes: 64 * 1024, resumeShare: 0.25, stallMs: 1_000 });
    assert.equal(got.answer.stopReason, 'end_turn');
    assert.equal(got.updates, n);
    assert.ok(got.text === chunks(n), 'the answer differs from the flood');
    assert.ok(got.pauses > 0, `the reading never paused: ${got.pauses} > 0`);
    const stalled = got.warnings.filter((w) => w.includes('resumed after'));
    assert.deepEqual(stalled, [], `the stall guard resumed the reading: ${stalled[0]}`);
  });

  it('the default limits: every chunk once and in order', async () => {
    const n = 50_000;
    const got = await flood(n, DEFAULT_FLOW_LIMITS);
    assert.equal(got.answer.stopReason, 'end_turn');
    assert.equal(got.updates, n);
    assert.ok(got.text === chunks(n), 'the answer differs from the flood');
  });
});
