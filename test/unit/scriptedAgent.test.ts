// The scripted agent as a black box: spawned as a real process, spoken to in raw ndjson, its
// record read back. Build first: node scripts/esbuild.mjs --tests (it bundles dist/scripted-agent.js).
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  cancels,
  events,
  firstEvent,
  firstReceived,
  promptOverlaps,
  readRecord,
  received,
  responseTo,
  type RpcMessage,
  sent,
  updates,
  waitForRecord,
} from '../fixtures/scriptedAgent/records';
import { alive, sleep, waitFor } from '../helpers';

const ROOT = path.resolve(__dirname, '../../..');
const AGENT = path.join(ROOT, 'dist/scripted-agent.js');
const SCENARIOS = path.join(ROOT, 'test/fixtures/scriptedAgent/scenarios');

/** A scripted agent process and a minimal raw client for it. */
class Agent {
  readonly child: ChildProcess;
  readonly messages: RpcMessage[] = [];
  /** stdout lines that were not JSON. */
  readonly rawLines: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private nextId = 100;
  private buffer = '';
  private readonly waiters = new Set<() => void>();

  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    // Its own process group, as Reins starts agents: cleanup ends the group, tools included.
    this.child = spawn(process.execPath, [AGENT, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, REINS_SCENARIO: '', REINS_SCENARIO_JSON: '', REINS_RECORD: '', ...env },
    });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        try {
          this.messages.push(JSON.parse(line) as RpcMessage);
        } catch {
          this.rawLines.push(line);
        }
      }
      for (const wake of this.waiters) wake();
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => {
      for (const wake of this.waiters) wake();
    });
  }

  send(msg: object): void {
    this.child.stdin!.write(JSON.stringify(msg) + '\n');
  }

  writeRaw(line: string): void {
    this.child.stdin!.write(line + '\n');
  }

  /** Sends a request and returns its id and a promise of its response. */
  request(method: string, params: unknown): { id: number; response: Promise<RpcMessage> } {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return { id, response: this.waitFor((m) => m.id === id && m.method === undefined) };
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** The first message (from index `from`) that matches. */
  async waitFor(match: (m: RpcMessage) => boolean, timeoutMs = 5000, from = 0): Promise<RpcMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(match);
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`agent exited (${this.child.exitCode ?? this.child.signalCode}) before the message came; stderr: ${this.stderr}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms; got ${this.messages.length} messages`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  async ready(): Promise<string> {
    const init = await this.request('initialize', { protocolVersion: 1, clientCapabilities: {} }).response;
    assert.equal(init.result?.protocolVersion, 1, JSON.stringify(init));
    const created = await this.request('session/new', { cwd: '/tmp/project', mcpServers: [] }).response;
    return created.result.sessionId as string;
  }

  prompt(sessionId: string, text: string): { id: number; response: Promise<RpcMessage> } {
    return this.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  }

  cancel(sessionId: string): void {
    this.notify('session/cancel', { sessionId });
  }

  /** The text of the agent_message_chunk updates received so far. */
  text(kind = 'agent_message_chunk'): string {
    return this.messages
      .filter((m) => m.method === 'session/update' && m.params?.update?.sessionUpdate === kind)
      .map((m) => m.params.update.content.text)
      .join('');
  }

  /** Ends the whole process group (tool processes included). */
  kill(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const json = (scenario: object) => ['--scenario-json', JSON.stringify(scenario)];
const hang = (onCancel?: unknown, extra: object = {}) => ({
  prompts: [{ steps: [{ text: 'working' }, { hang: true }], ...(onCancel !== undefined && { onCancel }), ...extra }],
});
const isUpdate = (kind: string) => (m: RpcMessage) => m.method === 'session/update' && m.params?.update?.sessionUpdate === kind;

describe('scripted agent', function () {
  // Real processes and real delays (the demonstration turn alone takes about two seconds).
  this.timeout(20_000);
  let dir: string;
  let record: string;
  const agents: Agent[] = [];
  const start = (args: string[], env?: NodeJS.ProcessEnv) => {
    const agent = new Agent([...args, '--record', record], env);
    agents.push(agent);
    return agent;
  };

  before(function () {
    assert.ok(existsSync(AGENT), `${AGENT} is missing: run node scripts/esbuild.mjs --tests first`);
  });

  beforeEach(function () {
    dir = mkdtempSync(path.join(tmpdir(), 'reins-scripted-'));
    record = path.join(dir, 'record.jsonl');
  });

  afterEach(function () {
    for (const agent of agents.splice(0)) agent.kill();
    rmSync(dir, { recursive: true, force: true });
  });

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
    const entries = readRecord(record);
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
    assert.ok(Math.abs(times[0] - Date.now()) < 10_000, 't is wall-clock milliseconds');
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
    const entries = readRecord(record);
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
    assert.equal(events(readRecord(record), 'cancel-repeated').length, 1);
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
    await waitForRecord(record, (e) => events(e, 'turn-started').length === 1);
    agent.cancel(sessionId);
    assert.deepEqual((await first.response).result, { stopReason: 'end_turn' });

    const second = agent.prompt(sessionId, 'two');
    await waitForRecord(record, (e) => events(e, 'turn-started').length === 2);
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
    await waitForRecord(record, (e) => events(e, 'cancel-ignored').length === 1);
    await sleep(300);
    assert.equal(responseTo(readRecord(record), 'out', id), undefined, 'never answered');

    const exits = start(json(hang('exit')));
    const s2 = await exits.ready();
    exits.prompt(s2, 'go');
    await exits.waitFor(isUpdate('agent_message_chunk'));
    exits.cancel(s2);
    assert.deepEqual(await exits.exited, { code: 1, signal: null });
    assert.ok(events(readRecord(record), 'exiting').some((e) => e.reason === 'cancel' && e.code === 1));
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

    const entries = readRecord(record);
    assert.equal(events(entries, 'busy-rejected').length, 1);
    assert.equal(promptOverlaps(entries).length, 1, 'the rejected prompt overlapped the first');
  });

  it('drops a cancel that arrives within dropEarlyCancelMs and accepts a later one (scenario file)', async function () {
    const agent = start(['--scenario', path.join(SCENARIOS, 'drops-early-cancel.json')]);
    const sessionId = await agent.ready();
    const { response } = agent.prompt(sessionId, 'go');
    agent.cancel(sessionId);
    await waitForRecord(record, (e) => events(e, 'cancel-dropped').length === 1);
    await agent.waitFor(isUpdate('agent_message_chunk'));
    assert.equal(
      agent.messages.find((m) => m.result?.stopReason),
      undefined,
      'not answered: the cancel was lost',
    );
    agent.cancel(sessionId);
    assert.deepEqual((await response).result, { stopReason: 'cancelled' });
    const dropped = firstEvent(readRecord(record), 'cancel-dropped');
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
    assert.equal(events(readRecord(record), 'cancel-as-request').length, 1);
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
    const entries = readRecord(record);
    assert.deepEqual(received(entries)[0].msg, { raw: 'this is not json' });
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
    const answered = firstEvent(readRecord(record), 'permission-answered');
    assert.equal(answered.afterCancel, true);
    assert.deepEqual(answered.reply, { result: { outcome: { outcome: 'cancelled' } } });
  });

  it('leaves a tool process running with killToolsOnCancel false, ends it by default', async function () {
    const leftover = start(['--scenario', path.join(SCENARIOS, 'tool-leftover.json')]);
    const s1 = await leftover.ready();
    const first = leftover.prompt(s1, 'go');
    const started = firstEvent(await waitForRecord(record, (e) => events(e, 'tool-process-started').length === 1), 'tool-process-started');
    assert.equal(started.command, 'sleep 37');
    assert.equal(started.toolCallId, 'call-sleep');
    leftover.cancel(s1);
    assert.deepEqual((await first.response).result, { stopReason: 'cancelled' });
    await sleep(200);
    assert.ok(alive(started.pid), 'sleep 37 outlives the cancelled turn');
    leftover.kill(); // the group: agent and tool
    await leftover.exited;

    rmSync(record, { force: true });
    const killer = start(json({ prompts: [{ steps: [{ spawn: 'sleep 30' }, { hang: true }] }] }));
    const s2 = await killer.ready();
    const second = killer.prompt(s2, 'go');
    const entries = await waitForRecord(record, (e) => events(e, 'tool-process-started').length === 1);
    const pid = firstEvent(entries, 'tool-process-started').pid as number;
    killer.cancel(s2);
    assert.deepEqual((await second.response).result, { stopReason: 'cancelled' });
    const after = await waitForRecord(record, (e) => events(e, 'tool-process-exited').length === 1);
    const killed = firstEvent(after, 'tool-process-killed');
    assert.equal(killed.pid, pid);
    assert.ok(killed.pids.length >= 2, 'the shell and the command it forked');
    const pids = killed.pids as number[];
    await waitFor(`the killed tree (${pids.join(', ')}) to end`, () => !pids.some(alive), 2000);
  });

  it('makes calls to the client and records the answers', async function () {
    const agent = start(
      json({
        prompts: [
          {
            steps: [
              { call: { method: 'fs/read_text_file', params: { sessionId: '${sessionId}', path: '${cwd}/README.md' } } },
              { call: { method: 'fs/write_text_file', params: { sessionId: '${sessionId}', path: '${cwd}/x', content: 'y' } } },
            ],
          },
        ],
      }),
    );
    const sessionId = await agent.ready();
    const { response } = agent.prompt(sessionId, 'go');
    const read = await agent.waitFor((m) => m.method === 'fs/read_text_file');
    assert.deepEqual(read.params, { sessionId, path: '/tmp/project/README.md' });
    agent.send({ jsonrpc: '2.0', id: read.id, result: { content: 'hello' } });
    const write = await agent.waitFor((m) => m.method === 'fs/write_text_file');
    agent.send({ jsonrpc: '2.0', id: write.id, error: { code: -32603, message: 'denied' } });
    assert.deepEqual((await response).result, { stopReason: 'end_turn' });
    const answers = events(readRecord(record), 'call-answered');
    assert.deepEqual(
      answers.map((a) => [a.method, a.reply]),
      [
        ['fs/read_text_file', { result: { content: 'hello' } }],
        ['fs/write_text_file', { error: { code: -32603, message: 'denied' } }],
      ],
    );
  });

  it('queues a second prompt outside goose mode; one cancel cancels both', async function () {
    const agent = start(json(hang()));
    const sessionId = await agent.ready();
    const first = agent.prompt(sessionId, 'one');
    const second = agent.prompt(sessionId, 'two');
    await waitForRecord(record, (e) => events(e, 'prompt-while-busy').length === 1);
    agent.cancel(sessionId);
    assert.deepEqual((await first.response).result, { stopReason: 'cancelled' });
    assert.deepEqual((await second.response).result, { stopReason: 'cancelled' });
    assert.equal(promptOverlaps(readRecord(record)).length, 1);
  });

  it('crashes, exits at start-up, never answers initialize, refuses a bad scenario', async function () {
    const crash = start(['--scenario', path.join(SCENARIOS, 'crash-mid-turn.json')]);
    const sessionId = await crash.ready();
    crash.prompt(sessionId, 'go');
    assert.deepEqual(await crash.exited, { code: 101, signal: null });
    assert.match(crash.stderr, /panicked/);

    const killed = start(json({ prompts: [{ steps: [{ crash: { signal: 'SIGKILL' } }] }] }));
    killed.prompt(await killed.ready(), 'go');
    assert.deepEqual(await killed.exited, { code: null, signal: 'SIGKILL' });

    const atOnce = start(['--scenario', path.join(SCENARIOS, 'exit-at-once.json')]);
    assert.deepEqual(await atOnce.exited, { code: 1, signal: null });
    assert.match(atOnce.stderr, /no API key/);

    const never = start(['--scenario', path.join(SCENARIOS, 'init-never.json')]);
    const { id } = never.request('initialize', { protocolVersion: 1 });
    await waitForRecord(record, (e) => events(e, 'initialize-unanswered').length === 1);
    await sleep(200);
    assert.equal(
      never.messages.find((m) => m.id === id),
      undefined,
    );

    const bad = start(json({ prompts: [{ steps: [{ text: 'ok' }, { txet: 'typo' }] }] }));
    assert.equal((await bad.exited).code, 2);
    assert.match(bad.stderr, /prompts\[0\]\.steps\[1\]: a step needs exactly one of text, /);
  });

  it('with abortOnCancel stops waiting for the permission answer, and records the late one', async function () {
    const agent = start(json({ prompts: [{ steps: [{ permission: { toolCallId: 't1', title: 'Edit', abortOnCancel: true } }] }] }));
    const sessionId = await agent.ready();
    const { response } = agent.prompt(sessionId, 'go');
    const ask = await agent.waitFor((m) => m.method === 'session/request_permission');
    agent.cancel(sessionId);
    assert.deepEqual((await response).result, { stopReason: 'cancelled' });
    agent.send({ jsonrpc: '2.0', id: ask.id, result: { outcome: { outcome: 'cancelled' } } });
    const entries = await waitForRecord(record, (e) => events(e, 'late-response').length === 1);
    assert.equal(events(entries, 'permission-abandoned').length, 1);
    assert.equal(firstEvent(entries, 'late-response').method, 'session/request_permission');
  });

  it('exits when stdin closes or on SIGTERM, unless told to stay', async function () {
    const plain = start(json(hang()));
    await plain.ready();
    plain.child.stdin!.end();
    assert.deepEqual(await plain.exited, { code: 0, signal: null });

    const termed = start(json(hang()));
    await termed.ready();
    termed.child.kill('SIGTERM');
    assert.deepEqual(await termed.exited, { code: 143, signal: null });

    // codex-acp and claude-agent-acp: closing stdin is not enough, and here neither is SIGTERM.
    const stubborn = start(json({ startup: { stayOnStdinClose: true, ignoreSigterm: true }, ...hang() }));
    await stubborn.ready();
    stubborn.child.stdin!.end();
    stubborn.child.kill('SIGTERM');
    await waitForRecord(record, (e) => events(e, 'signal').length === 2 && events(e, 'stdin-closed').length === 2);
    await sleep(200);
    assert.equal(stubborn.child.exitCode, null, 'still running');
    stubborn.child.kill('SIGKILL');
    assert.equal((await stubborn.exited).signal, 'SIGKILL');
  });

  it('loads every ready scenario file', async function () {
    const files = readdirSync(SCENARIOS).filter((f) => f.endsWith('.json'));
    assert.ok(files.length >= 17, files.join(', '));
    for (const file of files) {
      const agent = start(['--scenario', path.join(SCENARIOS, file)]);
      agent.child.stdin!.end();
      // Agents that outlive their stdin (codex-acp, claude-agent-acp) are loaded once they are
      // still running a moment later; a scenario that does not validate exits with code 2.
      const staysOn = JSON.parse(readFileSync(path.join(SCENARIOS, file), 'utf8')).startup?.stayOnStdinClose === true;
      const timer = staysOn ? setTimeout(() => agent.child.kill('SIGKILL'), 500) : undefined;
      const { code } = await agent.exited;
      clearTimeout(timer);
      assert.equal(code, staysOn ? null : file === 'exit-at-once.json' ? 1 : 0, `${file}: ${agent.stderr}`);
    }
  });

  it('writes one oversized line of exactly n bytes', async function () {
    const agent = start(json({ prompts: [{ steps: [{ oversized: 100_000 }, { text: 'after' }] }] }));
    const sessionId = await agent.ready();
    await agent.prompt(sessionId, 'go').response;
    const line = agent.messages.find((m) => typeof m === 'string') as unknown as string;
    assert.equal(line.length + 2, 100_000);
    assert.deepEqual(sent(readRecord(record)).find((w) => w.msg.oversized)?.msg, { oversized: 100_000 });
  });

  it('floods numbered chunks, each once and in order, with a paragraph break every n (the webview benchmark)', async function () {
    const agent = start(json({ prompts: [{ steps: [{ flood: { count: 1000, perSecond: 5000, paragraph: 100 } }] }] }));
    const sessionId = await agent.ready();
    await agent.prompt(sessionId, 'go').response;
    const chunks = agent.messages.filter((m) => m.method === 'session/update').map((m) => m.params.update.content.text as string);
    assert.equal(chunks.length, 1000);
    assert.ok(
      chunks.every((c, i) => c === `c${i} ${i % 100 === 99 ? '\n\n' : ''}`),
      chunks.slice(0, 3).join('|'),
    );
    assert.equal(firstEvent(readRecord(record), 'flood-sent')?.count, 1000);
  });

  it('takes its scenario and record from the environment', async function () {
    const envRecord = path.join(dir, 'env.jsonl');
    const agent = new Agent([], {
      REINS_SCENARIO_JSON: JSON.stringify({ name: 'from-env', prompts: [{ steps: [{ text: 'env' }] }] }),
      REINS_RECORD: envRecord,
    });
    agents.push(agent);
    const sessionId = await agent.ready();
    await agent.prompt(sessionId, 'go').response;
    assert.equal(agent.text(), 'env');
    assert.equal(firstEvent(readRecord(envRecord), 'started').scenario, 'from-env');
  });

  it('demo mode: says what it is, quotes the prompt, reads, asks permission, reports the choice', async function () {
    const agent = start([]);
    const init = await agent.request('initialize', { protocolVersion: 1 }).response;
    assert.match(init.result.agentInfo.title, /demonstration/i);
    const sessionId = (await agent.request('session/new', { cwd: '/tmp/project', mcpServers: [] }).response).result.sessionId;
    const { response } = agent.prompt(sessionId, 'please explain\nthis');
    const ask = await agent.waitFor((m) => m.method === 'session/request_permission', 8000);
    const intro = agent.text();
    assert.match(intro, /Reins scripted demonstration agent/);
    assert.match(intro, /no model/);
    assert.match(intro, /> please explain\n> this/);
    assert.match(intro, /```ts\n/);
    assert.match(intro, /\n- /);
    const tools = agent.messages.filter((m) => m.method === 'session/update' && String(m.params.update.toolCallId).startsWith('demo-read'));
    assert.equal(tools[0].params.update.title, 'Read README.md');
    assert.equal(tools[0].params.update.kind, 'read');
    assert.equal(tools.at(-1)!.params.update.status, 'completed');
    assert.deepEqual(
      ask.params.options.map((o: { optionId: string }) => o.optionId),
      ['allow-once', 'reject-once'],
    );
    agent.send({ jsonrpc: '2.0', id: ask.id, result: { outcome: { outcome: 'selected', optionId: 'reject-once' } } });
    assert.deepEqual((await response).result, { stopReason: 'end_turn' });
    assert.match(agent.text(), /You chose \*\*Reject\*\*/);
  });

  it('demo mode: a slow prompt streams slowly and stops quickly', async function () {
    const agent = start(['--demo']);
    const sessionId = await agent.ready();
    const { response } = agent.prompt(sessionId, 'go slow please');
    await agent.waitFor(isUpdate('agent_message_chunk'));
    await sleep(1000);
    const chunks = agent.messages.filter(isUpdate('agent_message_chunk')).length;
    assert.ok(chunks >= 5 && chunks < 30, `${chunks} chunks in the first second`);
    const t0 = Date.now();
    agent.cancel(sessionId);
    assert.deepEqual((await response).result, { stopReason: 'cancelled' });
    assert.ok(Date.now() - t0 < 500);
  });
});
