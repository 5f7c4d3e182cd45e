// A card, a permission and a terminal belong to one session of one agent process: an agent that
// counts its tool call ids from the start again (a restarted process, a loaded or resumed
// session, another agent) gets new cards, and nothing it sends reaches a card from before.
import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { LateUpdates } from '../../src/runtime/lateUpdates';
import { Permissions, type PendingPermission } from '../../src/runtime/permissions';
import { TerminalCards } from '../../src/runtime/terminalCards';
import { Transcript } from '../../src/runtime/transcript';
import type { TranscriptEntry } from '../../src/shared/messages';
import { nth } from '../support/helpers';

type Tool = Extract<TranscriptEntry, { kind: 'tool' }>;
type Permission = Extract<TranscriptEntry, { kind: 'permission' }>;

const note = (sessionId: string, update: object): SessionNotification => ({ sessionId, update }) as SessionNotification;
const announce = (sessionId: string, toolCallId: string, title: string) =>
  note(sessionId, { sessionUpdate: 'tool_call', toolCallId, title, kind: 'edit', status: 'pending' });
const finish = (sessionId: string, toolCallId: string) => note(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
const ask = (id: string, sessionId: string, toolCallId: string, title: string, options = [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }]) =>
  ({ id, turnId: 1, request: { sessionId, toolCall: { toolCallId, title }, options } }) as PendingPermission;
const tools = (t: Transcript) => t.entries.filter((e): e is Tool => e.kind === 'tool');
const permissions = (t: Transcript) => t.entries.filter((e): e is Permission => e.kind === 'permission');

/** The demonstration's first turn (read, then an edit that asks), as agent process `generation` sends it. */
function demoTurn(t: Transcript, generation: number, sessionId: string, requestId: string, prompt: string): void {
  t.user(prompt);
  t.apply(announce(sessionId, 'demo-read-1', `Read (${prompt})`), undefined, generation);
  t.apply(finish(sessionId, 'demo-read-1'), undefined, generation);
  t.apply(announce(sessionId, 'demo-edit-1', `Edit (${prompt})`), undefined, generation);
  assert.equal(t.permission(ask(requestId, sessionId, 'demo-edit-1', `Edit (${prompt})`), generation), undefined, 'shown');
}

