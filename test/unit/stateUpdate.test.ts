// ACP v2's `state_update` (running / idle with a stop reason), the pure parts: recognised under
// v1 as settle evidence for a stopped turn, under v2 as the end of a turn; never taken for the
// next turn when it comes late. Against the scripted agent: test/process/stateUpdate.test.ts.
import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { offeredVersion } from '../../src/acp/protocol';
import { agentState, StateFence } from '../../src/runtime/stateUpdate';

const note = (update: object) => ({ sessionId: 's', update }) as unknown as SessionNotification;

describe('state_update: pure parts', () => {
  it('recognises running, requires_action and idle (with or without a stop reason), nothing else', () => {
    assert.deepEqual(agentState(note({ sessionUpdate: 'state_update', state: 'running' })), { state: 'running' });
    assert.deepEqual(agentState(note({ sessionUpdate: 'state_update', state: 'requires_action' })), { state: 'requires_action' });
    assert.deepEqual(agentState(note({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' })), { state: 'idle', stopReason: 'cancelled' });
    assert.deepEqual(agentState(note({ sessionUpdate: 'state_update', state: 'idle', stopReason: 7 })), { state: 'idle' });
    assert.equal(agentState(note({ sessionUpdate: 'state_update', state: 'sleeping' })), undefined);
    assert.equal(agentState(note({ sessionUpdate: 'session_info_update', state: 'idle' })), undefined);
  });

  it('an idle speaks for the turn whose running came before it, once', () => {
    const fence = new StateFence();
    assert.equal(fence.idleFor(1), undefined, 'no running reported yet: a late idle');
    fence.working(1);
    assert.equal(fence.idleFor(2), undefined, "turn 1's running says nothing about turn 2");
    assert.equal(fence.idleFor(1), 1);
    assert.equal(fence.idleFor(1), undefined, 'a repeated idle is not a second end');
  });

  it('v2 is asked for only when the agent refuses v1 with -32022 and lists 2', () => {
    assert.equal(offeredVersion({ code: -32022, data: { requested: 1, supported: [2] } }), 2);
    assert.equal(offeredVersion({ code: -32022, data: { requested: 1, supported: [3] } }), undefined);
    assert.equal(offeredVersion({ code: -32602, data: { supported: [2] } }), undefined);
    assert.equal(offeredVersion({ code: -32022 }), undefined);
  });
});
