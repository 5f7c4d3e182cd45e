// The .vsix holds every script the extension starts: .vscodeignore is an allow-list, and a
// script missing from it fails only where the package is installed. For the watchdog that
// failure is silent (agents run, but outlive a dead extension host), so it is checked here,
// with vsce's own matching rules (minimatch, the last matching line wins), in milliseconds
// instead of `vsce ls`'s minute.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { minimatch } from 'minimatch';

const repo = path.resolve(__dirname, '../../..');

function packaged(file: string): boolean {
  let included = true;
  for (const raw of readFileSync(path.join(repo, '.vscodeignore'), 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    if (minimatch(file, negated ? line.slice(1) : line, { dot: true })) included = negated;
  }
  return included;
}

describe('package contents (.vscodeignore)', () => {
  // Sabotage (`!dist/watchdog.js` removed from .vscodeignore), this test printed:
  //   AssertionError [ERR_ASSERTION]: dist/watchdog.js is left out of the .vsix
  for (const file of ['dist/extension.js', 'dist/watchdog.js', 'dist/scripted-agent.js', 'dist/webview.js']) {
    it(`ships ${file}`, () => assert.ok(packaged(file), `${file} is left out of the .vsix`));
  }
  it('leaves sources out', () => assert.ok(!packaged('src/acp/watchdog.ts')));
});