describe('card identity: one session of one agent process', () => {
  // Without the fix (cards keyed by the agent's toolCallId alone), this printed:
  //   AssertionError: Expected values to be strictly deep-equal: + actual - expected
  //   - 'Read (first)', - 'Edit (first)'   (expected four cards; the second process's two had
  //   replaced the first's in place, up in the transcript, where nobody looks).
  it('a restarted agent reusing its tool call ids gets new cards at the end; the old ones stay as they were', () => {
    const t = new Transcript();
    const first = t.nextGeneration();
    demoTurn(t, first, 'sess-1', 'perm-1', 'first');
    t.apply(finish('sess-1', 'demo-edit-1'), undefined, first);
    const before = t.entries;
    const second = t.nextGeneration(); // Restart Agent: a new process, which names its session sess-1 again
    demoTurn(t, second, 'sess-1', 'perm-2', 'second');
    assert.deepEqual(
      tools(t).map((c) => c.title),
      ['Read (first)', 'Edit (first)', 'Read (second)', 'Edit (second)'],
    );
    assert.deepEqual(t.entries.slice(0, before.length), before, 'nothing from before changed');
    const read2 = nth(tools(t), 2, 'the cards');
    const edit2 = nth(tools(t), 3, 'the cards');
    assert.equal(edit2.status, 'pending');
    assert.notEqual(read2.id, 'demo-read-1');
    // The new permission names the new card, which the panel shows it in.
    assert.equal(permissions(t).at(-1)!.toolCallId, edit2.id);
    // Its updates reach only its card.
    t.apply(finish('sess-1', 'demo-edit-1'), undefined, second);
    assert.equal(nth(tools(t), 3, 'the cards').status, 'completed');
    assert.equal(t.cardId('sess-1', 'demo-edit-1', second), edit2.id);
    assert.equal(t.cardId('sess-1', 'demo-edit-1', first), 'demo-edit-1');
  });

  // Without the session in the key (generation and toolCallId only), this printed:
  //   AssertionError: Expected values to be strictly deep-equal: + actual - expected  - 'Read (first)', - 'Edit (first)'
  it('another session of the same process (a load, a resume) reusing the ids gets new cards too', () => {
    const t = new Transcript();
    const g = t.nextGeneration();
    demoTurn(t, g, 'sess-1', 'perm-1', 'first');
    demoTurn(t, g, 'sess-2', 'perm-2', 'loaded');
    assert.deepEqual(
      tools(t).map((c) => c.title),
      ['Read (first)', 'Edit (first)', 'Read (loaded)', 'Edit (loaded)'],
    );
    assert.equal(nth(permissions(t), 0, 'the permissions').toolCallId, 'demo-edit-1');
    assert.equal(nth(permissions(t), 1, 'the permissions').toolCallId, nth(tools(t), 3, 'the cards').id);
  });

  it('within one session of one process, an id names the same card (announced twice, updated)', () => {
    const t = new Transcript();
    const g = t.nextGeneration();
    t.apply(announce('s', 'c1', 'Edit a'), undefined, g);
    t.apply(announce('s', 'c1', 'Edit a.md'), undefined, g);
    t.apply(finish('s', 'c1'), undefined, g);
    assert.deepEqual(
      tools(t).map((c) => [c.id, c.title, c.status]),
      [['c1', 'Edit a.md', 'completed']],
    );
  });

  // Without nextId() skipping held ids, this printed:
  //   AssertionError: Expected values to be strictly deep-equal: + actual - expected  - 'tool',
  // (the prompt's entry, u1, replaced the agent's card named u1).
  it("the transcript's own ids never land on a card that carries an agent's id of the same spelling", () => {
    const t = new Transcript();
    t.apply(announce('s', 'u1', 'Read'), undefined, t.nextGeneration());
    t.user('hello');
    assert.deepEqual(
      t.entries.map((e) => e.kind),
      ['tool', 'user'],
    );
  });

  // Without the guard (permission() showing whatever it is given), this printed:
  //   AssertionError: Expected values to be strictly equal: + actual - expected  + undefined  - 'it offered no answer to choose'
  it('a permission request that cannot be shown says why and adds nothing', () => {
    const t = new Transcript();
    assert.equal(t.permission(ask('perm-9', 's', 'x', 'Run it', [])), 'it offered no answer to choose');
    assert.equal(t.entries.length, 0);
    assert.equal(t.permission(ask('perm-9', 's', 'x', 'Run it', [{ optionId: 'y' } as never])), 'one of its answers has no id or no name');
    t.notice('info', 'hello'); // n1
    const taken = nth(t.entries, 0, 'the entries').id;
    assert.match(t.permission(ask(taken, 's', 'x', 'Run it')) ?? '', /is taken by another entry/);
    assert.deepEqual(
      t.entries.map((e) => e.kind),
      ['notice'],
    );
  });

  // Without the extension-wide counter (ids counted per Permissions), this printed:
  //   AssertionError: Expected "actual" to be strictly unequal to: 'perm-1'
  it("permission request ids are never an earlier agent process's", () => {
    const request = { sessionId: 's', options: [] } as never;
    const a = new Permissions();
    const b = new Permissions();
    const ids: string[] = [];
    a.onRequest((p) => ids.push(p.id));
    b.onRequest((p) => ids.push(p.id));
    void a.hold(1, request);
    void b.hold(1, request);
    assert.notEqual(ids[0], ids[1]);
  });

  it('a refused request is answered cancelled at once, and says why', async () => {
    const p = new Permissions();
    let id = '';
    p.onRequest((r) => (id = r.id));
    const resolved: unknown[] = [];
    p.onResolved((r) => resolved.push(r));
    const answer = p.hold(1, { sessionId: 's', options: [] } as never);
    assert.ok(p.refuse(id, 'no answer to choose'));
    assert.deepEqual(await answer, { outcome: { outcome: 'cancelled' } });
    assert.deepEqual(resolved, [{ id, cancelled: true, unshown: 'no answer to choose' }]);
    assert.equal(p.size, 0);
    assert.equal(p.refuse(id, 'again'), false);
  });

  // Without the card resolved per process (terminals linked to the agent's toolCallId), this printed:
  //   AssertionError: Expected values to be strictly equal: + actual - expected  + 'second run\n'  - 'first run\n'
  it("a terminal's output goes to the card of the process that embedded it", () => {
    const t = new Transcript();
    const sink = (g: number) => ({ cardId: (s: string, c: string) => t.cardId(s, c, g), get: (id: string) => t.get(id), upsert: t.upsert.bind(t) });
    const first = t.nextGeneration();
    const embed = (g: number, cards: TerminalCards) => {
      const n = note('s', {
        sessionUpdate: 'tool_call',
        toolCallId: 'run-1',
        title: `Run (${g})`,
        status: 'in_progress',
        content: [{ type: 'terminal', terminalId: 'term-1' }],
      });
      t.apply(n, undefined, g);
      cards.noteUpdate(n);
    };
    const one = new TerminalCards(sink(first));
    embed(first, one);
    one.output({ terminalId: 'term-1', text: 'first run\n', truncated: false });
    const second = t.nextGeneration();
    const two = new TerminalCards(sink(second));
    embed(second, two);
    two.output({ terminalId: 'term-1', text: 'second run\n', truncated: false });
    const old = nth(tools(t), 0, 'the cards');
    const fresh = nth(tools(t), 1, 'the cards');
    assert.equal(old.terminal?.text, 'first run\n');
    assert.deepEqual(fresh.terminal, { text: 'second run\n', truncated: false });
  });

  // Without the session in LateUpdates' names, this printed:
  //   AssertionError: Expected values to be strictly deep-equal: + before: 'u2', + late: true, + turnId: 1  - late: false
  it("another session's tool call of the same id is not a stopped turn's late update", () => {
    const late = new LateUpdates();
    late.turnStarted(1, 'u1');
    late.place({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'x' } as never, 'sess-1');
    late.turnEnded(1, true);
    late.turnStarted(2, 'u2');
    assert.deepEqual(late.place({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'y' } as never, 'sess-2'), { late: false });
    assert.deepEqual(late.place({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1' } as never, 'sess-1'), { late: true, turnId: 1, before: 'u2' });
  });
});
