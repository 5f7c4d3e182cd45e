// ACP v2's `state_update` through the runtime against the scripted agent: under v1 settle
// evidence for a stopped turn, under v2 (negotiated only when the agent offers it) the end of a
// turn; never taken for the next turn when it comes late. The pure parts: test/unit/stateUpdate.test.ts.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentRuntime, defaultRuntimeSettings, type RuntimeSettings } from '../../src/runtime/agentRuntime';
import { MemoryLogger } from '../../src/util/logger';
import { events, readRecord, received } from '../fixtures/scriptedAgent/records';

const repo = path.resolve(__dirname, '../../..');
const agentJs = path.join(repo, 'dist', 'scripted-agent.js');
const live: AgentRuntime[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((rt) => rt.shutdown('deactivate', 200)));
});

async function start(scenario: object, settings: Partial<RuntimeSettings> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-state-'));
  const record = path.join(dir, 'record.jsonl');
  const log = new MemoryLogger();
  const rt = new AgentRuntime({
    name: 'scripted',
    launch: { command: process.execPath, args: [agentJs, '--scenario-json', JSON.stringify(scenario), '--record', record], cwd: dir },
    settings: () => ({ ...defaultRuntimeSettings, initializeTimeoutMs: 5000, ...settings }),
    log,
  });
  live.push(rt);
  await rt.start();
  return { rt, log, entries: () => readRecord(record) };
}

describe('state_update against the scripted agent', function () {
  this.timeout(20_000);

  it('v1: an idle for the stopped turn settles it before the answer, and the late answer does not end the next turn', async () => {
    // The scenario of the quirk table's ACP v2 row (src/runtime/knownAgents.ts).
    const { rt, entries } = await start(
      JSON.parse(readFileSync(path.join(__dirname, '../../../test/fixtures/scriptedAgent/scenarios/state-update.json'), 'utf8')) as object,
    );
    assert.equal(received(entries(), 'initialize').length, 1);
    const first = rt.turns.prompt('one');
    await new Promise((r) => setTimeout(r, 300));
    const report = await rt.turns.stop('user');
    // Sabotage (noteState not called from noteUpdate), this printed:
    //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
    //   + { kind: 'answered', stopReason: 'cancelled' }  - { kind: 'idle-signal' }
    // (and the two v2 tests timed out: their turns never ended).
    assert.deepEqual(report.evidence, { kind: 'idle-signal' });
    assert.equal(report.outcome, 'aborted');
    assert.ok(report.settledAt! - report.requestedAt < 3000, `settled after ${report.settledAt! - report.requestedAt} ms, before the 4 s answer`);
    assert.equal((await first).kind, 'stopped');
    // The agent still unwinds turn 1 (its answer comes at 4 s); its queue runs turn 2 after that.
    const second = await rt.turns.prompt('two');
    assert.deepEqual(second, { kind: 'completed', stopReason: 'end_turn' });
    const answered = events(entries(), 'turn-answered');
    assert.equal(answered.length, 2, 'turn 2 ended with its own answer, not turn 1 late one');
  });

  it('v2, offered by the agent: initialize again with 2; the prompt is acknowledged at once and ends at idle; a stop settles at idle', async () => {
    const { rt, entries } = await start({
      init: { supported: [2] },
      prompts: [{ steps: [{ text: 'v2 answer' }], stopReason: 'end_turn' }, { steps: [{ text: 'working' }, { hang: true }] }],
    });
    assert.deepEqual(
      received(entries(), 'initialize').map((m) => m.msg.params.protocolVersion),
      [1, 2],
    );
    assert.equal(rt.agentInfo?.protocolVersion, 2);
    assert.deepEqual(await rt.turns.prompt('one'), { kind: 'completed', stopReason: 'end_turn' });
    const second = rt.turns.prompt('two');
    await new Promise((r) => setTimeout(r, 300));
    const report = await rt.turns.stop('user');
    assert.deepEqual(report.evidence, { kind: 'idle-signal' });
    assert.equal(report.outcome, 'aborted');
    assert.equal((await second).kind, 'stopped');
  });

  it('v2: a late idle of the turn before (a repeated snapshot) does not end the next turn', async () => {
    const { rt, entries } = await start({
      init: { supported: [2] },
      prompts: [
        { steps: [{ text: 'first' }], repeatIdleMs: 250 },
        // Reports running only after 800 ms: the repeated idle of turn 1 comes before it.
        { steps: [{ text: 'second' }], dropEarlyCancelMs: 800 },
      ],
    });
    assert.deepEqual(await rt.turns.prompt('one'), { kind: 'completed', stopReason: 'end_turn' });
    const texts: string[] = [];
    rt.session.onUpdate((n) => n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' && texts.push(n.update.content.text));
    const result = await rt.turns.prompt('two');
    // Sabotage (StateFence.idleFor returning `current` without the running check), this printed:
    //   AssertionError [ERR_ASSERTION]: turn 2 ended before its text: ''  ('' !== 'second')
    assert.equal(texts.join(''), 'second', `turn 2 ended before its text: '${texts.join('')}'`);
    assert.deepEqual(result, { kind: 'completed', stopReason: 'end_turn' });
    assert.equal(events(entries(), 'state-sent').filter((e) => e.state === 'idle').length >= 3, true, 'the repeated idle was sent');
  });
});
