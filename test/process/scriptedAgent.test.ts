// The scripted agent as a black box: spawned as a real process, spoken to in raw ndjson, its
// record read back. Build first: node scripts/esbuild.mjs --tests (it bundles dist/scripted-agent.js).
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { descendantsNow } from '../../src/acp/processTree';
import {
  cancels,
  events,
  firstEvent,
  firstReceived,
  promptOverlaps,
  readRecord,
  received,
  responseTo,
  sent,
  updates,
  waitForRecord,
} from '../fixtures/scriptedAgent/records';
import { alive, nth, sleep, waitFor } from '../support/helpers';
import { AgentFixture, hang, isUpdate, json, SCENARIOS } from '../support/scriptedAgentHarness';

describe('scripted agent', function () {
  // Real processes and real delays (the demonstration turn alone takes about two seconds).
  this.timeout(20_000);
  const fx = new AgentFixture();
  const start = fx.start;

  it('initializes, creates a session, streams a prompt in order and answers end_turn', async function () {
    const agent = start(json({ name: 'stream', prompts: [{ steps: [{ thought: 'hmm' }, { text: 'hello from the script', chunk: 5, intervalMs: 5 }] }] }));
    const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} }).response;
    assert.equal(init.result.protocolVersion, 1);
    assert.equal(init.result.agentInfo.name, 'reins-scripted-agent');
    assert.equal(init.result.agentCapabilities.loadSession, false);
    assert.ok(init.result.agentCapabilities.promptCapabilities);
    assert.deepEqual(init.result.authMethods, []);
    const created = await agent.request('session/new', { cwd: '/tmp/project', mcpServers: [] }).response;
    const sessionId = created.result.sessionId;
    assert.match(sessionId, /^sess-\d+$/);

    const { id, response } = agent.prompt(sessionId, 'hi');
    const answer = await response;
    assert.deepEqual(answer.result, { stopReason: 'end_turn' });
    assert.equal(agent.text(), 'hello from the script');
    assert.equal(agent.text('agent_thought_chunk'), 'hmm');
    const streamed = agent.messages.filter((m) => m.method === 'session/update');
    assert.equal(streamed.length, 1 + 5);
    assert.ok(streamed.every((m) => m.params.sessionId === sessionId));
    assert.ok(agent.messages.indexOf(answer) > agent.messages.indexOf(streamed.at(-1)!), 'updates come before the answer');

    // The record holds the same exchange, both ways, in order, with wall-clock times.
    const entries = readRecord(fx.record);
    assert.equal(firstEvent(entries, 'started')?.pid, agent.child.pid);
    assert.equal(firstReceived(entries, 'session/prompt').msg.id, id);
    assert.deepEqual(responseTo(entries, 'out', id)?.msg.result, { stopReason: 'end_turn' });
    assert.equal(
      updates(entries, 'agent_message_chunk')
        .map((u) => u.update.content.text)
        .join(''),
      'hello from the script',
    );
    const times = entries.map((e) => e.t);
    assert.deepEqual(
      [...times].sort((a, b) => a - b),
      times,
      'entries are in time order',
    );
    assert.ok(Math.abs(nth(times, 0, 'times') - Date.now()) < 10_000, 't is wall-clock milliseconds');
    assert.ok(events(entries, 'turn-answered').some((e) => e.requestId === id && e.stopReason === 'end_turn'));
  });

  it('answers a quick cancel at once with cancelled', async function () {
    const agent = start(json(hang('quick')));
    const sessionId = await agent.ready();
    const { id, response } = agent.prompt(sessionId, 'go');
    await agent.waitFor(isUpdate('agent_message_chunk'));
    const t0 = Date.now();
    agent.cancel(sessionId);
    const answer = await response;
    assert.deepEqual(answer.result, { stopReason: 'cancelled' });
    assert.ok(Date.now() - t0 < 500, `answered after ${Date.now() - t0} ms`);
    const entries = readRecord(fx.record);
    assert.equal(cancels(entries, sessionId).length, 1);
    assert.equal(firstEvent(entries, 'cancel-accepted').requestId, id);
  });

  it('delays its answer to a cancel by delayMs', async function () {
    const agent = start(json(hang({ delayMs: 600 })));
    const sessionId = await agent.ready();
    const { response } = agent.prompt(sessionId, 'go');
    await agent.waitFor(isUpdate('agent_message_chunk'));
    const t0 = Date.now();
    agent.cancel(sessionId);
    // A cancel sent again while it unwinds changes nothing.
    await sleep(100);
    agent.cancel(sessionId);
    const answer = await response;
    const waited = Date.now() - t0;
    assert.deepEqual(answer.result, { stopReason: 'cancelled' });
    assert.ok(waited >= 590 && waited < 1500, `answered after ${waited} ms`);
    assert.equal(events(readRecord(fx.record), 'cancel-repeated').length, 1);
  });

  it('answers end_turn, then a -32603 error, instead of cancelled when told to', async function () {
    const agent = start(
      json({
        prompts: [
          { steps: [{ hang: true }], onCancel: 'end_turn' },
          { steps: [{ hang: true }], onCancel: 'error' },
        ],
      }),
    );
    const sessionId = await agent.ready();
    const first = agent.prompt(sessionId, 'one');
    await waitForRecord(fx.record, (e) => events(e, 'turn-started').length === 1);
    agent.cancel(sessionId);
    assert.deepEqual((await first.response).result, { stopReason: 'end_turn' });

    const second = agent.prompt(sessionId, 'two');
    await waitForRecord(fx.record, (e) => events(e, 'turn-started').length === 2);
    agent.cancel(sessionId);
    const error = (await second.response).error;
    assert.equal(error?.code, -32603);
    assert.equal(error?.message, 'operation aborted');
  });

  it('ignores a cancel with onCancel never, and exits with code 1 with onCancel exit', async function () {
    const never = start(json(hang('never')));
    const sessionId = await never.ready();
    const { id } = never.prompt(sessionId, 'go');
    await never.waitFor(isUpdate('agent_message_chunk'));
    never.cancel(sessionId);
    await waitForRecord(fx.record, (e) => events(e, 'cancel-ignored').length === 1);
    await sleep(300);
    assert.equal(responseTo(readRecord(fx.record), 'out', id), undefined, 'never answered');

    const exits = start(json(hang('exit')));
    const s2 = await exits.ready();
    exits.prompt(s2, 'go');
    await exits.waitFor(isUpdate('agent_message_chunk'));
    exits.cancel(s2);
    assert.deepEqual(await exits.exited, { code: 1, signal: null });
    assert.ok(events(readRecord(fx.record), 'exiting').some((e) => e.reason === 'cancel' && e.code === 1));
  });

  it('goose mode: announces the run, rejects a second prompt, clears the run before answering', async function () {
    const agent = start(json({ goose: true, ...hang({ delayMs: 400 }) }));
    const sessionId = await agent.ready();
    const first = agent.prompt(sessionId, 'one');
    const announced = await agent.waitFor(isUpdate('session_info_update'));
    const runId: string = announced.params.update._meta.goose.activeRunId;
    assert.match(runId, /^run_[0-9a-f-]{36}$/);

    const busy = await agent.prompt(sessionId, 'two').response;
    assert.equal(busy.error?.code, -32602);
    assert.equal(busy.error?.message, 'Invalid params');
    assert.equal(busy.error?.data, `session already has active run \`${runId}\`; use _goose/unstable/session/steer`);

    const t0 = Date.now();
    agent.cancel(sessionId);
    const answer = await first.response;
    assert.deepEqual(answer.result, { stopReason: 'cancelled' });
    assert.ok(Date.now() - t0 >= 390, 'unwinding took the onCancel delay');
    const cleared = agent.messages.findIndex((m) => isUpdate('session_info_update')(m) && m.params.update._meta.goose.activeRunId === null);
    assert.ok(cleared >= 0, 'activeRunId: null was sent');
    assert.ok(cleared < agent.messages.indexOf(answer), 'null comes before the answer');

    // The run is gone: the next prompt is accepted, with a new run.
    const third = agent.prompt(sessionId, 'three');
    const next = await agent.waitFor(
      (m) => isUpdate('session_info_update')(m) && m.params.update._meta.goose.activeRunId !== null && m.params.update._meta.goose.activeRunId !== runId,
    );
    assert.ok(next);
    agent.cancel(sessionId);
    assert.deepEqual((await third.response).result, { stopReason: 'cancelled' });

    const entries = readRecord(fx.record);
    assert.equal(events(entries, 'busy-rejected').length, 1);
    assert.equal(promptOverlaps(entries).length, 1, 'the rejected prompt overlapped the first');
  });

  it('drops a cancel that arrives within dropEarlyCancelMs and accepts a later one (scenario file)', async function () {
    const agent = start(['--scenario', path.join(SCENARIOS, 'drops-early-cancel.json')]);
    const sessionId = await agent.ready();
    const { response } = agent.prompt(sessionId, 'go');
    agent.cancel(sessionId);
    await waitForRecord(fx.record, (e) => events(e, 'cancel-dropped').length === 1);
    await agent.waitFor(isUpdate('agent_message_chunk'));
    assert.equal(
      agent.messages.find((m) => m.result?.stopReason),
      undefined,
      'not answered: the cancel was lost',
    );
    agent.cancel(sessionId);
    assert.deepEqual((await response).result, { stopReason: 'cancelled' });
    const dropped = firstEvent(readRecord(fx.record), 'cancel-dropped');
    assert.ok(dropped.sinceStartMs < 300);
  });

  it('answers a cancel sent as a request, unknown methods and bad params with JSON-RPC errors', async function () {
    const agent = start(json(hang()));
    const sessionId = await agent.ready();
    const { response } = agent.prompt(sessionId, 'go');
    await agent.waitFor(isUpdate('agent_message_chunk'));
    const asRequest = await agent.request('session/cancel', { sessionId }).response;
    assert.equal(asRequest.error?.code, -32601);
    assert.equal((await agent.request('session/load', { sessionId: 'x', cwd: '/', mcpServers: [] }).response).error?.code, -32601);
    assert.equal((await agent.request('session/new', { mcpServers: [] }).response).error?.code, -32602);
    assert.equal((await agent.request('session/prompt', { sessionId: 'nope', prompt: [] }).response).error?.code, -32602);
    assert.equal(
      agent.messages.find((m) => m.result?.stopReason),
      undefined,
      'the cancel request cancelled nothing',
    );
    agent.cancel(sessionId);
    assert.deepEqual((await response).result, { stopReason: 'cancelled' });
    assert.equal(events(readRecord(fx.record), 'cancel-as-request').length, 1);
  });

  it('records a line it cannot parse and carries on; writes garbage of its own', async function () {
    const agent = start(['--scenario', path.join(SCENARIOS, 'garbage.json')]);
    agent.writeRaw('this is not json');
    const sessionId = await agent.ready();
    assert.deepEqual((await agent.prompt(sessionId, 'go').response).result, { stopReason: 'end_turn' });
    assert.deepEqual(agent.rawLines, ['Welcome to the agent! (a banner on stdout)', '{not json', 'WARN: this line is not JSON']);
    assert.ok(
      agent.messages.some((m) => m.id === 2_000_000_000 && m.method === undefined),
      'a response to a request never made',
    );
    assert.equal(agent.text(), 'Before the garbage. After the garbage.');
    const entries = readRecord(fx.record);
    assert.deepEqual(nth(received(entries), 0, 'received(entries)').msg, { raw: 'this is not json' });
    assert.equal(events(entries, 'unparsable-line').length, 1);
    assert.ok(sent(entries).some((w) => w.msg.raw === 'WARN: this line is not JSON'));
  });

  it('waits for a pending permission across a cancel, then answers cancelled', async function () {
    const agent = start(['--scenario', path.join(SCENARIOS, 'permission-pending.json')]);
    const sessionId = await agent.ready();
    const { response } = agent.prompt(sessionId, 'go');
    const ask = await agent.waitFor((m) => m.method === 'session/request_permission');
    assert.equal(ask.params.sessionId, sessionId);
    assert.equal(ask.params.toolCall.toolCallId, 'call-perm-1');
    assert.deepEqual(
      ask.params.options.map((o: { kind: string }) => o.kind),
      ['allow_once', 'reject_once'],
    );
    agent.cancel(sessionId);
    await sleep(300);
    assert.equal(
      agent.messages.find((m) => m.result?.stopReason),
      undefined,
      'still waiting for the permission answer',
    );
    agent.send({ jsonrpc: '2.0', id: ask.id, result: { outcome: { outcome: 'cancelled' } } });
    assert.deepEqual((await response).result, { stopReason: 'cancelled' });
    const answered = firstEvent(readRecord(fx.record), 'permission-answered');
    assert.equal(answered.afterCancel, true);
    assert.deepEqual(answered.reply, { result: { outcome: { outcome: 'cancelled' } } });
  });

  it('leaves a tool process running with killToolsOnCancel false, ends it by default', async function () {
    const leftover = start(['--scenario', path.join(SCENARIOS, 'tool-leftover.json')]);
    const s1 = await leftover.ready();
    const first = leftover.prompt(s1, 'go');
    const started = firstEvent(await waitForRecord(fx.record, (e) => events(e, 'tool-process-started').length === 1), 'tool-process-started');
    assert.equal(started.command, 'sleep 37');
    assert.equal(started.toolCallId, 'call-sleep');
    leftover.cancel(s1);
    assert.deepEqual((await first.response).result, { stopReason: 'cancelled' });
    await sleep(200);
    assert.ok(alive(started.pid), 'sleep 37 outlives the cancelled turn');
    leftover.kill(); // the group: agent and tool
    await leftover.exited;

    rmSync(fx.record, { force: true });
    const killer = start(json({ prompts: [{ steps: [{ spawn: 'sleep 30' }, { hang: true }] }] }));
    const s2 = await killer.ready();
    const second = killer.prompt(s2, 'go');
    const entries = await waitForRecord(fx.record, (e) => events(e, 'tool-process-started').length === 1);
    const pid = firstEvent(entries, 'tool-process-started').pid as number;
    // The record says the shell started, not that it has forked its command yet: on a loaded
    // machine a cancel sent at once found the shell alone (pids [shell]). Cancel once the command
    // runs below it, so that there is a tree to end.
    // Without this wait, with a shell slow to start (a `sh` on PATH that pauses 0.3 s before
    // exec-ing dash): AssertionError: the shell and the command it forked.
    await waitFor('the shell to fork sleep 30', async () => (await descendantsNow(pid)).some((p) => p.command.includes('sleep 30')), 5000);
    killer.cancel(s2);
    assert.deepEqual((await second.response).result, { stopReason: 'cancelled' });
    const after = await waitForRecord(fx.record, (e) => events(e, 'tool-process-exited').length === 1);
    const killed = firstEvent(after, 'tool-process-killed');
    assert.equal(killed.pid, pid);
    assert.ok(killed.pids.length >= 2, 'the shell and the command it forked');
    const pids = killed.pids as number[];
    await waitFor(`the killed tree (${pids.join(', ')}) to end`, () => !pids.some(alive), 2000);
  });
});
