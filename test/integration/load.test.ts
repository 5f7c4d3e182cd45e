// Load in the real extension host (issue 12): eight sessions in four folders, streaming at once.
//
// What that means in Reins' model: a window keeps one conversation per workspace folder
// (src/conversation/conversations.ts: one FolderConversation, one agent process, one ACP session each), so one
// folder cannot hold two. The host opens a multi-root workspace instead (`npm run test:load`:
// REINS_MULTI_ROOT=1, test/host/run.mjs): four checkouts, each opened as two workspace folders,
// the checkout and its `pkg` folder inside it. The folder admission counts nested folders as one
// checkout (admission/folderAdmission.ts), so with `reins.parallelTurnsPerFolder` on, each of the four
// checkouts runs two turns at once: eight conversations, eight agents, four checkouts. Outside
// that workspace (the ordinary run) the suite is skipped.
//
// Each agent floods `agent_message_chunk`s ("c0 ", "c1 ", …, the scripted agent's `flood`).
// Checked: all eight stream at the same moment (from the agents' records); every chunk is in
// its conversation once and in order; the extension host keeps answering (its event loop and a
// round trip through the workbench, measured throughout); eight stops at once all settle,
// confirmed; after Force Stop no agent process is left.
//
// Sabotage notes (2 December; docs/RELIABILITY.md has the runs):
// - A chunk dropped (Transcript.apply skipping `c1234 `): the first test printed
//   "AssertionError: one: the answer differs from the flood at 6298: …231 c1232 c1233 c1235 c1236 …".
// - Force Stop not ending the agent (AgentEnd.forceStop without `proc.end`): the first test passed,
//   the second printed "Error: timed out after 15000 ms waiting for every agent process gone"
//   (44.6 s in all).
// - One folder's session shared with its checkout's (Conversations.conversation keying a `pkg`
//   folder's session by its checkout): the first test printed "AssertionError: one: the agent sent
//   its flood  0 !== 1" (the `pkg` folder's agent had replaced the checkout's), the second "Error:
//   timed out after 120000 ms waiting for one: 300 chunks of the second flood shown" (5 min 12 s).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import type { SendResult, StopResult } from '../../src/api';
import { events, updates } from '../fixtures/scriptedAgent/records';
import { alive, nth, sleep, waitFor } from '../support/helpers';
import { addAgent, api, setting, type ScriptedAgent } from './support';

/** The first turn's flood, streamed whole in every conversation at once. */
const COUNT = 2000;
const PER_SECOND = 1000;
/** The second turn's flood is stopped once every conversation shows this many of its chunks. */
const BEFORE_STOP = 300;
/**
 * The second flood's length: 120 s at PER_SECOND, far longer than the stops take, yet finite, so
 * a failed run's agents do not flood an overloaded host for long.
 */
const SECOND_FLOOD = 120_000;

/** "c0 c1 … c(n-1) ": what the flood's first n chunks read as. */
function chunks(n: number): string {
  let text = '';
  for (let i = 0; i < n; i++) text += `c${i} `;
  return text;
}

/** The folder's agent messages, oldest first. */
async function answers(folder: vscode.WorkspaceFolder): Promise<string[]> {
  const entries = (await api()).state(folder.uri)?.transcript ?? [];
  return entries.filter((e) => e.kind === 'agent').map((e) => (e as { markdown: string }).markdown);
}

/** The last agent message of the folder's transcript. */
async function lastAnswer(folder: vscode.WorkspaceFolder): Promise<string> {
  return (await answers(folder)).at(-1) ?? '';
}

function sendTo(folder: vscode.WorkspaceFolder, text: string): Thenable<SendResult> {
  return vscode.commands.executeCommand<SendResult>('reins.sendPrompt', text, { folder: folder.uri, whenBusy: 'keep' });
}

