// ACP v2 in the real extension host through Reins' commands and API: a session reopened by
// session/resume (v2-resume: reins.loadSession is a resume from the start that replays the
// conversation; Restart Agent with the conversation still shown is a resume alone; session/load
// is never sent), and a stop whose cancel withdraws the agent's permission requests
// (v2-withdraw-on-cancel: each answered once, cancelled, before the session/cancel; the cards
// closed; the prompt's result says what it waited on). The process tests check the same below
// the host: test/process/v2Sessions.test.ts, test/process/v2Stop.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LoadSessionResult } from '../../src/api';
import type { TranscriptEntry } from '../../src/shared/messages';
import { cancels, events, permissionAnswers, received, sent } from '../fixtures/scriptedAgent/records';
import { nth, waitFor } from '../support/helpers';
import { addAgent, api, extensionPath, resetReins, send, stop, useAgent } from './support';

type Permission = Extract<TranscriptEntry, { kind: 'permission' }>;
const state = async () => (await api()).state()!;
const texts = (kind: 'user' | 'agent', t: TranscriptEntry[]) =>
  t.flatMap((e) => (e.kind === 'user' && kind === 'user' ? [e.text] : e.kind === 'agent' && kind === 'agent' ? [e.markdown] : []));
const notices = (t: TranscriptEntry[]) => t.flatMap((e) => (e.kind === 'notice' ? [e.text] : []));

describe('ACP v2 in the host: sessions resumed, requests withdrawn on a stop', function () {
  this.timeout(120_000);
  afterEach(resetReins);

  // Sabotage in the host (sessionSwitch.ts' load sending session/load whatever the version): this
  // printed "AssertionError: … + error: 'session/load failed: Method not found: session/load',
  // + sessionId: 'sess-3', + status: 'failed' … - sessionId: 'sess-1', - status: 'loaded'". Before
  // the scripted agent's fix (a v2 prompt remembered once), this test found the prompt shown twice
  // after the load: "+ [ 'What is the answer?', 'What is the answer?' ]".
  it('v2-resume: Load Session is session/resume from the start (replayed); Restart Agent is session/resume alone; never session/load', async () => {
    // The scenario's agent, its sessions kept in a file so that they outlive its process.
    const scenario = JSON.parse(fs.readFileSync(path.join(extensionPath(), 'test/fixtures/scriptedAgent/scenarios/v2-resume.json'), 'utf8'));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'reins-it-v2-')), 'sessions.jsonl');
    const agent = await addAgent({ ...scenario, sessions: { ...scenario.sessions, file } });
    await useAgent(agent);
    assert.equal((await send('What is the answer?')).status, 'completed');
    const first = (await state()).sessionId!;
    assert.ok(await vscode.commands.executeCommand<boolean>('reins.newSession'));
    assert.notEqual((await state()).sessionId, first);

    const loaded = await vscode.commands.executeCommand<LoadSessionResult>('reins.loadSession', first);
    assert.deepEqual(loaded, { status: 'loaded', sessionId: first });
    const replayed = (await state()).transcript;
    assert.deepEqual(texts('user', replayed), ['What is the answer?']);
    assert.deepEqual(texts('agent', replayed), ['The answer is 42.'], 'the replay brought the conversation back, once');

    // The conversation is still shown: the new process resumes the session without a replay.
    const before = await state();
    assert.ok(await vscode.commands.executeCommand<boolean>('reins.restartAgent'));
    const after = await state();
    assert.notEqual(after.pid, before.pid, 'a new process');
    assert.equal(after.sessionId, first);
    assert.deepEqual(texts('agent', after.transcript), ['The answer is 42.'], 'nothing replayed twice');
    assert.ok(
      notices(after.transcript).some((t) => t.startsWith('Resumed the session')),
      JSON.stringify(notices(after.transcript)),
    );

    const resumes = received(agent.entries(), 'session/resume').map((w) => w.msg.params.replayFrom ?? null);
    assert.deepEqual(resumes, [{ type: 'start' }, null]);
    assert.equal(received(agent.entries(), 'session/load').length, 0, 'session/load is not a v2 method');
  });

  // Sabotage in the host (the routine's cancelPermissions effect removed from turnMachine.ts): this
  // printed "AssertionError: … { cause: 'user', outcome: 'aborted', status: 'stopped', - waitingOn:
  // 'permission' }" (nothing was answered before the cancel, so nothing was read as waited on).
  it('v2-withdraw-on-cancel: Stop with two requests waiting: one cancelled answer each, before the cancel; cards closed; the next prompt goes', async () => {
    const agent = await addAgent('v2-withdraw-on-cancel');
    await useAgent(agent);
    const first = send('go');
    const waiting = async () => (await state()).transcript.filter((e): e is Permission => e.kind === 'permission' && e.resolved === undefined);
    await waitFor('both requests', async () => (await waiting()).length === 2, 30_000);
    assert.equal((await state()).waitingOn, 'permission');

    const result = await stop();
    assert.equal(result.outcome, 'aborted', JSON.stringify(result));
    assert.deepEqual(await first, { status: 'stopped', outcome: 'aborted', cause: 'user', waitingOn: 'permission' });

    // The first `cancelled` answer may end the scripted turn (and so withdraw) before its session/cancel is read.
    await waitFor('both withdrawn', () => events(agent.entries(), 'request-withdrawn').length === 2 && cancels(agent.entries()).length > 0, 30_000);
    const entries = agent.entries();
    nth(cancels(entries), 0, 'the session/cancel');
    const requests = sent(entries, 'session/request_permission');
    assert.equal(requests.length, 2);
    // Each answered once, cancelled, before the session/cancel.
    for (const { id, ...answer } of permissionAnswers(entries))
      assert.deepEqual(answer, { answers: 1, outcome: { outcome: 'cancelled' }, beforeCancel: true }, `request ${String(id)}`);
    assert.deepEqual(await waiting(), [], 'a card still waits for the user');
    assert.equal((await state()).waitingOn, undefined);
    assert.deepEqual(await send('next'), { status: 'completed', stopReason: 'end_turn' });
  });
});
