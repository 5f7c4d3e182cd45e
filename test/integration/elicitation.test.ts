// ACP elicitation in the real extension host: the scripted agent asks with a form and with a
// URL (elicitation.json); what the panel shows is the transcript's entry, answered as the
// panel's buttons do (`answerElicitation`); the state says the turn waits on the user; a Stop
// while one waits answers it `cancel` before the session/cancel; a schema outside the spec is
// refused -32602 and the turn goes on. The record says what the agent got, in which order.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SendResult } from '../../src/api';
import { cancels, events, firstEvent, responseTo } from '../fixtures/scriptedAgent/records';
import { nth, waitFor } from '../support/helpers';
import { addAgent, api, resetReins, send, stop, useAgent, waitingElicitation } from './support';

const within = <T>(p: Thenable<T>, what: string) => Promise.race([p, new Promise<string>((r) => setTimeout(() => r(`${what} did not end`), 15_000))]);

describe('elicitation: form and URL mode in the real host', () => {
  afterEach(resetReins);

  it('form: shown with the agent’s name and message, the turn waits on the user; invalid input refused; Submit sends typed values', async () => {
    const agent = await addAgent('elicitation');
    await useAgent(agent);
    const reins = await api();
    const sent = send('form please');
    const ask = await waitingElicitation();
    assert.equal(ask.mode, 'form');
    assert.equal(ask.message, 'How should I set up the release?');
    assert.equal(ask.agentName, agent.name);
    assert.deepEqual(
      ask.form?.fields.map((f) => `${f.name}:${f.kind}${f.required ? '*' : ''}`),
      ['name:text*', 'email:text*', 'retries:number', 'ratio:number', 'dryRun:boolean', 'strategy:select*', 'targets:multiselect*'],
    );
    // Sabotage (folderConversation.status() without elicitationPending): "+ undefined - 'elicitation'".
    assert.equal(reins.state()?.waitingOn, 'elicitation');
    // sendPrompt says it too: a prompt kept out of the turn is kept out by the user's own question.
    // Sabotage (busyPrompt's keep without waitingOn), this printed: "+ reason: 'a turn is running',
    // - reason: 'the running turn waits for your answer to a question from the agent', - waitingOn".
    assert.deepEqual(await send('meanwhile', 'keep'), {
      status: 'not-sent',
      reason: 'the running turn waits for your answer to a question from the agent',
      waitingOn: 'elicitation',
    } satisfies SendResult);
    const input = { name: 'v2.0', email: 'not-an-email', retries: '3', ratio: '0.5', dryRun: false, strategy: 'balanced', targets: ['mac'] };
    const refused = reins.answerElicitation(ask.id, 'accept', input);
    assert.deepEqual(refused, { ok: false, why: 'the form has invalid input', errors: { email: 'Enter an email address (name@example.com).' } });
    assert.deepEqual(reins.answerElicitation(ask.id, 'accept', { ...input, email: 'a@b.example' }), { ok: true });
    assert.deepEqual(await within(sent, 'the turn'), { status: 'completed', stopReason: 'end_turn' } satisfies SendResult);
    const reply = firstEvent(agent.entries(), 'elicitation-answered').reply as { result: unknown };
    assert.deepEqual(reply.result, {
      action: 'accept',
      content: { name: 'v2.0', email: 'a@b.example', retries: 3, ratio: 0.5, dryRun: false, strategy: 'balanced', targets: ['mac'] },
    });
    const shown = reins.state()!.transcript.find((e) => e.id === ask.id);
    assert.equal(shown?.kind === 'elicitation' && shown.resolved, 'Submitted');
    assert.equal(reins.state()?.waitingOn, undefined);
  });

  it('url: inside its tool call’s card, the host picked out; accept is consent; elicitation/complete closes it', async () => {
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            { tool: { id: 'call-auth', title: 'Connect', kind: 'fetch', status: 'in_progress' } },
            {
              elicit: {
                params: {
                  sessionId: '${sessionId}',
                  toolCallId: 'call-auth',
                  mode: 'url',
                  elicitationId: 'oauth-1',
                  url: 'http://localhost:9/connect?e=1',
                  message: 'Authorize',
                },
                completeAfterMs: 100,
              },
            },
            { toolUpdate: { id: 'call-auth', status: 'completed' } },
            { sleepMs: 100 },
            { text: 'Connected.' },
          ],
        },
      ],
    });
    await useAgent(agent);
    const reins = await api();
    const sent = send('url please');
    const ask = await waitingElicitation();
    const card = reins.state()!.transcript.find((e) => e.kind === 'tool' && e.id === ask.toolCallId);
    assert.ok(card, `the elicitation names its tool call's card (${ask.toolCallId})`);
    assert.deepEqual(ask.url, { before: 'http://', host: 'localhost', after: ':9/connect?e=1', warnings: [] });
    assert.deepEqual(reins.answerElicitation(ask.id, 'accept'), { ok: true });
    assert.deepEqual(await within(sent, 'the turn'), { status: 'completed', stopReason: 'end_turn' });
    assert.deepEqual((firstEvent(agent.entries(), 'elicitation-answered').reply as { result: unknown }).result, { action: 'accept' });
    await waitFor('the completion shown', async () => {
      const e = reins.state()!.transcript.find((x) => x.id === ask.id);
      return e?.kind === 'elicitation' && e.completed === true;
    });
  });

  // Sabotage (the elicitations left out of the routine's cancelPermissions step): "elicitation
  // answered cancel before the session/cancel" failed (the turn's end answered it after the cancel).
  it('Stop while one waits: answered cancel before the session/cancel; the stop is confirmed', async () => {
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            {
              elicit: {
                params: {
                  sessionId: '${sessionId}',
                  mode: 'form',
                  message: 'Which branch?',
                  requestedSchema: { type: 'object', properties: { branch: { type: 'string' } } },
                },
              },
            },
            // The answer alone does not end the turn: the cancel that follows it does.
            { sleepMs: 2000 },
            { text: 'done' },
          ],
        },
      ],
    });
    await useAgent(agent);
    const sent = send('go');
    const ask = await waitingElicitation();
    const stopped = await stop();
    assert.equal(stopped.outcome, 'aborted');
    assert.equal((await sent).status, 'stopped');
    await waitFor(
      'the answer and the cancel in the record',
      async () => cancels(agent.entries()).length > 0 && events(agent.entries(), 'elicitation-answered').length > 0,
    );
    const entries = agent.entries();
    const request = entries.find((e) => e.dir === 'out' && (e as { msg: { method?: string } }).msg.method === 'elicitation/create') as { msg: { id: number } };
    const answer = responseTo(entries, 'in', request.msg.id);
    assert.deepEqual(answer?.msg.result, { action: 'cancel' });
    assert.ok(entries.indexOf(answer) < entries.indexOf(nth(cancels(entries), 0, 'the cancels')), 'elicitation answered cancel before the session/cancel');
    const shown = (await api()).state()!.transcript.find((e) => e.id === ask.id);
    assert.equal(shown?.kind === 'elicitation' && shown.resolved, 'Cancelled');
  });

  // Sabotage in the host (panelHost.ts' onPanelClosed answering the elicitation without the stop):
  // this printed "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: +
  // 'completed' - 'stopped'" (the question was answered, and the turn went on without its panel).
  it('the panel closed while one waits: answered cancel (the panel-closed stop answers it first)', async () => {
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            {
              elicit: { params: { requestId: 4, mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { n: { type: 'string' } } } } },
            },
            { sleepMs: 2000 },
            { text: 'done' },
          ],
        },
      ],
    });
    await useAgent(agent);
    const sent = send('go');
    const ask = await waitingElicitation();
    assert.equal(ask.outsideSession, true);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor('the answer in the record', async () => events(agent.entries(), 'elicitation-answered').length > 0);
    assert.deepEqual((firstEvent(agent.entries(), 'elicitation-answered').reply as { result: unknown }).result, { action: 'cancel' });
    assert.equal((await sent).status, 'stopped');
    const entries = agent.entries();
    const request = entries.find((e) => e.dir === 'out' && (e as { msg: { method?: string } }).msg.method === 'elicitation/create') as { msg: { id: number } };
    const answer = responseTo(entries, 'in', request.msg.id);
    assert.ok(answer && entries.indexOf(answer) < entries.indexOf(nth(cancels(entries), 0, 'the cancels')), 'answered before the session/cancel');
  });

  it('a nested object in the schema: -32602 at once, nothing shown, the turn goes on', async () => {
    const agent = await addAgent('elicitation');
    await useAgent(agent);
    // The fixture's third prompt asks with a nested object.
    for (const ask of ['form', 'url']) {
      void send(ask);
      const pending = await waitingElicitation();
      (await api()).answerElicitation(pending.id, 'decline');
      await waitFor('the turn to end', async () => (await api()).state()?.turn === 'idle');
    }
    const result = await within(send('nested'), 'the turn');
    assert.deepEqual(result, { status: 'completed', stopReason: 'end_turn' });
    const replies = events(agent.entries(), 'elicitation-answered').map((e) => (e.reply as { error?: { code: number } }).error?.code);
    assert.deepEqual(replies, [undefined, undefined, -32602]);
  });
});
