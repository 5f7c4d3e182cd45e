// The rest of the client surface, at the runtime against the scripted agent (a real child
// process): session config options and modes, updates before session/new's answer, prompt
// content per capability, MCP servers, the protocol version, `$/cancel_request`, unknown
// update kinds. The same through the editor's commands: test/integration/protocol.test.ts.
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpServer } from '@agentclientprotocol/sdk';
import { AgentRuntime, defaultRuntimeSettings, StartError } from '../../src/runtime/agentRuntime';
import { MemoryLogger } from '../../src/util/logger';
import { firstEvent, firstReceived, readRecord, received } from '../fixtures/scriptedAgent/records';
import { modelOption } from '../fixtures/configOptions';
import { sleep } from '../support/helpers';

const repo = path.resolve(__dirname, '../../..');
const agentJs = path.join(repo, 'dist', 'scripted-agent.js');
const live: AgentRuntime[] = [];

function make(scenario: object, mcpServers?: McpServer[]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-proto-'));
  const record = path.join(dir, 'record.jsonl');
  const log = new MemoryLogger();
  const rt = new AgentRuntime({
    name: 'scripted',
    launch: { command: process.execPath, args: [agentJs, '--scenario-json', JSON.stringify(scenario), '--record', record], cwd: dir },
    settings: () => ({ ...defaultRuntimeSettings, initializeTimeoutMs: 3000 }),
    log,
    mcpServers: mcpServers && (() => mcpServers),
  });
  live.push(rt);
  return { rt, record, log, dir, entries: () => readRecord(record) };
}

const modes = {
  currentModeId: 'ask',
  availableModes: [
    { id: 'ask', name: 'Ask' },
    { id: 'code', name: 'Code' },
  ],
};
const quick = [{ steps: [{ text: 'ok' }] }];

afterEach(async () => {
  await Promise.all(live.splice(0).map((rt) => rt.shutdown('deactivate', 200)));
});

