// Which steering method an agent has (settings, initialize, the quirk table, goose's busy
// error), what goes on the wire, and what an answer means.
import * as assert from 'node:assert/strict';
import type { InitializeResponse } from '@agentclientprotocol/sdk';
import { steerAnswer, steerMethodFor, steerMethodInBusyError, steerParams } from '../../src/runtime/steering';

const init = (over: Partial<InitializeResponse>): InitializeResponse => ({ protocolVersion: 1, agentCapabilities: {}, ...over });

describe('steering: learned per agent', () => {
  // Sabotage (advertised() always undefined), this printed:
  //   AssertionError [ERR_ASSERTION]: _meta.steering.supported on the answer + undefined - { method: '_session/steering', wire: 'acp' }
  it('from initialize: _meta.steering on the answer or on its capabilities; a method it names', () => {
    const acp = { method: '_session/steering', wire: 'acp' };
    assert.deepEqual(steerMethodFor(init({ _meta: { steering: { supported: true } } })), acp, '_meta.steering.supported on the answer');
    assert.deepEqual(steerMethodFor(init({ agentCapabilities: { _meta: { steering: { supported: true } } } })), acp, 'on agentCapabilities');
    assert.deepEqual(steerMethodFor(init({ _meta: { steering: { method: '_x/steer' } } })), { method: '_x/steer', wire: 'acp' });
    assert.equal(steerMethodFor(init({ _meta: { steering: { supported: false } } })), undefined);
    assert.equal(steerMethodFor(init({ _meta: { steering: 'yes' } })), undefined, 'a wrong shape is no offer');
    assert.equal(steerMethodFor(init({ agentInfo: { name: 'reins-scripted-agent', version: '1' } })), undefined);
    assert.equal(steerMethodFor(undefined), undefined);
  });

  it('from the quirk table: goose, which does not advertise it', () => {
    assert.deepEqual(steerMethodFor(init({ agentInfo: { name: 'goose', version: '1.9.0' } })), { method: '_goose/unstable/session/steer', wire: 'goose' });
  });

  it("the settings entry's steerMethod wins, and says which wire by its name", () => {
    assert.deepEqual(steerMethodFor(init({ _meta: { steering: { supported: true } } }), '_goose/unstable/session/steer'), {
      method: '_goose/unstable/session/steer',
      wire: 'goose',
    });
    assert.deepEqual(steerMethodFor(undefined, ' _mine/steer '), { method: '_mine/steer', wire: 'acp' });
    assert.equal(steerMethodFor(undefined, ''), undefined);
  });

  it("from goose's busy error, which names it", () => {
    assert.deepEqual(steerMethodInBusyError('Invalid params: session already has active run `run_1`; use _goose/unstable/session/steer'), {
      method: '_goose/unstable/session/steer',
      wire: 'goose',
    });
    assert.equal(steerMethodInBusyError('session already has active run `run_1`'), undefined);
    assert.equal(steerMethodInBusyError('use a different model'), undefined);
  });
});

describe('steering: the wire', () => {
  const prompt = [{ type: 'text' as const, text: 'also add tests' }];
  it("goose's carries the announced run id, and is not sent without one", () => {
    const goose = { method: '_goose/unstable/session/steer', wire: 'goose' as const };
    assert.deepEqual(steerParams(goose, 's1', prompt, 'run_7'), { params: { sessionId: 's1', expectedRunId: 'run_7', prompt } });
    assert.ok('error' in steerParams(goose, 's1', prompt, undefined));
  });
  it("ACP's asks the agent not to start a turn of its own", () => {
    assert.deepEqual(steerParams({ method: '_session/steering', wire: 'acp' }, 's1', prompt, undefined), {
      params: { sessionId: 's1', prompt, _meta: { steering: { idleBehavior: 'promptRequired' } } },
    });
  });
  it('an ACP answer other than injected (or startedNewTurn) is no delivery; codex-style {} neither', () => {
    const acp = { method: '_session/steering', wire: 'acp' as const };
    assert.deepEqual(steerAnswer(acp, { outcome: 'injected' }), { delivered: true });
    assert.deepEqual(steerAnswer(acp, { outcome: 'startedNewTurn' }), { delivered: true });
    assert.deepEqual(steerAnswer(acp, { outcome: 'promptRequired', reason: 'noRunningTurn' }), {
      delivered: false,
      why: 'the agent answered "promptRequired"',
    });
    assert.deepEqual(steerAnswer(acp, {}), { delivered: false, why: 'the agent answered without an outcome' });
    assert.deepEqual(steerAnswer(acp, null), { delivered: false, why: 'the agent answered without an outcome' });
    assert.deepEqual(steerAnswer({ method: '_goose/unstable/session/steer', wire: 'goose' }, null), { delivered: true });
  });
});
