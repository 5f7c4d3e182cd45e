// Load, resume, list, close and delete at the runtime, against the scripted agent (a real child
// process) whose sessions outlive it in a file. What the agent received, and in which order,
// comes from its record. (The same through the editor's commands: test/integration/sessions.test.ts.)
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { AgentRuntime, defaultRuntimeSettings, type RuntimeSettings } from '../../src/runtime/agentRuntime';
import type { ReopenRequest, SessionOpened } from '../../src/runtime/sessionSwitch';
import { MemoryLogger } from '../../src/util/logger';
import { firstEvent, firstReceived, readRecord, received, waitForRecord } from '../fixtures/scriptedAgent/records';
import { nth } from '../support/helpers';

const repo = path.resolve(__dirname, '../../..');
const agentJs = path.join(repo, 'dist', 'scripted-agent.js');

const live: AgentRuntime[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((rt) => rt.shutdown('deactivate', 200)));
});

interface Agent {
  rt: AgentRuntime;
  record: string;
  log: MemoryLogger;
  updates: SessionNotification[];
  opened: SessionOpened[];
}

/** A runtime on the scripted agent; `dir` shared between runs means the same sessions file and folder. */
async function start(dir: string, scenario: object, reopen?: ReopenRequest, settings: Partial<RuntimeSettings> = {}): Promise<Agent> {
  const record = path.join(dir, `record-${live.length}-${Date.now()}.jsonl`);
  const log = new MemoryLogger();
  const rt = new AgentRuntime({
    name: 'scripted',
    launch: { command: process.execPath, args: [agentJs, '--scenario-json', JSON.stringify(scenario), '--record', record], cwd: dir },
    settings: () => ({ ...defaultRuntimeSettings, initializeTimeoutMs: 5000, ...settings }),
    log,
    reopen,
  });
  live.push(rt);
  const updates: SessionNotification[] = [];
  const opened: SessionOpened[] = [];
  rt.session.onUpdate((n) => updates.push(n));
  rt.session.switch.onOpened((o) => opened.push(o));
  await rt.start();
  return { rt, record, log, updates, opened };
}

const scratch = () => mkdtempSync(path.join(tmpdir(), 'reins-sess-'));
const texts = (updates: SessionNotification[], kind: string) =>
  updates
    .filter((n) => n.update.sessionUpdate === kind)
    .map((n) => (n.update as { content?: { text?: string } }).content?.text ?? '')
    .join('');
const methods = (record: string) =>
  received(readRecord(record))
    .map((w) => w.msg.method)
    .filter((m): m is string => typeof m === 'string');

const answer = (text: string) => ({ steps: [{ text, chunk: 4, intervalMs: 1 }] });

