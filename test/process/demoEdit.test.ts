// The demonstration agent's edit, driven over ACP by Reins' own runtime (the same client a real
// agent gets): its card shows the diff and asks first; Allow writes reins-demo-notes.md in the
// folder through fs/write_text_file (so that Undo This Turn's Changes has something to take
// back), Reject writes nothing. Build first: node scripts/esbuild.mjs --tests.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { AgentRuntime, defaultRuntimeSettings } from '../../src/runtime/agentRuntime';
import { MemoryLogger } from '../../src/util/logger';
import { readRecord, sent } from '../fixtures/scriptedAgent/records';
import { Agent } from '../support/scriptedAgentHarness';

const repo = path.resolve(__dirname, '../../..');
const agentJs = path.join(repo, 'dist', 'scripted-agent.js');
const NOTES = 'reins-demo-notes.md';
const live: AgentRuntime[] = [];
const dirs: string[] = [];

function folder(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'reins-demo-edit-')));
  dirs.push(dir);
  return dir;
}

/** The demo agent in `cwd`, under Reins' runtime; every permission answered with `answer`. */
async function demo(cwd: string, answer: 'allow-once' | 'reject-once') {
  const record = path.join(folder(), 'record.jsonl');
  const rt = new AgentRuntime({
    name: 'demo',
    launch: { command: process.execPath, args: [agentJs, '--demo', '--record', record], cwd },
    settings: () => ({ ...defaultRuntimeSettings, initializeTimeoutMs: 5000 }),
    log: new MemoryLogger(),
  });
  live.push(rt);
  const updates: SessionNotification['update'][] = [];
  rt.session.onUpdate((n) => updates.push(n.update));
  rt.turns.permissions.onRequest((p) => setImmediate(() => rt.turns.respondPermission(p.id, answer)));
  await rt.start();
  return { rt, updates, writes: () => sent(readRecord(record), 'fs/write_text_file') };
}

/** The diff the edit's card showed first (its tool_call), and the card's last status. */
function editCard(updates: SessionNotification['update'][], n: number) {
  const mine = updates.filter((u) => 'toolCallId' in u && u.toolCallId === `demo-edit-${n}`);
  const call = mine.find((u) => u.sessionUpdate === 'tool_call');
  const diff = call && 'content' in call ? call.content?.find((c) => c.type === 'diff') : undefined;
  const status = mine
    .map((u) => ('status' in u ? u.status : undefined))
    .filter(Boolean)
    .at(-1);
  return { diff: diff as { path: string; oldText?: string | null; newText: string } | undefined, status };
}

afterEach(async () => {
  await Promise.all(live.splice(0).map((rt) => rt.shutdown('deactivate', 200)));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the demo agent edits reins-demo-notes.md, only when allowed', function () {
  // Two demonstration turns of about two seconds each, on a loaded machine.
  this.timeout(30_000);

  // Sabotage (demoFiles.ts writing whatever the choice), this printed:
  //   AssertionError [ERR_ASSERTION]: Reject wrote reins-demo-notes.md
  it('Reject: the card shows the diff, nothing is written', async () => {
    const cwd = folder();
    const { rt, updates, writes } = await demo(cwd, 'reject-once');
    assert.deepEqual(await rt.turns.prompt('note this down'), { kind: 'completed', stopReason: 'end_turn' });
    const card = editCard(updates, 1);
    assert.equal(card.diff?.path, path.join(cwd, NOTES), 'the card shows the diff of the notes file');
    assert.equal(card.diff?.oldText ?? undefined, undefined, 'a new file: no old text');
    assert.match(card.diff?.newText ?? '', /^- note this down$/m);
    assert.equal(card.status, 'failed');
    assert.ok(!existsSync(path.join(cwd, NOTES)), `Reject wrote ${NOTES}`);
    assert.equal(writes().length, 0, 'no fs/write_text_file was sent');
  });

  // Sabotage (the write left out after Allow, as the pretend edit was), this printed:
  //   AssertionError [ERR_ASSERTION]: Allow did not write reins-demo-notes.md
  it('Allow: written through fs/write_text_file as the diff showed; the next allowed turn appends a line', async () => {
    const cwd = folder();
    const file = path.join(cwd, NOTES);
    const { rt, updates, writes } = await demo(cwd, 'allow-once');
    assert.deepEqual(await rt.turns.prompt('first note'), { kind: 'completed', stopReason: 'end_turn' });
    assert.ok(existsSync(file), `Allow did not write ${NOTES}`);
    const first = editCard(updates, 1);
    assert.equal(readFileSync(file, 'utf8'), first.diff?.newText, 'the file holds what the diff showed');
    assert.equal(first.status, 'completed');
    assert.equal(writes().length, 1, 'written through the client (fs/write_text_file), as a real agent writes');
    assert.equal(writes()[0]?.msg.params.path, file);

    assert.deepEqual(await rt.turns.prompt('second note'), { kind: 'completed', stopReason: 'end_turn' });
    const second = editCard(updates, 2);
    assert.equal(second.diff?.oldText, first.diff?.newText, 'the second diff starts from the file as the first turn left it');
    assert.equal(readFileSync(file, 'utf8'), second.diff?.newText);
    assert.match(readFileSync(file, 'utf8'), /^- first note\n- second note\n$/m);
  });

  it('a client that offers no fs: the demo writes the file itself on Allow', async () => {
    const cwd = folder();
    const agent = new Agent(['--demo']);
    try {
      await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} }).response;
      const sessionId = (await agent.request('session/new', { cwd, mcpServers: [] }).response).result.sessionId;
      const { response } = agent.prompt(sessionId, 'by hand');
      const ask = await agent.waitFor((m) => m.method === 'session/request_permission', 10_000);
      agent.send({ jsonrpc: '2.0', id: ask.id, result: { outcome: { outcome: 'selected', optionId: 'allow-once' } } });
      assert.deepEqual((await response).result, { stopReason: 'end_turn' });
      assert.match(readFileSync(path.join(cwd, NOTES), 'utf8'), /^- by hand$/m);
      assert.ok(!agent.messages.some((m) => m.method === 'fs/write_text_file'), 'no fs request to a client that offered none');
      assert.match(agent.text(), /Undo This Turn’s Changes/);
    } finally {
      agent.kill();
    }
  });
});
