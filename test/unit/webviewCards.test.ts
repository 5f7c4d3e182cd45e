// The webview's pure parts for tool cards and the composer: the inline diff's rows, the pill
// and answer wording (a rejected edit is not a failure), the `@` word, the prompt history, and
// the one busy line.
import * as assert from 'node:assert/strict';
import type { PanelStatus, TranscriptEntry } from '../../src/shared/messages';
import { answerLine, locationLabel, pathParts, thoughtLabel, toolPill } from '../../media/webview/cardModel';
import { inlineDiff } from '../../media/webview/diffModel';
import { mentionAt } from '../../media/webview/mention';
import { PromptHistory } from '../../media/webview/promptHistory';
import { busyText } from '../../media/webview/statusModel';

type Permission = Extract<TranscriptEntry, { kind: 'permission' }>;
const ask = (resolved?: string): Permission => ({
  kind: 'permission',
  id: 'p',
  title: 'Edit',
  toolCallId: 't',
  options: [
    { optionId: 'y', name: 'Allow', kind: 'allow_once' },
    { optionId: 'n', name: 'Reject', kind: 'reject_once' },
  ],
  ...(resolved !== undefined && { resolved }),
});

describe('webview: inline diff', () => {
  it('numbers added and removed lines and folds long unchanged runs', () => {
    const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const next = old.replace('line 10\n', 'line ten\n');
    const d = inlineDiff(old, next)!;
    assert.equal(d.added, 1);
    assert.equal(d.removed, 1);
    // Sabotage (the rows not folded: `rows = all`), this printed:
    //   AssertionError: Expected values to be strictly deep-equal: + 'same 1/1 line 1', + 'same 2/2 line 2', … (every line, no fold)
    assert.deepEqual(
      d.rows.map((r) => (r.kind === 'fold' ? `fold ${r.count}` : `${r.kind} ${r.oldLine ?? ''}/${r.newLine ?? ''} ${r.text}`)),
      [
        'fold 6',
        'same 7/7 line 7',
        'same 8/8 line 8',
        'same 9/9 line 9',
        'del 10/ line 10',
        'add /10 line ten',
        'same 11/11 line 11',
        'same 12/12 line 12',
        'same 13/13 line 13',
        'fold 7',
      ],
    );
  });
  it('a new file is all added lines', () => {
    const d = inlineDiff(undefined, 'a\nb\n')!;
    assert.deepEqual(
      d.rows.map((r) => r.kind),
      ['add', 'add'],
    );
    assert.equal(d.cut, false);
  });
});

