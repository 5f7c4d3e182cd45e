// The scripted agent, continued: calls to the client, queued prompts, crashes, exits, scenario
// files, floods and the demonstration mode. Build first: node scripts/esbuild.mjs --tests.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { events, firstEvent, promptOverlaps, readRecord, sent, waitForRecord } from '../fixtures/scriptedAgent/records';
import { nth, sleep } from '../support/helpers';
import { Agent, AgentFixture, hang, isUpdate, json, SCENARIOS } from '../support/scriptedAgentHarness';

describe('scripted agent: calls, exits, files and the demo', function () {
  // Real processes and real delays (the demonstration turn alone takes about two seconds).
  this.timeout(20_000);
  const fx = new AgentFixture();
  const start = fx.start;

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
    const answers = events(readRecord(fx.record), 'call-answered');
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
    await waitForRecord(fx.record, (e) => events(e, 'prompt-while-busy').length === 1);
    agent.cancel(sessionId);
    assert.deepEqual((await first.response).result, { stopReason: 'cancelled' });
    assert.deepEqual((await second.response).result, { stopReason: 'cancelled' });
    assert.equal(promptOverlaps(readRecord(fx.record)).length, 1);
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
    await waitForRecord(fx.record, (e) => events(e, 'initialize-unanswered').length === 1);
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
    const entries = await waitForRecord(fx.record, (e) => events(e, 'late-response').length === 1);
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
    await waitForRecord(fx.record, (e) => events(e, 'signal').length === 2 && events(e, 'stdin-closed').length === 2);
    await sleep(200);
    assert.equal(stubborn.child.exitCode, null, 'still running');
    stubborn.child.kill('SIGKILL');
    assert.equal((await stubborn.exited).signal, 'SIGKILL');
  });

  it('loads every ready scenario file', async function () {
    // One node start per file, one after another: about 5 s idle, over 20 s at a load of 30.
    this.timeout(120_000);
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
    assert.deepEqual(sent(readRecord(fx.record)).find((w) => w.msg.oversized)?.msg, { oversized: 100_000 });
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
    assert.equal(firstEvent(readRecord(fx.record), 'flood-sent')?.count, 1000);
  });

  it('takes its scenario and record from the environment', async function () {
    const envRecord = path.join(fx.dir, 'env.jsonl');
    const agent = new Agent([], {
      REINS_SCENARIO_JSON: JSON.stringify({ name: 'from-env', prompts: [{ steps: [{ text: 'env' }] }] }),
      REINS_RECORD: envRecord,
    });
    fx.track(agent);
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
    assert.equal(nth(tools, 0, 'tools').params.update.title, 'Read README.md');
    assert.equal(nth(tools, 0, 'tools').params.update.kind, 'read');
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
