// One build script for the extension, the watchdog, the webview, the scripted agent and the tests.
//   node scripts/esbuild.mjs               development build of dist/
//   node scripts/esbuild.mjs --production  minified dist/ for packaging
//   node scripts/esbuild.mjs --watch       rebuild dist/ on change
//   node scripts/esbuild.mjs --tests       dist/ plus every test entry point into out/
//   node scripts/esbuild.mjs --production --outdir D   the same bundles into D instead of dist/ (the bench's activation)
import * as esbuild from 'esbuild';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');
const outdirAt = process.argv.indexOf('--outdir');
const dist = outdirAt >= 0 ? process.argv[outdirAt + 1] : 'dist';

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  target: 'es2022',
};

/** One `vscode` namespace in the extension's bundle, however many files import it (src/vscodeApi.ts says why). */
const oneVscodeNamespace = {
  name: 'one-vscode-namespace',
  setup(build) {
    const api = resolve('src/vscodeApi.ts');
    build.onResolve({ filter: /^vscode$/ }, (args) => (args.importer === api ? { path: 'vscode', external: true } : { path: api }));
  },
};

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  {
    ...common,
    // The bundle: src/boot/loader.ts (package.json's main) compiles it with a code cache.
    entryPoints: { reins: 'src/extension.ts' },
    outdir: dist,
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
    plugins: [oneVscodeNamespace],
  },
  {
    ...common,
    entryPoints: { extension: 'src/boot/loader.ts' },
    outdir: dist,
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
  },
  {
    ...common,
    // The demonstration agent ships in the package (src/demoAgent/); the tests run the same engine
    // with the scenarios in test/fixtures/scriptedAgent/scenarios/.
    entryPoints: { 'scripted-agent': 'src/demoAgent/agent.ts' },
    outdir: dist,
    platform: 'node',
    format: 'cjs',
  },
  {
    ...common,
    // The watchdog ships in the package: a process per agent that ends the agent's tree if the
    // extension host dies without ending it (src/acp/watchdog.ts). Node built-ins only.
    entryPoints: { watchdog: 'src/acp/watchdog.ts' },
    outdir: dist,
    platform: 'node',
    format: 'cjs',
  },
  {
    ...common,
    // Minified in every build, as packaged: the panel's document compiles it before its first
    // paint (628 KiB unminified, 292 KiB minified); the linked source map keeps it readable.
    minify: true,
    entryPoints: { webview: 'media/webview/main.ts' },
    outdir: dist,
    platform: 'browser',
    format: 'iife',
  },
  {
    ...common,
    // highlight.js and its languages, the webview's second bundle: the first adds it after the
    // panel's first paint (media/webview/highlight.ts), so that paint does not wait for it.
    minify: true,
    entryPoints: { highlight: 'media/webview/highlightLanguages.ts' },
    outdir: dist,
    platform: 'browser',
    format: 'iife',
  },
  {
    ...common,
    // The webview's stylesheet (media/styles/, one file per part) with the codicon font:
    // dist/webview.css and dist/codicon.ttf, both local resources the CSP allows.
    entryPoints: { webview: 'media/styles/index.css' },
    outdir: dist,
    loader: { '.ttf': 'file' },
    assetNames: '[name]',
  },
];

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'fixtures' && name !== 'host' && name !== 'agents-cache') found.push(...findTests(path));
    } else if (/\.(test|index|entry|hooks)\.ts$/.test(name) || name === 'index.ts') {
      found.push(path);
    }
  }
  return found;
}

if (tests) {
  const entryPoints = Object.fromEntries(findTests('test').map((p) => [relative('.', p).replace(/\.ts$/, ''), p]));
  builds.push({
    ...common,
    sourcemap: 'inline',
    entryPoints,
    outdir: 'out',
    platform: 'node',
    format: 'cjs',
    // mocha finds its test files at run time; vscode is the host's own module.
    external: ['vscode', 'mocha', 'playwright-core'],
  });
}

if (watch) {
  // The lines VS Code's $esbuild-watch problem matcher (connor4312.esbuild-problem-matchers)
  // reads: one "started" when the first build starts, one "finished" when the last one ends.
  let active = 0;
  const problemMatcher = {
    name: 'problem-matcher',
    setup(build) {
      build.onStart(() => {
        if (active++ === 0) console.log('[watch] build started');
      });
      build.onEnd((result) => {
        const problems = [...result.errors.map((m) => ['✘ [ERROR]', m]), ...result.warnings.map((m) => ['▲ [WARNING]', m])];
        for (const [kind, { text, location }] of problems) {
          console.error(`${kind} ${text}`);
          if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
        }
        if (--active === 0) console.log('[watch] build finished');
      });
    },
  };
  const contexts = await Promise.all(builds.map((b) => esbuild.context({ ...b, logLevel: 'silent', plugins: [...(b.plugins ?? []), problemMatcher] })));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[esbuild] watching…');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (tests) removeStaleTests();
}

/**
 * Deletes what out/test holds of a test file that no longer exists (moved or deleted): mocha's
 * specs are globs over out/, so an old bundle would still run, from its old folder.
 */
function removeStaleTests() {
  const built = new Set(findTests('test').map((p) => join('out', relative('.', p).replace(/\.ts$/, '.js'))));
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.js') && !built.has(path)) rmSync(path);
    }
  };
  walk(join('out', 'test'));
}
