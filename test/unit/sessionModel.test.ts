// The webview's session line and slash completion, pure parts (media/webview/sessionModel.ts).
import * as assert from 'node:assert/strict';
import { compactNumber, completedInput, costText, slashMatches, usageText } from '../../media/webview/sessionModel';
import { nth } from '../support/helpers';

describe('webview session line and slash completion', () => {
  it('says usage compactly, with the share of the window and the cost', () => {
    assert.equal(compactNumber(950), '950');
    assert.equal(compactNumber(12_345), '12.3k');
    assert.equal(compactNumber(200_000), '200k');
    assert.equal(compactNumber(1_200_000), '1.2M');
    assert.equal(usageText({ used: 12_345, size: 200_000, cost: { amount: 0.42, currency: 'USD' } }), '12.3k / 200k tokens (6%) · $0.42');
    assert.equal(usageText({ used: 10, size: 0 }), '10 / 0 tokens');
    assert.equal(costText(3, 'credits'), '3.00 credits');
    assert.equal(usageText(undefined), undefined);
  });

  const commands = [
    { name: 'web', description: 'Search the web', hint: 'query' },
    { name: 'test', description: 'Run tests' },
    { name: 'plan', description: 'Plan' },
    { name: 'review-web', description: 'Review' },
  ];

  it('matches only while a command name is typed: prefix first, then substring', () => {
    assert.deepEqual(
      slashMatches('/', commands).map((c) => c.name),
      ['web', 'test', 'plan', 'review-web'],
    );
    assert.deepEqual(
      slashMatches('/we', commands).map((c) => c.name),
      ['web', 'review-web'],
    );
    assert.deepEqual(
      slashMatches('/WE', commands).map((c) => c.name),
      ['web', 'review-web'],
    );
    assert.deepEqual(slashMatches('/web x', commands), []); // the name is complete
    assert.deepEqual(slashMatches('hello /we', commands), []);
    assert.deepEqual(slashMatches('/test', commands), []); // exact and alone: nothing to add
    assert.deepEqual(slashMatches('/zzz', commands), []);
    assert.equal(completedInput(nth(commands, 0, 'commands')), '/web ');
  });
});