describe('webview: tool card wording', () => {
  it('a rejected edit is Rejected, not Failed; an allowed one that failed is Failed', () => {
    // Sabotage (toolPill without the isRejection branch), this printed:
    //   AssertionError: Expected values to be strictly deep-equal: + { label: 'Failed', tone: 'failed' } - { label: 'Rejected', tone: 'rejected' }
    assert.deepEqual(toolPill('failed', ask('Reject')), { tone: 'rejected', label: 'Rejected' });
    assert.deepEqual(toolPill('cancelled', ask(), 'n'), { tone: 'rejected', label: 'Rejected' });
    assert.deepEqual(toolPill('failed', ask('Allow')), { tone: 'failed', label: 'Failed' });
    assert.deepEqual(toolPill('pending', ask()), { tone: 'waiting', label: 'Waiting for you' });
    assert.deepEqual(toolPill('completed', undefined), { tone: 'completed', label: 'Done' });
  });
  it('a question asked inside the card (an elicitation) is Waiting for you, not Running', () => {
    // Sabotage (toolPill ignoring `asking`), this printed:
    //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
    //   + label: 'Running', tone: 'in_progress'   - label: 'Waiting for you', tone: 'waiting'
    assert.deepEqual(toolPill('in_progress', undefined, undefined, true), { tone: 'waiting', label: 'Waiting for you' });
    assert.deepEqual(toolPill('pending', ask('Allow'), undefined, true), { tone: 'waiting', label: 'Waiting for you' });
    // Answered (or the tool ended): the status again.
    assert.deepEqual(toolPill('in_progress', undefined, undefined, false), { tone: 'in_progress', label: 'Running' });
    assert.deepEqual(toolPill('completed', undefined, undefined, true), { tone: 'completed', label: 'Done' });
  });
  it('an answered request is one line', () => {
    assert.deepEqual(answerLine(ask('Allow')), { text: 'Allowed: Allow', tone: 'allowed' });
    assert.deepEqual(answerLine(ask('Reject')), { text: 'Rejected: Reject', tone: 'rejected' });
    assert.deepEqual(answerLine(ask('cancelled')), { text: 'Not answered: the turn stopped', tone: 'none' });
  });
  // Where a path may break: after its separators only, never inside a name (the panel broke
  // "reins-demo-notes.md" at its hyphen). Sabotage (pathParts returning [path]): "AssertionError
  // [ERR_ASSERTION]: src/deep/reins-demo-notes.md" with the whole path as one part.
  const parts: [string, string[]][] = [
    ['reins-demo-notes.md:4', ['reins-demo-notes.md:4']],
    ['src/deep/reins-demo-notes.md', ['src/', 'deep/', 'reins-demo-notes.md']],
    ['/abs/dir/', ['/', 'abs/', 'dir/']],
    ['C:\\w\\a-b.ts', ['C:\\', 'w\\', 'a-b.ts']],
    ['a//b', ['a//', 'b']],
    ['', ['']],
  ];
  for (const [path, want] of parts) {
    it(`a path breaks after its separators: ${JSON.stringify(path)}`, () => {
      assert.deepEqual(pathParts(path), want, path);
      assert.equal(pathParts(path).join(''), path, 'nothing lost');
    });
  }
  it('locations and thoughts', () => {
    assert.equal(locationLabel({ path: '/w/src/a.ts', line: 12 }), 'a.ts:12');
    assert.equal(locationLabel({ path: 'C:\\w\\b.md' }), 'b.md');
    assert.equal(thoughtLabel(undefined), 'Thinking');
    assert.equal(thoughtLabel(2.4), 'Thought for 2.4 s');
    assert.equal(thoughtLabel(0.3), 'Thought for less than a second');
  });
});

describe('webview: composer', () => {
  it('finds the @ word at the caret', () => {
    assert.deepEqual(mentionAt('look at @src/a', 14), { query: 'src/a', start: 8, end: 14 });
    assert.deepEqual(mentionAt('@rea more', 2), { query: 'rea', start: 0, end: 4 });
    assert.equal(mentionAt('mail me@host', 12), undefined, 'an @ inside a word is no mention');
    assert.equal(mentionAt('@a b', 4), undefined);
  });

  it('Up at the start walks back, Down at the end forward, then the draft comes back', () => {
    const h = new PromptHistory(['one', 'two']);
    const at = (text: string, caret: number) => ({ start: caret, end: caret });
    // Sabotage (walk() without the caret check), this printed:
    //   AssertionError: the caret is inside the text: the key is the textarea’s  + 'two' - undefined
    assert.equal(h.walk(-1, 'draft', at('draft', 2)), undefined, 'the caret is inside the text: the key is the textarea’s');
    assert.equal(h.walk(-1, 'draft', at('draft', 0)), 'two');
    assert.equal(h.walk(-1, 'two', at('two', 0)), 'one');
    assert.equal(h.walk(-1, 'one', at('one', 0)), undefined, 'nothing older');
    assert.equal(h.walk(1, 'one', at('one', 3)), 'two');
    assert.equal(h.walk(1, 'two', at('two', 3)), 'draft');
    h.add('three');
    h.add('three');
    assert.deepEqual(h.list, ['one', 'two', 'three']);
  });

  it('one busy line, only while a turn is busy', () => {
    const s = (turn: PanelStatus['turn'], detail?: string): PanelStatus => ({
      agentName: 'a',
      demo: false,
      folderName: 'f',
      agent: 'ready',
      turn,
      queued: [],
      canSteer: false,
      permissionPending: false,
      whenBusy: 'ask',
      canSend: true,
      canStop: turn !== 'idle',
      detail,
    });
    assert.equal(busyText(s('idle', 'Ready')), undefined);
    assert.equal(busyText(s('running', 'Working…')), 'Working…');
    assert.equal(busyText(s('stopping', 'Stopping… (cancel sent 1.2 s ago)')), 'Stopping… (cancel sent 1.2 s ago)');
    assert.equal(busyText(s('unverified')), undefined, 'an unconfirmed stop is the header’s, with its actions');
  });
});
