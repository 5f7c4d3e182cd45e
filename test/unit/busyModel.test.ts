// Enter while a turn runs, the panel's pure parts (media/webview/busyModel.ts).
import * as assert from 'node:assert/strict';
import { busyChoices, choiceForKey, enterAction, lostQueue } from '../../media/webview/busyModel';
import type { PanelStatus } from '../../src/shared/messages';

const status = (over: Partial<PanelStatus>): PanelStatus => ({
  agentName: 'a',
  demo: false,
  folderName: 'f',
  agent: 'ready',
  turn: 'running',
  canSend: true,
  canStop: true,
  queued: [],
  canSteer: false,
  permissionPending: false,
  whenBusy: 'ask',
  ...over,
});

describe('webview: Enter while a turn runs', () => {
  // Sabotage (enterAction returning 'send' whatever the turn), this printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: + 'send' - 'ask'
  it('follows reins.whenBusy while a turn runs or is sent; sends as usual when idle or stopping', () => {
    assert.equal(enterAction(status({})), 'ask');
    assert.equal(enterAction(status({ turn: 'sending', whenBusy: 'queue' })), 'queue');
    assert.equal(enterAction(status({ whenBusy: 'stopAndSend' })), 'stopAndSend');
    assert.equal(enterAction(status({ turn: 'idle' })), 'send');
    assert.equal(enterAction(status({ turn: 'stopping' })), 'send', 'a stopping turn: Enter joins the stop and sends');
    assert.equal(enterAction(undefined), 'send');
  });

  it('offers Steer only where the agent can take it; numbered in order, Queue first', () => {
    assert.deepEqual(
      busyChoices(true).map((o) => `${o.key} ${o.label}`),
      ['1 Queue', '2 Steer', '3 Stop and Send'],
    );
    const without = busyChoices(false);
    assert.deepEqual(
      without.map((o) => `${o.key} ${o.label}`),
      ['1 Queue', '2 Stop and Send'],
    );
    assert.equal(choiceForKey('2', without), 'stopAndSend');
    assert.equal(choiceForKey('3', without), undefined);
    assert.equal(choiceForKey('2', busyChoices(true)), 'steer');
  });

  // Sabotage (lostQueue ignoring the host: always []), this printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: + [] - [ 'second', 'third' ]
  it('a queue seen under another extension host (a reload took it) comes back; under the same host it drained', () => {
    assert.deepEqual(lostQueue({ host: 'old', queued: ['second', 'third'] }, 'new'), ['second', 'third']);
    assert.deepEqual(lostQueue({ host: 'same', queued: ['second'] }, 'same'), []);
    assert.deepEqual(lostQueue({ queued: ['x'] }, 'new'), [], 'never seen under a host: nothing to say');
  });
});
