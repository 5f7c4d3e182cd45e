// An agent speaking ACP v2 (the scripted v2-stream*.json), through the runtime, the feed and the
// transcript: the v2 initialize both ways; messages by id (the prompt's acknowledgement names the
// typed prompt, a repeated id replaces its entry); streamed tool content appended to its card; an
// agent-owned terminal in its card; a permission request's v2 question and command subject; and
// a stop during a streaming tool chunk and during an agent terminal, each settled at the idle.
import * as assert from 'node:assert/strict';
import { Transcript } from '../../src/runtime/transcript';
import { feedTranscript } from '../../src/runtime/transcriptFeed';
import type { TranscriptEntry } from '../../src/shared/messages';
import { events, readRecord, received } from '../fixtures/scriptedAgent/records';
import { waitFor } from '../support/helpers';
import { shutdownStarted, start } from '../support/runtimeHarness';

type Tool = Extract<TranscriptEntry, { kind: 'tool' }>;
const kinds = (t: Transcript) => t.entries.map((e) => e.kind);

describe('ACP v2: streamed content, agent terminals, messages by id', function () {
  this.timeout(20_000);
  afterEach(shutdownStarted);

  // Sabotage, each run once by hand on 2026-12-06:
  // - messageUpserts.ts' acknowledgement branch off: the kinds began "+ 'user', 'user'" (the
  //   prompt shown twice, the second time as the agent's user_message);
  // - transcriptFeed.ts without messages.take(): the kinds ended without "- 'agent'" (whole
  //   agent_message updates not shown at all);
  // - transcript.ts without its tool_call_content_chunk branch: "+ undefined - 'line one\nline two'";
  // - terminalCards.ts not showing AgentTerminals' views: "+ undefined - '$ npm test\nrunning 3 tests\nok café\n'".
  it('v2-stream: what a v2 agent says is shown once, in place, and its v2 permission asks its own question', async () => {
    const { rt, record } = await start('v2-stream');
    assert.equal(rt.agentInfo?.protocolVersion, 2);
    // Read from v2's `info` (the scripted agent sends no v1 agentInfo under v2).
    assert.equal(rt.agentInfo?.agentInfo?.name, 'reins-scripted-agent');
    const init = received(readRecord(record), 'initialize').map((w) => w.msg.params as Record<string, unknown>);
    assert.equal(init.length, 2, 'v1 refused, then v2');
    const v2 = init[1]!;
    assert.equal(v2.protocolVersion, 2);
    assert.equal((v2.info as { name?: string }).name, 'reins');
    assert.deepEqual(v2.capabilities, { elicitation: { form: {}, url: {} }, auth: { terminal: {} } });
    assert.ok(!('clientCapabilities' in v2) && !('clientInfo' in v2), JSON.stringify(v2));

    const transcript = new Transcript();
    feedTranscript(rt, transcript);
    const asked: string[] = [];
    rt.turns.permissions.onRequest((p) => asked.push(p.id));
    const turn = rt.turns.prompt('run the tests');
    await waitFor('the permission request', () => asked.length === 1);
    const permission = transcript.get(asked[0]!);
    assert.ok(permission?.kind === 'permission', JSON.stringify(permission));
    assert.equal(permission.title, 'Push the branch?');
    assert.equal(permission.question, true);
    assert.equal(permission.description, 'The agent wants to push to origin.');
    assert.equal(permission.command?.command, 'git push');
    // The command names the run card: the request is shown inside it, its title untouched.
    assert.equal(permission.toolCallId, 'v2-run');
    assert.equal((transcript.get('v2-run') as Tool).title, 'Run the tests');
    rt.turns.respondPermission(asked[0]!, 'allow-once');
    assert.equal((await turn).kind, 'completed');

    assert.deepEqual(kinds(transcript), ['user', 'agent', 'tool', 'tool', 'permission', 'agent']);
    const texts = transcript.entries.map((e) => (e.kind === 'agent' ? e.markdown : e.kind === 'user' ? e.text : undefined)).filter(Boolean);
    assert.deepEqual(texts, ['run the tests', 'Let me check the tests.', 'Done: 3 tests pass.']);
    const log = transcript.get('v2-log') as Tool;
    assert.equal(log.detail, 'line one\nline two');
    const run = transcript.get('v2-run') as Tool;
    assert.equal(run.terminal?.text, '$ npm test\nrunning 3 tests\nok café\n');
    assert.equal(run.terminal?.exited, 'exit code 0');
    const answer = received(readRecord(record)).find((w) => w.msg.id !== undefined && w.msg.method === undefined && w.msg.result?.outcome);
    assert.deepEqual(answer?.msg.result?.outcome, { outcome: 'selected', optionId: 'allow-once' });
  });

  // Sabotage (connection.ts' requireClientSurface never refusing): this printed "+ [ -32002,
  // undefined ] - [ -32601, -32601 ]" (both served as under v1: the read found no file, the
  // terminal was created).
  it('a v2 connection has no client file system or terminals: fs/* and terminal/* are unknown methods', async () => {
    const { rt, record } = await start({
      init: { supported: [2] },
      prompts: [
        {
          steps: [
            { call: { method: 'fs/read_text_file', params: { sessionId: '${sessionId}', path: '${cwd}/README.md' } } },
            { call: { method: 'terminal/create', params: { sessionId: '${sessionId}', command: 'true' } } },
          ],
        },
      ],
    });
    assert.equal((await rt.turns.prompt('read')).kind, 'completed');
    const codes = events(readRecord(record), 'call-answered').map((e) => (e.reply as { error?: { code?: number } }).error?.code);
    assert.deepEqual(codes, [-32601, -32601]);
  });

  // Sabotage (turnWire.ts never noting `running` for the turn, so its idle is not taken as the
  // stop's evidence): this printed "+ 'abort-unverified' - 'aborted'".
  it('v2-stream-stop: a stop during a streaming tool chunk and during an agent terminal each settle at the idle; the next prompt goes', async () => {
    const { rt } = await start('v2-stream-stop');
    const transcript = new Transcript();
    feedTranscript(rt, transcript);

    const first = rt.turns.prompt('search');
    await waitFor('the second chunk', () => (transcript.get('v2-grep') as Tool | undefined)?.detail === 'src/a.ts:1\nsrc/b.ts:2');
    const one = await rt.turns.stop('user');
    assert.equal(one.outcome, 'aborted');
    assert.deepEqual(one.evidence, { kind: 'idle-signal' });
    assert.equal((await first).kind, 'stopped');
    assert.equal((transcript.get('v2-grep') as Tool).status, 'cancelled');

    const second = rt.turns.prompt('build');
    await waitFor('the terminal output', () => (transcript.get('v2-build') as Tool | undefined)?.terminal?.text.includes('step 2') === true);
    const two = await rt.turns.stop('user');
    assert.equal(two.outcome, 'aborted');
    assert.equal((await second).kind, 'stopped');
    const build = transcript.get('v2-build') as Tool;
    assert.equal(build.status, 'cancelled');
    assert.equal(build.terminal?.text, '$ make\ncompiling\nstep 2\n');
    assert.equal(build.terminal?.exited, 'killed by SIGINT');

    assert.equal((await rt.turns.prompt('next')).kind, 'completed');
    assert.equal(rt.turns.permissions.list().length, 0);
  });
});
