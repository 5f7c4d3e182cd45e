// npm run test:agents: install the pinned real agents (cached), build the tests, run the
// interop suite. The suite starts its own fake model server in before(); nothing else runs.
//   REINS_AGENTS=codex,gemini npm run test:agents   only those agents
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const t0 = Date.now();
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
const since = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

run(process.execPath, ['test/agents/install.mjs', ...(process.env.REINS_AGENTS?.split(',') ?? [])]);
console.log(`[agents] installed (${since()})`);
run(process.execPath, ['scripts/esbuild.mjs', '--tests']);
console.log(`[agents] built (${since()})`);
// Fresh logs per run (each test file appends to them).
const logs = join(root, '.cache', 'agents', 'logs');
rmSync(logs, { recursive: true, force: true });
mkdirSync(logs, { recursive: true });
run(process.execPath, [
  join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'),
  '--timeout',
  '120000',
  '--reporter',
  'spec',
  '--enable-source-maps',
  'out/test/agents/**/*.test.js',
]);
console.log(`[agents] suite done (${since()})`);
