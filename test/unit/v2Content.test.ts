// What an agent speaking ACP v2 sends that the transcript shows: `plan_update` (read as v1's
// `plan`), `cancelled` tool calls and plan entries (and statuses of its own, which say nothing),
// and diffs as `changes` with a `git_patch` (the card's hunks, Open Diff's whole files).
import * as assert from 'node:assert/strict';
import type { SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk';
import { v1Shape } from '../../src/runtime/v2Updates';
import { planItems, stopUnfinished } from '../../src/runtime/planItems';
import { v2DiffViews } from '../../src/runtime/gitPatch';
import { Transcript } from '../../src/runtime/transcript';
import { patchSides } from '../../src/editor/patchSides';
import { reopenMethod, sessionCaps } from '../../src/runtime/sessionCaps';
import type { InitializeResponse } from '@agentclientprotocol/sdk';
import { inlinePatch } from '../../media/webview/diffModel';
import { planProgress } from '../../media/webview/statusModel';

const PATCH = [
  'diff --git /w/src/config.json /w/src/config.json',
  '--- /w/src/config.json',
  '+++ /w/src/config.json',
  '@@ -2,3 +2,3 @@',
  ' {',
  '-  "debug": false',
  '+  "debug": true',
  ' }',
  'diff --git /w/notes.txt /w/notes.txt',
  'new file mode 100644',
  '--- /dev/null',
  '+++ /w/notes.txt',
  '@@ -0,0 +1,2 @@',
  '+hello',
  '+world',
  '',
].join('\n');

const v2Diff = {
  type: 'diff',
  changes: [
    { operation: 'modify', path: '/w/src/config.json', fileType: 'text' },
    { operation: 'add', path: '/w/notes.txt', fileType: 'text' },
    { operation: 'modify', path: '/w/logo.png', fileType: 'binary' },
  ],
  patch: { format: 'git_patch', text: PATCH },
};

const u = (update: object): SessionNotification => ({ sessionId: 's', update: update as SessionUpdate });

describe('ACP v2 updates in v1 shape', () => {
  // Sabotage (v1Shape passing plan_update through unchanged): this printed "AssertionError:
  // Expected values to be strictly deep-equal: + plan: { entries: [ … ] }" (no plan shown at all).
  it('a plan_update of type items is a plan; other plan types pass through (not shown)', () => {
    const entries = [{ content: 'a', priority: 'high', status: 'cancelled' }];
    assert.deepEqual(v1Shape({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: 'p1', entries } } as unknown as SessionUpdate), {
      sessionUpdate: 'plan',
      entries,
    });
    const markdown = { sessionUpdate: 'plan_update', plan: { type: 'markdown', planId: 'p2', text: '# x' } } as unknown as SessionUpdate;
    assert.equal(v1Shape(markdown), markdown);
  });

  // Sabotage (the unknown-status branch removed): "AssertionError: Expected values to be strictly
  // equal: + '_deferred' - 'in_progress'" (a pill with no label in the panel).
  it("a tool status of the agent's own keeps the card's status; cancelled is shown as cancelled", () => {
    const t = new Transcript();
    t.apply(u({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', title: 'Run tests', status: 'in_progress' }));
    t.apply(u(v1Shape({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: '_deferred' } as unknown as SessionUpdate)));
    const card = () => t.get('c1') as { status?: string } | undefined;
    assert.equal(card()?.status, 'in_progress');
    t.apply(u(v1Shape({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'cancelled' } as unknown as SessionUpdate)));
    assert.equal(card()?.status, 'cancelled');
  });
});

describe('ACP v2 plan entries: cancelled', () => {
  // Sabotage (planItems' agentStatus taking `cancelled` for pending): "AssertionError: Expected
  // values to be strictly deep-equal: + 'pending', - 'cancelled'" (then stopped at the turn's end).
  it('an entry the agent cancelled stays cancelled after its turn ends; an unknown status is to do', () => {
    const entries = [
      { content: 'done', priority: 'high', status: 'completed' },
      { content: 'dropped', priority: 'medium', status: 'cancelled' },
      { content: 'custom', priority: 'low', status: '_later' },
    ] as never;
    const items = planItems(entries);
    assert.deepEqual(
      items.map((i) => i.status),
      ['completed', 'cancelled', 'pending'],
    );
    assert.deepEqual(
      stopUnfinished(items).map((i) => i.status),
      ['completed', 'cancelled', 'stopped'],
    );
    assert.equal(planProgress(items), '1 of 3 done, 1 cancelled');
    assert.equal(planProgress(stopUnfinished(items)), 'Stopped: 1 of 3 done, 1 cancelled');
  });
});

describe('ACP v2 diffs: git_patch', () => {
  it('one diff per file of the patch, with its section; a change the patch does not show is a link', () => {
    const { diffs, locations } = v2DiffViews(v2Diff, 256 * 1024);
    assert.deepEqual(
      diffs.map((d) => [d.path, d.oldText, d.newText]),
      [
        ['/w/src/config.json', '{\n  "debug": false\n}\n', '{\n  "debug": true\n}\n'],
        ['/w/notes.txt', undefined, 'hello\nworld\n'],
      ],
    );
    assert.ok(diffs.every((d) => d.patch?.startsWith('diff --git ')));
    assert.deepEqual(locations, [{ path: '/w/logo.png' }]);
  });

  it('no patch, or a format other than git_patch: only the links', () => {
    assert.deepEqual(v2DiffViews({ ...v2Diff, patch: null }, 1e6).diffs, []);
    assert.deepEqual(v2DiffViews({ ...v2Diff, patch: { format: '_hg', text: PATCH } }, 1e6).locations.length, 3);
  });

  it('a tool card from a v2 tool_call_update shows the diffs and the link', () => {
    const t = new Transcript();
    t.apply(u({ sessionUpdate: 'tool_call_update', toolCallId: 'e1', title: 'Edit', kind: 'edit', status: 'completed', content: [v2Diff] }));
    const card = t.get('e1');
    assert.ok(card?.kind === 'tool');
    assert.deepEqual(
      card.diffs?.map((d) => d.path),
      ['/w/src/config.json', '/w/notes.txt'],
    );
    assert.deepEqual(card.locations, [{ path: '/w/logo.png' }]);
  });

  // Sabotage (inlinePatch numbering each hunk's old lines from 1): "AssertionError: Expected
  // values to be strictly deep-equal: + oldLine: 1, - oldLine: 2, …".
  it("the card's rows: the hunk's lines with the file's own numbers, the lines before it folded", () => {
    const section = v2DiffViews(v2Diff, 1e6).diffs[0]!.patch!;
    const rows = inlinePatch(section);
    assert.deepEqual(rows?.rows, [
      { kind: 'fold', count: 1 },
      { kind: 'same', text: '{', oldLine: 2, newLine: 2 },
      { kind: 'del', text: '  "debug": false', oldLine: 3 },
      { kind: 'add', text: '  "debug": true', newLine: 3 },
      { kind: 'same', text: '}', oldLine: 4, newLine: 4 },
    ]);
    assert.deepEqual([rows?.added, rows?.removed], [1, 1]);
    const created = inlinePatch(v2DiffViews(v2Diff, 1e6).diffs[1]!.patch!);
    assert.deepEqual(created?.rows, [
      { kind: 'add', text: 'hello', newLine: 1 },
      { kind: 'add', text: 'world', newLine: 2 },
    ]);
  });

  it('Open Diff: the whole file on both sides, whichever side is on disk; neither: undefined', () => {
    const section = v2DiffViews(v2Diff, 1e6).diffs[0]!.patch!;
    const before = '// config\n{\n  "debug": false\n}\n';
    const after = '// config\n{\n  "debug": true\n}\n';
    assert.deepEqual(patchSides(section, after), { oldText: before, newText: after });
    assert.deepEqual(patchSides(section, before), { oldText: before, newText: after });
    assert.equal(patchSides(section, 'something else entirely\n'), undefined);
    const created = v2DiffViews(v2Diff, 1e6).diffs[1]!.patch!;
    assert.deepEqual(patchSides(created, undefined), { oldText: '', newText: 'hello\nworld\n' });
  });
});

describe('ACP v2 session capabilities', () => {
  const init = (over: object) => ({ protocolVersion: 2, ...over }) as unknown as InitializeResponse;

  // Sabotage (sessionCaps reading v1's fields only): "AssertionError: Expected values to be
  // strictly deep-equal: + close: false, + delete: false, + list: false, + load: false, …": a v2
  // agent could neither load nor resume, so Restart Agent would open a new session.
  it('`capabilities.session` is the baseline: load (as resume from the start), resume, list, close; delete by its marker', () => {
    const caps = sessionCaps(init({ capabilities: { session: { delete: {} } } }));
    assert.deepEqual(caps, { load: true, resume: true, list: true, close: true, delete: true, loadByResume: true });
    assert.equal(reopenMethod(caps, false), 'session/load');
    assert.equal(reopenMethod(caps, true), 'session/resume');
    assert.deepEqual(sessionCaps(init({ capabilities: {} })), { load: false, resume: false, list: false, close: false, delete: false });
    // v1's fields, under v1 (and a v2 answer without `capabilities`), read as before.
    const v1 = { agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } } };
    assert.deepEqual(sessionCaps({ protocolVersion: 1, ...v1 }), { load: true, resume: true, list: false, close: false, delete: false });
    assert.deepEqual(sessionCaps(init(v1)), { load: true, resume: true, list: false, close: false, delete: false });
  });
});