/** The extension host's responsiveness while it works: timer lag and workbench round trips. */
function probeHost(): { end(): Promise<{ maxLagMs: number; maxRoundTripMs: number; roundTrips: number }> } {
  const TICK = 100;
  let maxLagMs = 0;
  let due = Date.now() + TICK;
  const timer = setInterval(() => {
    const now = Date.now();
    maxLagMs = Math.max(maxLagMs, now - due);
    due = now + TICK;
  }, TICK);
  let running = true;
  let maxRoundTripMs = 0;
  let roundTrips = 0;
  const loop = (async () => {
    while (running) {
      const t = Date.now();
      await vscode.commands.getCommands(true); // answered by the workbench (main thread)
      maxRoundTripMs = Math.max(maxRoundTripMs, Date.now() - t);
      roundTrips++;
      await sleep(250);
    }
  })();
  return {
    async end() {
      running = false;
      clearInterval(timer);
      await loop;
      return { maxLagMs, maxRoundTripMs, roundTrips };
    },
  };
}

describe('load: eight sessions in four checkouts streaming at once', function () {
  this.timeout(300_000);
  const folders = vscode.workspace.workspaceFolders ?? [];
  const agents: ScriptedAgent[] = [];
  const figures: string[] = [];

  before(async function () {
    if (folders.length !== 8 || !vscode.workspace.workspaceFile) this.skip();
    await setting('parallelTurnsPerFolder', true);
    // The settle budget is a time limit: at its default (10 s) one of the eight stops ended
    // `abort-unverified` in a run on the shared machine (load 18) with eight floods queued ahead of
    // the agent's answer. What is checked here is that every stop is confirmed, not how fast; how
    // long each took is printed.
    await setting('settleTimeoutSeconds', 120);
    // One agent (and record) per folder; a folder's session takes reins.defaultAgent when it is made.
    for (const folder of folders) {
      const agent = await addAgent({
        name: 'load',
        prompts: [{ steps: [{ flood: { count: COUNT, perSecond: PER_SECOND } }] }, { steps: [{ flood: { count: SECOND_FLOOD, perSecond: PER_SECOND } }] }],
      });
      agents.push(agent);
      await setting('defaultAgent', agent.name);
      await vscode.commands.executeCommand('reins.openPanel', folder.uri);
      if ((await api()).state(folder.uri)?.agent !== agent.name) await vscode.commands.executeCommand('reins.selectAgent', agent.name);
    }
    for (const [i, folder] of folders.entries()) {
      await waitFor(`${folder.name}: ${nth(agents, i, 'agents').name} ready`, async () => (await api()).state(folder.uri)?.agentPhase === 'ready', 120_000);
    }
  });

  after(async () => {
    if (agents.length === 0) return; // skipped: the ordinary run's settings and editors are not this suite's
    if (figures.length) console.log(`\n  load figures:\n${figures.map((f) => `    ${f}`).join('\n')}`);
    // A failed test may leave floods running: end every agent before the settings are written
    // back (a flooded host took minutes to write them, and the failure was never reported).
    for (const folder of folders) {
      await vscode.commands.executeCommand('reins.openPanel', folder.uri);
      await vscode.commands.executeCommand('reins.forceStop');
    }
    await setting('parallelTurnsPerFolder', undefined);
    await setting('settleTimeoutSeconds', undefined);
    await setting('defaultAgent', undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('eight floods at once: every chunk once and in order, the host answering throughout', async () => {
    const probe = probeHost();
    const t0 = Date.now();
    const results = await Promise.all(folders.map((f) => sendTo(f, `flood ${f.name}`)));
    const host = await probe.end();
    figures.push(`${folders.length} × ${COUNT} chunks at ${PER_SECOND}/s each, all done in ${Date.now() - t0} ms`);
    figures.push(`host: event loop lag at most ${host.maxLagMs} ms; ${host.roundTrips} workbench round trips, the slowest ${host.maxRoundTripMs} ms`);
    for (const [i, folder] of folders.entries()) {
      assert.deepEqual(results[i], { status: 'completed', stopReason: 'end_turn' }, `${folder.name}: completed`);
      assert.equal(events(nth(agents, i, 'agents').entries(), 'flood-sent').length, 1, `${folder.name}: the agent sent its flood`);
      const answer = await lastAnswer(folder);
      // Not assert.equal on 12 KB strings: say where it first differs.
      const want = chunks(COUNT);
      const at = [...want].findIndex((c, j) => answer[j] !== c);
      assert.ok(answer === want, `${folder.name}: the answer differs from the flood at ${at}: …${answer.slice(Math.max(0, at - 20), at + 20)}…`);
    }
    // All eight streamed at the same moment: the latest first chunk came before the earliest last one.
    const spans = agents.map((a) => updates(a.entries(), 'agent_message_chunk').map((u) => u.t));
    const latestStart = Math.max(...spans.map((s) => nth(s, 0, 'the chunks streamed')));
    const earliestEnd = Math.min(...spans.map((s) => nth(s, -1, 'the chunks streamed')));
    assert.ok(latestStart < earliestEnd, `not all eight streamed at once: the last began ${Math.round(latestStart - earliestEnd)} ms after the first ended`);
    figures.push(`all eight streaming together for ${Math.round(earliestEnd - latestStart)} ms`);
    // How fast the host answered is a figure (printed above), not a bound: speed is measured in
    // benchmarks, never asserted as a timing. That it answered at all while eight agents flooded is checked.
    assert.ok(host.roundTrips > 0, 'the workbench never answered a round trip while the eight agents streamed');
  });

  it('eight stops at once while all stream: each confirmed, every chunk sent shown once and in order, no process left', async () => {
    const before = agents.map((a) => updates(a.entries(), 'agent_message_chunk').length);
    const answersBefore = await Promise.all(folders.map(async (f) => (await answers(f)).length));
    const sends = folders.map((f) => sendTo(f, `flood again ${f.name}`));
    // In this turn's answer, a new entry: the first turn's answer holds `c300 ` too (the first
    // run of this test waited on that one and stopped turns that had not begun).
    for (const [i, folder] of folders.entries()) {
      await waitFor(
        `${folder.name}: ${BEFORE_STOP} chunks of the second flood shown`,
        async () => ((await answers(folder))[nth(answersBefore, i, 'answersBefore')] ?? '').includes(`c${BEFORE_STOP} `),
        120_000,
      );
    }
    // `reins.stop` acts on the folder the user works in: each folder is made that one (its panel
    // revealed), then its stop goes, without waiting for the previous stops.
    const probe = probeHost();
    const stops: Thenable<StopResult>[] = [];
    for (const folder of folders) {
      await vscode.commands.executeCommand('reins.openPanel', folder.uri);
      stops.push(vscode.commands.executeCommand<StopResult>('reins.stop'));
    }
    const reports = await Promise.all(stops);
    const results = await Promise.all(sends);
    const host = await probe.end();
    const settled = reports.map((r) => r.settledAfterMs ?? NaN);
    figures.push(`eight stops at once: settled after ${Math.min(...settled)}–${Math.max(...settled)} ms; host lag at most ${host.maxLagMs} ms`);
    for (const [i, folder] of folders.entries()) {
      assert.equal(nth(reports, i, 'reports').outcome, 'aborted', `${folder.name}: the stop was confirmed (${JSON.stringify(reports[i])})`);
      assert.deepEqual(results[i], { status: 'stopped', outcome: 'aborted', cause: 'user' }, `${folder.name}: the turn ended stopped`);
      // Every chunk the agent sent in this turn, up to its cancelled answer, is shown once and in order.
      const sent = updates(nth(agents, i, 'agents').entries(), 'agent_message_chunk').length - nth(before, i, 'before');
      assert.ok(sent >= BEFORE_STOP, `${folder.name}: the agent sent ${sent} chunks`);
      const all = await answers(folder);
      assert.equal(all.length, nth(answersBefore, i, 'answersBefore') + 1, `${folder.name}: one answer for the second turn`);
      const answer = nth(all, nth(answersBefore, i, 'answersBefore'), 'all');
      assert.ok(answer === chunks(sent), `${folder.name}: ${sent} chunks sent, the answer ends …${answer.slice(-40)}`);
    }

    // Force Stop ends each agent's whole tree: no agent process is left.
    const pids = await Promise.all(folders.map(async (f) => (await api()).state(f.uri)!.pid!));
    assert.equal(new Set(pids).size, 8, `eight agent processes: ${pids.join(', ')}`);
    for (const folder of folders) {
      await vscode.commands.executeCommand('reins.openPanel', folder.uri);
      await vscode.commands.executeCommand('reins.forceStop');
    }
    await waitFor('every agent process gone', () => pids.every((p) => !alive(p)), 15_000);
    const listed = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
    const left = listed.split('\n').filter((line) => agents.some((a) => line.includes(a.record)));
    assert.deepEqual(left, [], 'a process of the load agents is still running');
  });
});
