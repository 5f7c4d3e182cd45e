// Bad input gets a clear error and loses nothing: in the real extension host.
import * as assert from 'node:assert/strict';
import { responseTo, sent } from '../fixtures/scriptedAgent/records';
import { addAgent, api, logText, resetReins, send, setting } from './support';
import * as vscode from 'vscode';
import { nth, waitFor } from '../support/helpers';

async function select(name: string): Promise<boolean> {
  return (await vscode.commands.executeCommand<boolean>('reins.selectAgent', name)) ?? false;
}

describe('bad input', () => {
  afterEach(resetReins);

  it('lines that are not JSON are logged and skipped; the turn goes on', async () => {
    const agent = await addAgent('garbage');
    assert.ok(await select(agent.name));
    const result = await send('go');
    assert.equal(result.status, 'completed');
    const log = await logText();
    assert.match(log, /not JSON-RPC.*WARN: this line is not JSON/);
    assert.match(log, /Welcome to the agent!/);
    // A response to an id nobody asked for is logged and ignored.
    assert.match(log, /ignored a response to an unknown request id/);
  });

  it('a line larger than the limit closes the connection with an error that says so', async () => {
    await setting('maxMessageMegabytes', 1);
    const agent = await addAgent('oversized');
    assert.ok(await select(agent.name));
    const result = await send('big');
    assert.notEqual(result.status, 'completed');
    await waitFor('the limit in the log', async () => /larger than 1048576 bytes/.test(await logText()));
  });

  it('a request for a method we do not implement gets -32601; invalid params get -32602', async () => {
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            { call: { method: 'elicitation/create', params: { sessionId: 'x', message: 'hi' } } },
            { call: { method: '_scripted/not_a_method', params: {} } },
            { call: { method: 'fs/read_text_file', params: { sessionId: 'x' } } },
            { text: 'done' },
          ],
        },
      ],
    });
    assert.ok(await select(agent.name));
    await send('go');
    const entries = agent.entries();
    const calls = sent(entries).filter((w) => w.msg.method && w.msg.id !== undefined && w.msg.method !== 'session/update');
    const codes = calls.map((c) => responseTo(entries, 'in', c.msg.id!)?.msg.error?.code);
    // elicitation/create is a method Reins implements: without its requestedSchema it is invalid params.
    assert.deepEqual(codes, [-32602, -32601, -32602]);
    const invalid = responseTo(entries, 'in', nth(calls, 2, 'calls').msg.id!)!.msg.error!;
    assert.match(invalid.message, /path/);
  });

  for (const [what, scenario, pattern, setup] of [
    ['a command that is not found', null, /\/no\/such\/agent-binary` was not found on the extension host's PATH or through your login shell/, undefined],
    ['an agent that exits at once', 'exit-at-once', /exited with code 1[\s\S]*no API key found/, undefined],
    [
      'an agent that never answers initialize',
      'init-never',
      /initialize got no answer within 1 s[\s\S]*will never come/,
      () => setting('initializeTimeoutSeconds', 1),
    ],
  ] as const) {
    it(`${what}: a message in the panel with the command, status and stderr, an Open Log button, and the text kept`, async () => {
      await setup?.();
      let name: string;
      if (scenario) {
        name = (await addAgent(scenario)).name;
      } else {
        const agents = { ...(vscode.workspace.getConfiguration('reins').get<Record<string, unknown>>('agents') ?? {}) };
        agents['missing'] = { command: '/no/such/agent-binary', args: ['--acp'] };
        await setting('agents', agents);
        name = 'missing';
      }
      assert.equal(await select(name), false, 'selecting a broken agent reports failure');
      const result = await send(`my precious prompt for ${name}`);
      assert.equal(result.status, 'failed');
      const state = (await api()).state()!;
      assert.equal(state.lastRestoredInput, `my precious prompt for ${name}`, 'the typed text goes back to the input box');
      const notices = state.transcript.filter((e) => e.kind === 'notice' && e.level === 'error');
      const last = notices[notices.length - 1];
      assert.ok(last && last.kind === 'notice', 'an error notice');
      assert.match(last.text, pattern);
      assert.ok(last.text.includes(scenario ? 'scripted-agent.js' : '/no/such/agent-binary'), 'names the command');
      // A command found nowhere is fixed in the settings; a start that failed is read in the log.
      const help = scenario ? 'openLog' : 'openSettings';
      assert.ok(
        last.actions?.some((a) => a.action === help),
        `offers ${help}: ${JSON.stringify(last.actions)}`,
      );
    });
  }
});
