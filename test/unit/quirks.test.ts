import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { makeQuirks } from '../../src/runtime/quirks';

const info = (meta: unknown): SessionNotification => ({ sessionId: 's', update: { sessionUpdate: 'session_info_update', _meta: meta } }) as SessionNotification;

describe('agent quirks', () => {
  it("recognises goose's busy rejection for every agent, by message or data", () => {
    const q = makeQuirks();
    assert.ok(
      q.isBusyRejection({ code: -32602, message: 'Invalid params', data: 'session already has active run `run_1`; use _goose/unstable/session/steer' }),
    );
    assert.ok(q.isBusyRejection({ code: -32602, message: 'session already has active run' }));
    assert.ok(!q.isBusyRejection({ code: -32602, message: 'Invalid params', data: 'missing field `prompt`' }));
    assert.ok(!q.isBusyRejection({ code: -32000, message: 'active run' }), 'other codes are not busy by default');
  });

  it("recognises goose's idle signal: activeRunId null, not a run id, not absent", () => {
    const q = makeQuirks();
    assert.ok(q.isIdleSignal(info({ goose: { activeRunId: null } })));
    assert.ok(!q.isIdleSignal(info({ goose: { activeRunId: 'run_1' } })));
    assert.ok(!q.isIdleSignal(info({ other: true })));
    assert.ok(!q.isIdleSignal({ sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' } } }));
  });

  it('an agent entry adds its own patterns (any error code) and idle path', () => {
    const q = makeQuirks({ busyErrorPattern: 'still (running|busy)', idleSignalMetaPath: 'mine.run' });
    assert.ok(q.isBusyRejection({ code: -32000, message: 'agent is still busy' }));
    assert.ok(q.isIdleSignal(info({ mine: { run: null } })));
    assert.ok(q.isIdleSignal(info({ goose: { activeRunId: null } })), "goose's stays recognised");
  });
});
