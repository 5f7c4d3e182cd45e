// The .vsix holds every script the extension starts: .vscodeignore is an allow-list, and a
// script missing from it fails only where the package is installed. For the watchdog that
// failure is silent (agents run, but outlive a dead extension host), so it is checked here,
// with vsce's own matching rules (minimatch, the last matching line wins), in milliseconds
// instead of `vsce ls`'s minute.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { minimatch } from 'minimatch';
import { PRESETS } from '../../src/agents/presets';

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
  // (and, `!dist/highlight.js` removed: "dist/highlight.js is left out of the .vsix": the panel
  // would show every code block plain, its script not found where the package is installed).
  for (const file of ['dist/extension.js', 'dist/reins.js', 'dist/watchdog.js', 'dist/scripted-agent.js', 'dist/webview.js', 'dist/highlight.js']) {
    it(`ships ${file}`, () => assert.ok(packaged(file), `${file} is left out of the .vsix`));
  }
  it('leaves sources out', () => assert.ok(!packaged('src/acp/watchdog.ts')));
  it('leaves the test scenarios out', () => assert.ok(!packaged('test/fixtures/scriptedAgent/scenarios/hang.json')));
});

describe('shipped bundles are built from shipped code', () => {
  // What ships is built from src/, media/ and node_modules/ only, never from test/ (the
  // demonstration agent once lived under test/fixtures/). Read from the bundles' source maps,
  // which the development build (node scripts/esbuild.mjs --tests, run before the tests) writes.
  // Sabotage (esbuild's scripted-agent entry pointed at a copy of src/demoAgent/ under
  // test/fixtures/scriptedAgent/), this test printed:
  //   AssertionError [ERR_ASSERTION]: dist/scripted-agent.js is built from test/: ../test/fixtures/scriptedAgent/sabotageCopy/…
  //   (all 14 of the bundle's sources listed)
  // node_modules by its real path: a git worktree's may be a link to another checkout's.
  const shipped = [path.join(repo, 'src'), path.join(repo, 'media'), realpathSync(path.join(repo, 'node_modules'))];
  for (const bundle of ['extension', 'reins', 'watchdog', 'scripted-agent', 'webview', 'highlight']) {
    it(`dist/${bundle}.js`, () => {
      const map = JSON.parse(readFileSync(path.join(repo, 'dist', `${bundle}.js.map`), 'utf8')) as { sources: string[] };
      const fromTests = map.sources.filter((s) => !shipped.some((dir) => path.resolve(repo, 'dist', s).startsWith(dir + path.sep)));
      assert.deepEqual(fromTests, [], `dist/${bundle}.js is built from test/: ${fromTests.join(', ')}`);
    });
  }
});

describe('files package.json contributions name (the Reins view, the walkthrough)', () => {
  const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
    contributes: {
      viewsContainers: Record<string, { icon: string }[]>;
      views: Record<string, { icon?: string }[]>;
      walkthroughs: { steps: { media: { markdown?: string; image?: string } }[] }[];
    };
  };
  const c = pkg.contributes;
  const files = [
    ...Object.values(c.viewsContainers).flatMap((list) => list.map((v) => v.icon)),
    ...Object.values(c.views).flatMap((list) => list.flatMap((v) => (v.icon ? [v.icon] : []))),
    ...c.walkthroughs.flatMap((w) => w.steps.flatMap((s) => [s.media.markdown, s.media.image].filter((f): f is string => !!f))),
  ];
  // Sabotage (`!media/walkthrough/*.md` removed from .vscodeignore), this printed:
  //   AssertionError [ERR_ASSERTION]: media/walkthrough/agents.md is left out of the .vsix
  for (const file of new Set(files)) {
    it(`ships ${file}`, () => {
      assert.ok(existsSync(path.join(repo, file)), `${file} does not exist`);
      assert.ok(packaged(file), `${file} is left out of the .vsix`);
    });
  }

  // The walkthrough's agent list is written out (a walkthrough shows a file); presets.ts is the source.
  // Sabotage (OpenCode's install command changed in presets.ts), this printed:
  //   AssertionError [ERR_ASSERTION]: agents.md lacks OpenCode's install command "npm install -g opencode-ai2"
  it('the walkthrough lists every preset with its install command', () => {
    const md = readFileSync(path.join(repo, 'media/walkthrough/agents.md'), 'utf8').replace(/\\\|/g, '|');
    for (const p of PRESETS) {
      assert.ok(md.includes(`[${p.title}](${p.homepage})`), `agents.md lacks ${p.title}`);
      assert.ok(md.includes(`\`${p.install}\``), `agents.md lacks ${p.title}'s install command "${p.install}"`);
    }
  });
});
