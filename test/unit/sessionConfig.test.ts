// The session's modes and config options (src/runtime/sessionConfig.ts) and the buffer for
// updates that come before the session exists (src/runtime/pendingUpdates.ts): pure parts.
import * as assert from 'node:assert/strict';
import type { SessionConfigOption, SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk';
import { PendingUpdates } from '../../src/runtime/pendingUpdates';
import { SessionConfig } from '../../src/runtime/sessionConfig';
import { modeOption } from '../fixtures/configOptions';

const modelOption: SessionConfigOption = {
  id: 'llm',
  name: 'Model',
  category: 'model',
  type: 'select',
  currentValue: 'm1',
  options: [
    { group: 'fast', name: 'Fast', options: [{ value: 'm1', name: 'Model 1' }] },
    { group: 'big', name: 'Big', options: [{ value: 'm2', name: 'Model 2', description: 'the most powerful' }] },
  ],
};
const braveOption: SessionConfigOption = { id: 'brave', name: 'Brave Mode', type: 'boolean', currentValue: false };
const modes = {
  currentModeId: 'ask',
  availableModes: [
    { id: 'ask', name: 'Ask' },
    { id: 'architect', name: 'Architect' },
  ],
};

function withOptions(...options: SessionConfigOption[]): SessionConfig {
  const c = new SessionConfig('s1');
  c.setInitial({ configOptions: options });
  return c;
}

describe('session config: modes, options, commands, title, usage', () => {
  it('resolves "mode" and "model" by id, then by category (the first of it)', () => {
    const c = withOptions(modeOption, modelOption);
    assert.equal(c.resolve('llm')?.id, 'llm');
    assert.equal(c.resolve('model')?.id, 'llm');
    assert.deepEqual(c.view().model, { configId: 'llm', name: 'Model 1' });
    assert.deepEqual(c.view().mode, { configId: 'mode', name: 'Ask' });
  });

  it('plans set_config_option for a valid select value and refuses one not offered', () => {
    const c = withOptions(modeOption, modelOption);
    assert.deepEqual(c.plan('model', 'm2'), { method: 'session/set_config_option', params: { sessionId: 's1', configId: 'llm', value: 'm2' } });
    // Sabotage (plan() checking only that the value is a string), this printed:
    //   AssertionError: {"method":"session/set_config_option","params":{…,"configId":"llm","value":"m9"}}
    const refused = c.plan('model', 'm9');
    assert.ok('error' in refused && /no value "m9".*m1, m2/.test(refused.error), JSON.stringify(refused));
    assert.ok('error' in c.plan('nope', 'x'));
  });

  it('boolean options take booleans and say type: boolean', () => {
    const c = withOptions(braveOption);
    assert.deepEqual(c.plan('brave', true), {
      method: 'session/set_config_option',
      params: { sessionId: 's1', configId: 'brave', type: 'boolean', value: true },
    });
    assert.ok('error' in c.plan('brave', 'true'));
    assert.deepEqual(
      c.choices('brave').map((x) => [x.name, x.current]),
      [
        ['On', false],
        ['Off', true],
      ],
    );
  });

  it("maps 'mode' to session/set_mode when the agent offers only modes", () => {
    const c = new SessionConfig('s1');
    c.setInitial({ modes });
    assert.deepEqual(c.plan('mode', 'architect'), { method: 'session/set_mode', params: { sessionId: 's1', modeId: 'architect' } });
    assert.ok('error' in c.plan('mode', 'yolo'));
    assert.deepEqual(c.view().mode, { configId: 'mode', name: 'Ask' });
    c.applySetAnswer({ method: 'session/set_mode', params: { sessionId: 's1', modeId: 'architect' } }, {});
    assert.deepEqual(c.view().mode, { configId: 'mode', name: 'Architect' });
    assert.equal(c.hasModes, true);
    assert.equal(c.hasModels, false);
  });

  it('prefers config options over modes when both are given', () => {
    const c = new SessionConfig('s1');
    c.setInitial({ modes, configOptions: [modeOption] });
    assert.equal((c.plan('mode', 'code') as { method: string }).method, 'session/set_config_option');
  });

  it('config_option_update replaces the options; current_mode_update moves both forms (modeId too)', () => {
    const c = withOptions(modeOption, modelOption);
    assert.equal(c.apply({ sessionUpdate: 'config_option_update', configOptions: [{ ...modelOption, currentValue: 'm2' }] }), true);
    assert.equal(c.view().model?.name, 'Model 2');
    assert.equal(c.view().mode, undefined); // the complete state had no mode option any more
    const d = new SessionConfig('s1');
    d.setInitial({ modes, configOptions: [modeOption] });
    // The spec's prose example says `modeId`; the schema says `currentModeId`.
    assert.equal(d.apply({ sessionUpdate: 'current_mode_update', modeId: 'code' } as unknown as SessionUpdate), true);
    assert.equal(d.view().mode?.name, 'Code');
  });

  it('keeps commands, title and usage; a session_info_update without a title changes nothing', () => {
    const c = new SessionConfig('s1');
    c.apply({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'web', description: 'Search', input: { hint: 'query' } }] });
    c.apply({ sessionUpdate: 'session_info_update', title: '  Fix the tests ' });
    assert.equal(c.apply({ sessionUpdate: 'session_info_update', _meta: { goose: { activeRunId: null } } }), false);
    c.apply({ sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.5, currency: 'USD' } });
    assert.deepEqual(c.view(), {
      title: 'Fix the tests',
      mode: undefined,
      model: undefined,
      commands: [{ name: 'web', description: 'Search', hint: 'query' }],
      usage: { used: 1200, size: 200000, cost: { amount: 0.5, currency: 'USD' } },
    });
    c.apply({ sessionUpdate: 'session_info_update', title: null });
    assert.equal(c.view().title, undefined);
  });

  it('the answer overrides what the early updates said, field by field', () => {
    const c = new SessionConfig('s1');
    c.apply({ sessionUpdate: 'config_option_update', configOptions: [modeOption] });
    c.setInitial({}); // an answer with no options keeps the updates'
    assert.equal(c.view().mode?.name, 'Ask');
    c.setInitial({ configOptions: [{ ...modeOption, currentValue: 'code' }] });
    assert.equal(c.view().mode?.name, 'Code');
  });

  it('lists grouped select values with their group', () => {
    const c = withOptions(modelOption);
    assert.deepEqual(
      c.choices('model').map((x) => [x.group, x.value, x.current]),
      [
        ['Fast', 'm1', true],
        ['Big', 'm2', false],
      ],
    );
  });
});

describe('pending updates: kept before the session exists, bounded', () => {
  const n = (sessionId: string, i: number): SessionNotification => ({ sessionId, update: { sessionUpdate: 'usage_update', used: i, size: 10 } });

  it('hands back one session’s updates in order and forgets the rest', () => {
    const p = new PendingUpdates();
    p.keep(n('a', 1));
    p.keep(n('b', 2));
    p.keep(n('a', 3));
    assert.deepEqual(
      p.take('a').map((x) => (x.update as { used: number }).used),
      [1, 3],
    );
    assert.equal(p.size, 0);
  });

  it('drops the oldest beyond the per-session bound and new ids beyond the session bound', () => {
    const p = new PendingUpdates({ perSession: 3, sessions: 2 });
    for (let i = 0; i < 5; i++) p.keep(n('a', i));
    p.keep(n('b', 9));
    p.keep(n('c', 9)); // a third unknown id: dropped
    // Sabotage (keep() without the shift()), this printed: "+ actual - expected [ + 0, + 1, 2, 3, 4 ]".
    assert.deepEqual(
      p.take('a').map((x) => (x.update as { used: number }).used),
      [2, 3, 4],
    );
    assert.equal(p.size, 0);
  });
});
