// The one-turn-behind signature (claude-agent-acp 0.23.1, measured: test/agents/README.md) and
// which agents Reins recovers by itself.
import * as assert from 'node:assert/strict';
import { looksOutOfStep, outOfStepRecovery } from '../../src/runtime/outOfStep';

const ZERO = { inputTokens: 0, outputTokens: 0, cachedReadTokens: 0, cachedWriteTokens: 0, totalTokens: 0 };

describe('out of step: the signature', () => {
  const table: [string, Parameters<typeof looksOutOfStep>[0], boolean][] = [
    // Empty, or (after a second cancel sent while behind) with one stale chunk: content is no input.
    ['claude after a stop: end_turn, zero usage', { afterStop: true, stopReason: 'end_turn', usage: ZERO }, true],
    ['not after a stop', { afterStop: false, stopReason: 'end_turn', usage: ZERO }, false],
    ['tokens were used', { afterStop: true, stopReason: 'end_turn', usage: { ...ZERO, outputTokens: 3, totalTokens: 3 } }, false],
    ['no usage reported (most agents)', { afterStop: true, stopReason: 'end_turn', usage: undefined }, false],
    ['a usage without numbers', { afterStop: true, stopReason: 'end_turn', usage: {} }, false],
    ['another stop reason', { afterStop: true, stopReason: 'max_tokens', usage: ZERO }, false],
  ];
  for (const [name, facts, want] of table) it(`${name}: ${want}`, () => assert.equal(looksOutOfStep(facts), want));
});

describe('out of step: recovery per agent', () => {
  it('recovers claude-agent-acp 0.23 fully (measured), tells the user only for others', () => {
    assert.equal(outOfStepRecovery({ name: '@zed-industries/claude-agent-acp', version: '0.23.1' }), 'resend');
    assert.equal(outOfStepRecovery({ name: '@zed-industries/claude-agent-acp', version: '0.24.0' }), 'none');
    assert.equal(outOfStepRecovery({ name: 'reins-scripted-agent', version: '1.0.0' }), 'none');
    assert.equal(outOfStepRecovery(undefined), 'none');
  });
  it("the agent's settings entry wins", () => {
    assert.equal(outOfStepRecovery({ name: 'reins-scripted-agent' }, 'restart'), 'restart');
    assert.equal(outOfStepRecovery({ name: '@zed-industries/claude-agent-acp', version: '0.23.1' }, 'none'), 'none');
    assert.equal(outOfStepRecovery({ name: '@zed-industries/claude-agent-acp', version: '0.23.1' }, 'restart'), 'restart');
    assert.equal(outOfStepRecovery({ name: 'reins-scripted-agent' }, 'resend'), 'resend');
  });
  // The entry arrives as the user typed it (config.ts): a value that is no recovery is no recovery.
  it('a setting that names no recovery is ignored', () => {
    assert.equal(outOfStepRecovery({ name: '@zed-industries/claude-agent-acp', version: '0.23.1' }, 'Resend'), 'resend');
    assert.equal(outOfStepRecovery({ name: 'reins-scripted-agent' }, 42), 'none');
  });
});