describe('protocol at the runtime: config, early updates, content, mcp, version, $/cancel_request', function () {
  this.timeout(20_000);

  // An agent's agentInfo is shown only in the log (issue 12): a newline in its name must not
  // write a line of its own that reads as Reins'. Sabotage (the ready line without oneLine):
  //   AssertionError: info agent scripted ready: session sess-1 (<script>x</script>
  //   2026-12-02 00:00:00.000 [error] a forged log line 1 …
  it("keeps a hostile agentInfo on its own log line: the agent's line breaks escaped", async () => {
    const forged = '2026-12-02 00:00:00.000 [error] a forged log line';
    const { rt, log } = make({ init: { agentInfo: { name: `<script>x</script>\n${forged}`, version: '1\r\n2' } }, prompts: quick });
    await rt.start();
    const ready = log.lines.find((l) => l.includes('ready: session'));
    assert.ok(ready?.includes(`<script>x</script>\\n${forged}`), ready);
    assert.ok(
      log.lines.every((l) => !/[\r\n]/.test(l)),
      log.lines.filter((l) => /[\r\n]/.test(l)).join(' | '),
    );
  });

  it('keeps updates sent before the session/new answer and applies them once the session exists', async () => {
    const { rt } = make({
      session: {
        configOptions: [modelOption],
        before: [
          { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'web', description: 'Search' }] },
          { sessionUpdate: 'session_info_update', title: 'Early title' },
          // The answer (written after this) says m1: the answer wins.
          { sessionUpdate: 'config_option_update', configOptions: [{ ...modelOption, currentValue: 'm2' }] },
        ],
      },
      prompts: quick,
    });
    await rt.start();
    const view = rt.session.controls.config?.view();
    // Sabotage (keepEarly() always false: early updates dropped as before), this printed:
    //   AssertionError: Expected values to be strictly deep-equal: + [] - [ - 'web' ]
    assert.deepEqual(
      view?.commands.map((c) => c.name),
      ['web'],
    );
    assert.equal(view?.title, 'Early title');
    assert.equal(view?.model?.name, 'Model 1');
  });

  it('sets a config option (model), a mode through set_mode, and follows the agent’s own changes, also mid-turn', async () => {
    const { rt, entries } = make({
      session: { configOptions: [modelOption], modes },
      prompts: [{ steps: [{ sleepMs: 400 }, { setConfig: { configId: 'model', value: 'm1' } }, { setMode: 'ask' }, { text: 'done' }] }],
    });
    await rt.start();
    assert.deepEqual(await rt.session.controls.set('model', 'm2'), { status: 'ok', configId: 'model', value: 'm2', method: 'session/set_config_option' });
    assert.equal(rt.session.controls.config?.view().model?.name, 'Model 2');
    // No mode option: 'mode' means session/set_mode.
    assert.deepEqual(await rt.session.controls.set('mode', 'code'), { status: 'ok', configId: 'mode', value: 'code', method: 'session/set_mode' });
    assert.equal(rt.session.controls.config?.view().mode?.name, 'Code');
    const refused = await rt.session.controls.set('model', 'm9');
    assert.equal(refused.status, 'failed');
    // The spec allows a change while the agent generates: it is sent mid-turn.
    const turn = rt.turns.prompt('go');
    await sleep(150);
    assert.equal(rt.turns.turn.phase, 'running');
    assert.equal((await rt.session.controls.set('model', 'm2')).status, 'ok');
    assert.equal((await turn).kind, 'completed');
    // The agent's config_option_update and current_mode_update during the turn.
    assert.equal(rt.session.controls.config?.view().model?.name, 'Model 1');
    assert.equal(rt.session.controls.config?.view().mode?.name, 'Ask');
    const sets = received(entries(), 'session/set_config_option').map((e) => e.msg.params);
    assert.deepEqual(
      sets.map((p: { configId: string; value: string }) => `${p.configId}=${p.value}`),
      ['model=m2', 'model=m2'],
    );
    assert.deepEqual(
      received(entries(), 'session/set_mode').map((e) => e.msg.params.modeId),
      ['code'],
    );
  });

  it('sends attached files as embedded resources or links, as promptCapabilities say', async () => {
    const embed = make({ prompts: quick }); // the scripted agent offers embeddedContext
    const file = path.join(embed.dir, 'a.txt');
    writeFileSync(file, 'alpha');
    await embed.rt.start();
    assert.equal((await embed.rt.turns.prompt('see', [pathToFileURL(file).href])).kind, 'completed');
    assert.deepEqual(firstReceived(embed.entries(), 'session/prompt').msg.params.prompt, [
      { type: 'text', text: 'see' },
      { type: 'resource', resource: { uri: pathToFileURL(file).href, text: 'alpha' } },
    ]);
    const link = make({ init: { capabilities: { promptCapabilities: {} } }, prompts: quick });
    await link.rt.start();
    await link.rt.turns.prompt('see', [file]);
    assert.equal(firstReceived(link.entries(), 'session/prompt').msg.params.prompt[1].type, 'resource_link');
    // Sabotage (prompt() ignoring the problems), this printed: "+ 'completed' - 'not-sent'".
    const missing = await link.rt.turns.prompt('see', [path.join(link.dir, 'gone.txt')]);
    assert.equal(missing.kind, 'not-sent');
    assert.equal(received(link.entries(), 'session/prompt').length, 1, 'a prompt with a missing file is not sent');
  });

  it('passes MCP servers to session/new; http only when the agent advertises it', async () => {
    const servers: McpServer[] = [
      { name: 'local', command: '/bin/true', args: [], env: [] },
      { type: 'http', name: 'api', url: 'https://example.com/mcp', headers: [] },
    ];
    const without = make({ prompts: quick }, servers);
    const skipped: string[] = [];
    without.rt.session.controls.onMcpSkipped((s) => skipped.push(...s.map((x) => x.name)));
    await without.rt.start();
    assert.deepEqual(firstReceived(without.entries(), 'session/new').msg.params.mcpServers, [servers[0]]);
    assert.deepEqual(skipped, ['api']);
    const withHttp = make({ init: { capabilities: { mcpCapabilities: { http: true } } }, prompts: quick }, servers);
    await withHttp.rt.start();
    assert.deepEqual(firstReceived(withHttp.entries(), 'session/new').msg.params.mcpServers, servers);
  });

  it('refuses an agent that answers another protocol version: closed, and the message names both', async () => {
    const { rt, entries } = make({ init: { protocolVersion: 2 }, prompts: quick });
    // Sabotage (the version check in start() back to a log warning), this printed:
    //   AssertionError [ERR_ASSERTION]: Missing expected rejection.
    await assert.rejects(rt.start(), (e: unknown) => e instanceof StartError && /version 2.*version 1/.test(e.message));
    assert.equal(rt.phase, 'failed');
    assert.match(rt.startFailure ?? '', /version 2.*version 1/);
    assert.equal(received(entries(), 'session/new').length, 0, 'no session on a connection in the wrong version');
    assert.ok(rt.exit, 'the agent process was ended');
  });

  it('answers a permission the agent withdraws ($/cancel_request) with -32800 and closes the card', async () => {
    const { rt, entries } = make({
      prompts: [{ steps: [{ permission: { toolCallId: 't1', title: 'Run it', withdrawAfterMs: 200 } }, { text: 'carried on' }] }],
    });
    await rt.start();
    const resolved: { withdrawn?: boolean }[] = [];
    const asked: string[] = [];
    rt.turns.permissions.onRequest((p) => asked.push(p.id));
    rt.turns.permissions.onResolved((r) => resolved.push(r));
    const result = await Promise.race([rt.turns.prompt('go'), new Promise((r) => setTimeout(() => r('the withdrawn permission was never answered'), 6000))]);
    // Sabotage (the connection's permission handler without cancellable()), this printed:
    //   "+ 'the withdrawn permission was never answered' - { kind: 'completed', … }".
    // Sabotage (cancellable() aborting before it rejects: the card's own `cancelled` answer won
    // the race), this printed: "{ kind: 'completed', + stopReason: 'cancelled' - stopReason: 'end_turn' }"
    // — the agent took the withdrawal for a cancel of the turn.
    assert.deepEqual(result, { kind: 'completed', stopReason: 'end_turn' });
    assert.equal(asked.length, 1);
    const answered = firstEvent(entries(), 'permission-answered');
    assert.equal((answered.reply as { error?: { code: number } }).error?.code, -32800);
    // The request's id is the extension host's (permissions.ts), not counted per agent process.
    assert.deepEqual(resolved, [{ id: asked[0], cancelled: true, withdrawn: true }]);
    assert.equal(rt.turns.permissions.list().length, 0);
  });

  it('logs an unknown update kind once per kind', async () => {
    const { rt, log } = make({
      prompts: [{ steps: [{ update: { sessionUpdate: 'mystery_update', x: 1 } }, { update: { sessionUpdate: 'mystery_update', x: 2 } }, { text: 'ok' }] }],
    });
    await rt.start();
    await rt.turns.prompt('go');
    // Sabotage (note() not remembering the kind), this printed: "AssertionError: 2 lines, want 1".
    const lines = log.lines.filter((l) => l.includes('does not handle'));
    assert.equal(lines.length, 1, `${lines.length} lines, want 1`);
  });

  it('sends clientInfo and the boolean config option capability in initialize', async () => {
    const { rt, entries } = make({ prompts: quick });
    await rt.start();
    const params = firstReceived(entries(), 'initialize').msg.params;
    assert.equal(params.clientInfo.name, 'reins');
    assert.equal(typeof params.clientInfo.version, 'string');
    assert.deepEqual(params.clientCapabilities.session, { configOptions: { boolean: {} } });
  });
});
