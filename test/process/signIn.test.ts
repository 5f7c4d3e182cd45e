// Sign-in through the runtime against the scripted agent's auth scenario (auth_required at
// session/new and at prompts, `authenticate` before session/new or on the live connection, a
// value in the env). The methods and their text alone: test/unit/signIn.test.ts.
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AUTH_REQUIRED, parseAuthMethods } from '../../src/auth/methods';
import { AgentRuntime, defaultRuntimeSettings, StartError } from '../../src/runtime/agentRuntime';
import { MemoryLogger } from '../../src/util/logger';
import { sha256 } from '../../src/demoAgent/auth';
import { METHODS } from '../fixtures/authMethods';
import { firstEvent, firstReceived, readRecord, received } from '../fixtures/scriptedAgent/records';

const agentJs = path.resolve(__dirname, '../../../dist/scripted-agent.js');

describe('sign-in against the scripted agent', function () {
  this.timeout(20_000);
  const live: AgentRuntime[] = [];
  afterEach(async () => {
    await Promise.all(live.splice(0).map((rt) => rt.shutdown('deactivate', 200)));
  });

  function runtime(auth: object, env: Record<string, string> = {}) {
    const dir = mkdtempSync(path.join(tmpdir(), 'reins-auth-'));
    const record = path.join(dir, 'record.jsonl');
    const scenario = { auth: { methods: METHODS, envVar: 'SCRIPTED_KEY', accept: ['oauth'], ...auth }, prompts: [{ steps: [{ text: 'ok' }] }] };
    const log = new MemoryLogger();
    const rt = new AgentRuntime({
      name: 'scripted',
      launch: { command: process.execPath, args: [agentJs, '--scenario-json', JSON.stringify(scenario), '--record', record], env, cwd: dir },
      settings: () => ({ ...defaultRuntimeSettings, initializeTimeoutMs: 3000 }),
      log,
    });
    live.push(rt);
    return { rt, record, log };
  }

  // Sabotage (StartError without `failure`): "+ undefined - -32000" — the start failure could
  // not be told from any other, so no sign-in was offered.
  it('a refused session/new fails the start with code -32000 and the advertised methods; nothing is authenticated', async () => {
    const { rt, record } = runtime({});
    const error = await rt.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof StartError, String(error));
    assert.equal(error.failure.code, AUTH_REQUIRED);
    assert.deepEqual(
      parseAuthMethods(error.failure.authMethods).map((m) => m.id),
      ['key', 'login', 'oauth'],
    );
    assert.equal(received(readRecord(record), 'authenticate').length, 0, 'authenticate only after the user chose');
    const init = firstReceived(readRecord(record), 'initialize').msg.params as { clientCapabilities: { auth?: { terminal?: boolean } } };
    assert.equal(init.clientCapabilities.auth?.terminal, true, 'Reins can run terminal logins');
  });

  it('a start with the chosen agent method authenticates between initialize and session/new', async () => {
    const { rt, record } = runtime({});
    await rt.start({ authenticate: 'oauth' });
    assert.equal(rt.phase, 'ready');
    const methods = readRecord(record)
      .filter((e) => e.dir === 'in')
      .map((e) => (e as { msg: { method?: string } }).msg.method);
    assert.deepEqual(methods, ['initialize', 'authenticate', 'session/new']);
  });

  it('a value in the environment signs in (the agent sees it; the log has only its name)', async () => {
    const { rt, record, log } = runtime({}, { SCRIPTED_KEY: 'sk-unit-secret-1' });
    await rt.start();
    assert.equal(firstEvent(readRecord(record), 'auth-env').sha256, sha256('sk-unit-secret-1'));
    assert.ok(
      log.lines.some((l) => /env keys SCRIPTED_KEY/.test(l)),
      log.lines.join('\n'),
    );
    assert.ok(!log.lines.join('\n').includes('sk-unit-secret-1'));
  });

  // Sabotage (turnController not passing rpc.code): "+ undefined - -32000".
  it('a refused prompt ends the turn failed with code -32000; authenticate on the live connection then lets it through', async () => {
    const { rt } = runtime({ at: 'prompt' });
    await rt.start();
    const refused = await rt.turns.prompt('hello');
    assert.equal(refused.kind, 'failed');
    assert.equal(refused.kind === 'failed' ? refused.code : undefined, AUTH_REQUIRED);
    await rt.authenticate('oauth');
    assert.deepEqual(await rt.turns.prompt('hello'), { kind: 'completed', stopReason: 'end_turn' });
    await assert.rejects(rt.authenticate('nope'), /Invalid params/);
  });
});
