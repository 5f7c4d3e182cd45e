// An agent that names its tool calls as it did before (a restarted process, a loaded session,
// another agent and back: each counts from the start again; the scripted agent's scenario
// `reused-tool-ids` uses the same ids in every turn of every process) gets new cards: its
// permission shows in the new edit card, and the turn ends when it is answered. Before, the new
// cards and the permission landed on the old ones, up in the transcript, and the turn showed
// "Working…" for good.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LoadSessionResult, SendResult } from '../../src/api';
import type { TranscriptEntry } from '../../src/shared/messages';
import { events } from '../fixtures/scriptedAgent/records';
import { addAgent, api, extensionPath, logText, resetReins, send, useAgent, type ScriptedAgent } from './support';
import { nth, waitFor } from '../support/helpers';

type Permission = Extract<TranscriptEntry, { kind: 'permission' }>;
type Tool = Extract<TranscriptEntry, { kind: 'tool' }>;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-it-reused-'));
let files = 0;

/**
 * The `reused-tool-ids` scenario, its sessions kept in a file of this test's own; `reopens`
 * false: it cannot load sessions (as the demonstration agent), so a restart keeps the transcript
 * and starts a new session in it.
 */
function reusingAgent(reopens: boolean): Promise<ScriptedAgent> {
  const file = path.join(extensionPath(), 'test', 'fixtures', 'scriptedAgent', 'scenarios', 'reused-tool-ids.json');
  const scenario = JSON.parse(fs.readFileSync(file, 'utf8')) as { sessions: object };
  const sessions = reopens ? { ...scenario.sessions, file: path.join(scratch, `sessions-${++files}.jsonl`) } : {};
  return addAgent({ ...scenario, sessions });
}

const transcript = async () => (await api()).state()!.transcript;

/**
 * One turn as a person has it: send `prompt`, wait for the permission to ask (inside the edit's
 * card, in this turn's part of the transcript), allow it, and the turn ends. Returns the
 * transcript then, and this turn's prompt entry and edit card.
 */
async function turnWithPermission(prompt: string): Promise<{ entries: TranscriptEntry[]; user: string; card: Tool }> {
  const reins = await api();
  const sent = send(prompt);
  let ask: Permission | undefined;
  await waitFor(
    `the permission of “${prompt}”`,
    async () => {
      ask = (await transcript()).find((e): e is Permission => e.kind === 'permission' && e.resolved === undefined);
      return ask !== undefined;
    },
    15_000,
  );
  const asked = await transcript();
  const user = asked.map((e) => e.kind === 'user' && e.text === prompt).lastIndexOf(true);
  const cardAt = asked.findIndex((e) => e.id === ask!.toolCallId);
  // Where the panel shows it: in this turn's edit card, after this turn's prompt.
  assert.ok(
    cardAt > user && user >= 0,
    `the permission's card (${ask!.toolCallId}, at ${cardAt}) is not in this turn (its prompt at ${user}): ${JSON.stringify(asked)}`,
  );
  assert.equal(asked.findIndex((e) => e.id === ask!.id) > user, true, 'the permission entry is this turn’s');
  assert.ok(reins.answerPermission(ask!.id, 'allow-once'), 'the request waits to be answered');
  const result = await Promise.race([sent, new Promise<string>((r) => setTimeout(() => r('the turn did not end'), 15_000))]);
  assert.deepEqual(result, { status: 'completed', stopReason: 'end_turn' } satisfies SendResult);
  const entries = await transcript();
  const card = entries.find((e): e is Tool => e.id === ask!.toolCallId && e.kind === 'tool')!;
  assert.equal(card.status, 'completed', 'its own card completed');
  return { entries, user: nth(asked, user, 'the transcript').id, card };
}

/** The first turn is as it was: its cards and its answered permission, untouched by the second. */
function assertFirstTurnKept(first: { entries: TranscriptEntry[]; user: string }, now: TranscriptEntry[]): void {
  const ofFirst = (list: TranscriptEntry[]) => {
    const from = list.findIndex((e) => e.id === first.user);
    return list.slice(from).filter((e) => e.kind === 'tool' || e.kind === 'permission');
  };
  const then = ofFirst(first.entries);
  assert.deepEqual(ofFirst(now).slice(0, then.length), then);
}

