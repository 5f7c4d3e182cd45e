// Where Reins answers (src/conversation/answers.ts): the rule as a table, and the one place that applies it,
// driven with the real Transcript and a recorded notification port. The real panel and host are
// test/host/answersSmoke.mjs's.
import * as assert from 'node:assert/strict';
import { answerRoute, Answers, offersAction, type Notify } from '../../src/conversation/answers';
import { Transcript } from '../../src/runtime/transcript';
import type { NoticeAction, NoticeLevel } from '../../src/shared/messages';
import { nth } from '../support/helpers';

/** Answers over a real transcript; `sight` says whether the conversation is on screen; notifications are recorded and answered `click`. */
function harness(sight: { inSight: boolean }, click?: string, conversation = true) {
  const transcript = conversation ? new Transcript() : undefined;
  const notified: { level: NoticeLevel; text: string; buttons: string[] }[] = [];
  const acted: NoticeAction[] = [];
  const notify: Notify = (level, text, buttons) => {
    notified.push({ level, text, buttons });
    return Promise.resolve(click);
  };
  const answers = new Answers({ transcript, inSight: () => sight.inSight, notify, act: (a) => acted.push(a) });
  const notices = () => (transcript?.entries ?? []).flatMap((e) => (e.kind === 'notice' ? [e] : []));
  return { answers, notified, acted, notices };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('answers: the conversation while in sight, a notification out of sight', () => {
  // Sabotage (answerRoute returning { notice: true, notification: true } for every conversation, as
  // before: a notification beside every notice) failed this and the next two; this one printed
  //   AssertionError [ERR_ASSERTION]: in sight  (+ notification: true, - notification: false)
  it('the rule, as a table', () => {
    const rows: [string, { conversation: boolean; inSight: boolean }, { notice: boolean; notification: boolean }][] = [
      ['in sight', { conversation: true, inSight: true }, { notice: true, notification: false }],
      ['hidden or closed', { conversation: true, inSight: false }, { notice: true, notification: true }],
      ['no conversation (no folder)', { conversation: false, inSight: false }, { notice: false, notification: true }],
      ['no conversation, whatever is visible', { conversation: false, inSight: true }, { notice: false, notification: true }],
    ];
    for (const [name, where, want] of rows) assert.deepEqual(answerRoute(where), want, name);
  });

  // With that sabotage this printed
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: + [ { buttons: [ 'Open Log' ], level: 'info', text: "Reins: Undid …" } ] - []
  it('in sight: a notice with its buttons, and no notification', async () => {
    const h = harness({ inSight: true });
    const undo: NoticeAction[] = [{ action: 'openLog', label: 'Open Log' }];
    const id = h.answers.say('info', "Undid the last turn's changes: 2 files restored.", undo);
    await settle();
    assert.deepEqual(h.notified, []);
    assert.deepEqual(h.notices(), [{ kind: 'notice', id, level: 'info', text: "Undid the last turn's changes: 2 files restored.", actions: undo }]);
  });

  // Sabotage (the notification left out: `if (route.notification && false)`) failed this, the next
  // and the last; this one printed
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: + [] - [ { buttons: [ 'Open Settings', 'Run Install in Terminal', 'Copy Install Command' ], …
  it('out of sight: the notice waits in the transcript, and a notification says it now with the same buttons; a click runs that action', async () => {
    const h = harness({ inSight: false }, 'Copy Install Command');
    const actions: NoticeAction[] = [
      { action: 'openSettings', label: 'Open Settings' },
      { action: 'installAgent', label: 'Run Install in Terminal', arg: 'goose' },
      { action: 'copyInstall', label: 'Copy Install Command', arg: 'goose' },
    ];
    h.answers.say('error', 'goose is not installed: `goose` was not found.\nstderr: more', actions);
    await settle();
    assert.deepEqual(h.notified, [
      {
        level: 'error',
        text: 'Reins: goose is not installed: `goose` was not found.',
        buttons: ['Open Settings', 'Run Install in Terminal', 'Copy Install Command'],
      },
    ]);
    assert.equal(h.notices().length, 1, 'the notice is in the transcript too');
    assert.equal(nth(h.notices(), 0, 'the notices').text, 'goose is not installed: `goose` was not found.\nstderr: more', 'the notice keeps every line');
    assert.deepEqual(h.acted, [actions[2]], 'the clicked button runs its action, argument and all');
  });

  it('"in sight" is read when the answer is given, not when the answers were made', async () => {
    const sight = { inSight: false };
    const h = harness(sight);
    sight.inSight = true;
    h.answers.say('warning', 'Not undone: goose is running a turn.');
    sight.inSight = false;
    h.answers.say('info', 'Nothing to undo: no file changed since your last prompt.');
    await settle();
    assert.deepEqual(
      h.notified.map((n) => n.text),
      ['Reins: Nothing to undo: no file changed since your last prompt.'],
    );
    assert.equal(h.notices().length, 2);
  });

  it('no conversation: a notification only; dismissed, nothing runs', async () => {
    const h = harness({ inSight: true }, undefined, false);
    assert.equal(h.answers.say('info', 'Reins needs a folder.', [{ action: 'openFolder', label: 'Open Folder' }]), undefined);
    await settle();
    // Said once who speaks: not "Reins: Reins needs a folder."
    assert.deepEqual(h.notified, [{ level: 'info', text: 'Reins needs a folder.', buttons: ['Open Folder'] }]);
    assert.deepEqual(h.acted, []);
  });

  // Sabotage (offersAction returning true: the argument taken at the webview's word), this printed:
  //   AssertionError [ERR_ASSERTION]: another agent's install command
  it("a button's argument runs only if a notice offered exactly that button", () => {
    const t = new Transcript();
    t.notice('error', 'goose is not installed.', [{ action: 'installAgent', label: 'Run Install in Terminal', arg: 'goose' }]);
    t.notice('warning', 'x needs you to sign in.', [{ action: 'signIn', label: 'API key', arg: 'key' }]);
    assert.equal(offersAction(t.entries, 'installAgent', 'goose'), true);
    assert.equal(offersAction(t.entries, 'signIn', 'key'), true);
    assert.equal(offersAction(t.entries, 'installAgent', 'pi'), false, "another agent's install command");
    assert.equal(offersAction(t.entries, 'copyInstall', 'goose'), false, 'another action with that argument');
    assert.equal(offersAction(t.entries, 'signIn', 'oauth'), false, 'a method no notice offered');
    t.clear();
    assert.equal(offersAction(t.entries, 'installAgent', 'goose'), false, 'a notice gone (new session) offers nothing');
  });
});