describe('session switch against the scripted agent', function () {
  this.timeout(30_000);

  it('load after a restart: a new process replays the session instead of making a new one', async () => {
    const dir = scratch();
    const scenario = { sessions: { load: true, file: path.join(dir, 'sessions.jsonl') }, prompts: [answer('The answer is 42.')] };
    const first = await start(dir, scenario);
    const sessionId = first.rt.session.id!;
    assert.deepEqual(await first.rt.turns.prompt('What is the answer?'), { kind: 'completed', stopReason: 'end_turn' });
    await first.rt.shutdown('replace-session');

    const second = await start(dir, scenario, { sessionId, keepTranscript: false });
    // Sabotage (openFirst ignoring `reopen`): "Expected values to be strictly equal: + 'sess-2' - 'sess-1'".
    assert.equal(second.rt.session.id, sessionId);
    assert.deepEqual(methods(second.record), ['initialize', 'session/load']);
    const load = firstReceived(readRecord(second.record), 'session/load').msg.params;
    assert.deepEqual({ sessionId: load.sessionId, cwd: load.cwd, mcpServers: load.mcpServers }, { sessionId, cwd: dir, mcpServers: [] });
    assert.equal(texts(second.updates, 'user_message_chunk'), 'What is the answer?');
    assert.equal(texts(second.updates, 'agent_message_chunk'), 'The answer is 42.');
    assert.deepEqual(
      second.opened.map((o) => [o.how, o.sessionId]),
      [['load', sessionId]],
    );
    // The replayed title reached the session's config, made at the answer (after the replay).
    // Sabotage (the replay's state updates not handed to the new config): "undefined !== 'What is the answer?'".
    assert.equal(second.rt.session.controls.config?.view().title, 'What is the answer?');
    // Prompts go to the loaded session.
    await second.rt.turns.prompt('And now?');
    assert.equal(firstReceived(readRecord(second.record), 'session/prompt').msg.params.sessionId, sessionId);
  });

  it('resume where the transcript is still shown and the agent offers it: no replay', async () => {
    const dir = scratch();
    const scenario = { sessions: { load: true, resume: true, file: path.join(dir, 's.jsonl') }, prompts: [answer('ok')] };
    const first = await start(dir, scenario);
    await first.rt.turns.prompt('hi');
    await first.rt.shutdown('replace-session');
    const second = await start(dir, scenario, { sessionId: first.rt.session.id!, keepTranscript: true });
    assert.deepEqual(methods(second.record), ['initialize', 'session/resume']);
    assert.equal(second.updates.length, 0);
    assert.deepEqual(
      second.opened.map((o) => o.how),
      ['resume'],
    );
  });

  it('a session the agent does not know: a new one instead, and the miss says so', async () => {
    const dir = scratch();
    const { rt, opened, record } = await start(dir, { sessions: { load: true }, prompts: [answer('ok')] }, { sessionId: 'gone', keepTranscript: false });
    assert.deepEqual(methods(record), ['initialize', 'session/load', 'session/new']);
    assert.equal(opened.length, 1);
    assert.equal(nth(opened, 0, 'opened').how, 'new');
    assert.deepEqual(nth(opened, 0, 'opened').missed, { sessionId: 'gone', why: 'scripted does not know session gone', unknown: true });
    assert.equal(rt.session.id, 'sess-1');
  });

  it('an agent that cannot reopen gets session/new, never session/load (the spec forbids it)', async () => {
    const dir = scratch();
    const { opened, record } = await start(dir, { prompts: [answer('ok')] }, { sessionId: 'sess-9', keepTranscript: true });
    // Sabotage (reopenMethod ignoring the capabilities): "Expected values to be strictly deep-equal: + 'session/load',".
    assert.deepEqual(methods(record), ['initialize', 'session/new']);
    assert.match(nth(opened, 0, 'opened').missed?.why ?? '', /cannot reopen sessions/);
  });

  it('list: every page, newest first, in this folder', async () => {
    const dir = scratch();
    const { rt, record } = await start(dir, { sessions: { load: true, list: true, pageSize: 2, seed: 5 }, prompts: [answer('ok')] });
    const { sessions, pages } = await rt.session.list();
    assert.equal(pages, 3);
    assert.deepEqual(
      sessions.map((s) => s.sessionId),
      ['sess-1', 'old-5', 'old-4', 'old-3', 'old-2', 'old-1'],
    );
    assert.equal(nth(sessions, 1, 'sessions').title, 'Earlier session 5');
    const asked = received(readRecord(record), 'session/list').map((w) => w.msg.params);
    assert.deepEqual(
      asked.map((p) => p.cwd),
      [dir, dir, dir],
    );
    assert.equal(asked[0].cursor, undefined);
    assert.ok(typeof asked[1].cursor === 'string' && asked[2].cursor !== asked[1].cursor);
  });

  it('close before the next new: session/close for the settled old session, then session/new', async () => {
    const dir = scratch();
    const { rt, record } = await start(dir, { sessions: { close: true }, prompts: [{ steps: [{ hang: true }] }] });
    const old = rt.session.id;
    const turn = rt.turns.prompt('work');
    await waitForRecord(record, (e) => received(e, 'session/prompt').length === 1);
    await rt.session.renew();
    assert.equal((await turn).kind, 'stopped');
    const order = methods(record).filter((m) => m !== 'initialize');
    // Sabotage (closeCurrent() removed from newSession): "Expected values to be strictly deep-equal: … - 'session/close',".
    assert.deepEqual(order, ['session/new', 'session/prompt', 'session/cancel', 'session/close', 'session/new']);
    assert.equal(firstReceived(readRecord(record), 'session/close').msg.params.sessionId, old);
    // The close came after the prompt's answer: the routine settled the turn first.
    const entries = readRecord(record);
    const answered = firstEvent(entries, 'turn-answered').t;
    assert.ok(firstReceived(entries, 'session/close').t > answered);
  });

  it('load while a turn runs: stopped and confirmed first, old session closed, then loaded', async () => {
    const dir = scratch();
    const scenario = { sessions: { load: true, close: true, file: path.join(dir, 's.jsonl') }, prompts: [answer('first answer'), { steps: [{ hang: true }] }] };
    const a = await start(dir, scenario);
    const earlier = a.rt.session.id!;
    await a.rt.turns.prompt('first');
    await a.rt.session.renew();
    const turn = a.rt.turns.prompt('long one');
    await waitForRecord(a.record, (e) => received(e, 'session/prompt').length === 2);
    const seen = a.updates.length;
    const { report, outcome } = await a.rt.session.load(earlier);
    assert.equal(report.outcome, 'aborted');
    assert.deepEqual(outcome, { status: 'loaded', sessionId: earlier });
    assert.equal((await turn).kind, 'stopped');
    assert.equal(a.rt.session.id, earlier);
    const tail = methods(a.record).slice(-4);
    assert.deepEqual(tail, ['session/prompt', 'session/cancel', 'session/close', 'session/load']);
    assert.equal(texts(a.updates.slice(seen), 'agent_message_chunk'), 'first answer');
  });

  it('load refused while the stop is unverified: nothing is closed or loaded', async () => {
    const dir = scratch();
    const { rt, record } = await start(dir, { sessions: { load: true, close: true }, prompts: [{ steps: [{ hang: true }], onCancel: 'never' }] }, undefined, {
      settleTimeoutMs: 300,
    });
    const before = rt.session.id;
    void rt.turns.prompt('stuck');
    await waitForRecord(record, (e) => received(e, 'session/prompt').length === 1);
    const { report, outcome } = await rt.session.load('old-1');
    assert.equal(report.outcome, 'abort-unverified');
    // Sabotage (the unverified check removed from loadSession): "+ { error: 'scripted does not know session old-1',
    // sessionId: 'sess-2', status: 'failed', unknown: true } - undefined" (it closed the session and loaded).
    assert.equal(outcome, undefined);
    const sent = methods(record).filter((m) => m === 'session/close' || m === 'session/load');
    assert.deepEqual(sent, [], `${sent.join(', ')} were sent`);
    assert.equal(rt.session.id, before);
  });

  it('a failed load keeps the old session where it was not closed', async () => {
    const dir = scratch();
    const { rt, opened } = await start(dir, { sessions: { load: true }, prompts: [answer('ok')] });
    const before = rt.session.id;
    const { outcome } = await rt.session.load('nope');
    assert.deepEqual(outcome, { status: 'failed', error: 'scripted does not know session nope', unknown: true, sessionId: before });
    assert.equal(rt.session.id, before);
    assert.deepEqual(opened.at(-1), {
      sessionId: before,
      how: 'kept',
      missed: { sessionId: 'nope', why: 'scripted does not know session nope', unknown: true },
    });
    assert.deepEqual(await rt.turns.prompt('still here?'), { kind: 'completed', stopReason: 'end_turn' });
  });

  it('delete where offered, never the current session', async () => {
    const dir = scratch();
    const { rt, record } = await start(dir, { sessions: { list: true, delete: true, seed: 2 }, prompts: [answer('ok')] });
    await rt.session.delete('old-1');
    assert.deepEqual(
      (await rt.session.list()).sessions.map((s) => s.sessionId),
      ['sess-1', 'old-2'],
    );
    await assert.rejects(rt.session.delete(rt.session.id!), /current session/);
    assert.equal(received(readRecord(record), 'session/delete').length, 1);
    const plain = await start(scratch(), { prompts: [answer('ok')] });
    await assert.rejects(plain.rt.session.list(), /does not offer session\/list/);
  });
});