describe('an agent reusing its tool call ids', function () {
  this.timeout(90_000);
  afterEach(resetReins);

  // Without the fix (cards keyed by the agent's toolCallId, permission ids counted per process, no
  // guard), this printed: AssertionError: the permission's card (call-edit-1, at 5) is not in this
  // turn (its prompt at 11) — the hang a person saw: the new card and request on the old ones.
  // With the guard kept, the reused request id was refused instead: "Error: timed out after
  // 15000 ms waiting for the permission of “second, after the restart”" (answered cancelled).
  it('after Restart Agent: the second turn has its own cards and its permission is answered', async () => {
    const agent = await reusingAgent(false);
    await useAgent(agent);
    const first = await turnWithPermission('first, before the restart');
    const pid = (await api()).state()!.pid;
    assert.ok(await vscode.commands.executeCommand<boolean>('reins.restartAgent'));
    assert.notEqual((await api()).state()!.pid, pid, 'a new process');
    const second = await turnWithPermission('second, after the restart');
    assert.notEqual(second.card.id, first.card.id);
    assertFirstTurnKept(first, second.entries);
  });

  // Without the new generation at each session opened (only one per agent process), this printed:
  // AssertionError: the permission's card (call-edit-1, at 3) is not in this turn (its prompt at 7)
  // (the loaded session's replayed edit card took the new turn's card and permission).
  it('after session/load in the same process: the replayed cards stay history, the next turn gets its own', async () => {
    const agent = await reusingAgent(true);
    await useAgent(agent);
    await turnWithPermission('first, in the session to load');
    const reins = await api();
    const loaded = reins.state()!.sessionId!;
    const pid = reins.state()!.pid;
    assert.ok(await vscode.commands.executeCommand<boolean>('reins.newSession'));
    const result = await vscode.commands.executeCommand<LoadSessionResult>('reins.loadSession', loaded);
    assert.equal(result.status, 'loaded', JSON.stringify(result));
    assert.equal(reins.state()!.pid, pid, 'the same process');
    const replayed = (await transcript()).find((e): e is Tool => e.kind === 'tool' && e.title === 'Edit notes.md');
    assert.ok(replayed, `the replay shows the edit card: ${JSON.stringify(await transcript())}`);
    const second = await turnWithPermission('second, after the load');
    assert.notEqual(second.card.id, replayed.id);
    assert.deepEqual(
      second.entries.find((e) => e.id === replayed.id),
      replayed,
      'the replayed card is as the replay left it',
    );
  });

  // Without the fix, this printed: AssertionError: the permission's card (call-edit-1, at 5) is
  // not in this turn (its prompt at 23) (run after the two above, in one window).
  it('after switching to another agent and back: each turn has its own cards and permission', async () => {
    const one = await reusingAgent(false);
    const other = await reusingAgent(false);
    await useAgent(one);
    const first = await turnWithPermission('first, with one agent');
    await useAgent(other);
    const second = await turnWithPermission('second, with another agent');
    await useAgent(one);
    const third = await turnWithPermission('third, back with the first agent');
    assert.equal(new Set([first.card.id, second.card.id, third.card.id]).size, 3, 'three cards');
    assertFirstTurnKept(first, third.entries);
    assertFirstTurnKept(second, third.entries);
  });
});

describe('a permission request Reins cannot show', function () {
  this.timeout(60_000);
  afterEach(resetReins);

  // Without the guard (transcript.permission() showing whatever it is given), this printed:
  // "+ 'the turn did not end'" (an entry with no button to press, and "Working…" for good).
  it('is answered cancelled at once, and the transcript and the log say why', async () => {
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            { tool: { id: 'call-x', title: 'Run x', kind: 'execute', status: 'pending' } },
            { permission: { toolCallId: 'call-x', title: 'Run x', options: [] } },
          ],
        },
      ],
    });
    await useAgent(agent);
    const result = await Promise.race([send('ask with no choice'), new Promise<string>((r) => setTimeout(() => r('the turn did not end'), 10_000))]);
    assert.deepEqual(result, { status: 'completed', stopReason: 'cancelled' });
    const answer = events(agent.entries(), 'permission-answered')[0]?.reply as { result?: { outcome?: { outcome?: string } } } | undefined;
    assert.equal(answer?.result?.outcome?.outcome, 'cancelled');
    const t = await transcript();
    assert.ok(
      t.some(
        (e) =>
          e.kind === 'notice' &&
          e.level === 'warning' &&
          /asked for permission \(“Run x”\), but Reins cannot show the request \(it offered no answer to choose\)/.test(e.text),
      ),
      JSON.stringify(t),
    );
    const asked = t.map((e) => e.kind === 'user' && e.text === 'ask with no choice').lastIndexOf(true);
    assert.ok(!t.slice(asked).some((e) => e.kind === 'permission'), 'no entry without a button');
    await waitFor('the log line', async () =>
      /answered permission request perm-\d+ cancelled: Reins cannot show it \(it offered no answer to choose\)/.test(await logText()),
    );
  });
});
