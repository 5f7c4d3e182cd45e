// The scripted agent's faults (src/demoAgent/faults.ts), which the fault matrix
// (test/integration/faultMatrix.test.ts) relies on: `kill` ends the process with SIGKILL at the
// point, `hang` leaves it alive and silent, the `once` marker makes the next process healthy,
// and `armed` holds the fault back until its file exists.
// Build first: node scripts/esbuild.mjs --tests (it bundles dist/scripted-agent.js).
//
// Sabotage (done once by hand, then restored): without the keep-alive timer in injectFault, the
// hung agent exited by itself (a paused stdin and a pending promise keep nothing alive) and
// "a hung agent stays alive and silent" printed `AssertionError: the hung agent is still running`
// — in the host that exit was taken as evidence and a hang cell reported agent-exited.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { events, firstEvent, readRecord } from '../fixtures/scriptedAgent/records';
import { alive, sleep, waitFor } from '../support/helpers';

const AGENT = path.resolve(__dirname, '../../../dist/scripted-agent.js');
const dir = mkdtempSync(path.join(tmpdir(), 'reins-faults-unit-'));
let count = 0;

interface Run {
  child: ChildProcess;
  record: string;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(scenario: object): Run {
  const record = path.join(dir, `agent-${++count}.jsonl`);
  const child = spawn(process.execPath, [AGENT, '--scenario-json', JSON.stringify(scenario), '--record', record], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines: string[] = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, record, lines, exited };
}

const initialize = (run: Run) => run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } })}\n`);

describe('scripted agent: faults', function () {
  this.timeout(20_000);

  it('kill at initialize: SIGKILL, no answer', async () => {
    const run = start({ fault: { initialize: 'kill' }, prompts: [{ steps: [] }] });
    initialize(run);
    const { signal } = await run.exited;
    assert.equal(signal, 'SIGKILL');
    assert.equal(run.lines.length, 0, 'nothing answered');
    assert.equal(firstEvent(readRecord(run.record), 'fault')?.at, 'initialize');
  });

  it('a hung agent stays alive and silent (hung while its permission request waits)', async () => {
    const run = start({ prompts: [{ steps: [{ fault: 'hang', inMs: 300 }, { permission: { toolCallId: 'p', title: 'Run `make`' } }, { hang: true }] }] });
    initialize(run);
    run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: dir, mcpServers: [] } })}\n`);
    await waitFor('the session', () => run.lines.length >= 2);
    run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 'sess-1', prompt: [] } })}\n`);
    await waitFor('the fault', () => events(readRecord(run.record), 'fault').length === 1);
    const before = run.lines.length;
    run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'sess-1' } })}\n`);
    await sleep(1500);
    assert.ok(alive(run.child.pid!), 'the hung agent is still running');
    assert.equal(run.lines.length, before, 'nothing more was written (the cancel is not answered)');
    run.child.kill('SIGKILL');
    await run.exited;
  });

  it('once: the next process past the marker answers; armed: no fault until the file exists', async () => {
    const marker = path.join(dir, 'once.marker');
    const armed = path.join(dir, 'armed');
    const scenario = { fault: { initialize: 'kill', once: marker, armed }, prompts: [{ steps: [] }] };
    const healthy = start(scenario);
    initialize(healthy);
    await waitFor('the answer while not armed', () => healthy.lines.length === 1);
    healthy.child.kill();
    writeFileSync(armed, '');
    const faulty = start(scenario);
    initialize(faulty);
    assert.equal((await faulty.exited).signal, 'SIGKILL');
    const after = start(scenario);
    initialize(after);
    await waitFor('the answer past the marker', () => after.lines.length === 1);
    after.child.kill();
  });
});
