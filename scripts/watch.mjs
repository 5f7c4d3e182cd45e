#!/usr/bin/env node
// `npm run watch`: esbuild rebuilds dist/ on change while tsc type-checks in watch mode (src/ and
// test/ through test/tsconfig.json, the webview through its own). The three run side by side
// with their output as is, so the problem matchers in .vscode/tasks.json (which runs them as
// separate tasks) read the same lines. Ctrl-C stops all three.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
const jobs = [
  [join(repo, 'scripts', 'esbuild.mjs'), '--watch'],
  [tsc, '-p', 'test', '--noEmit', '--watch', '--preserveWatchOutput'],
  [tsc, '-p', 'media/webview', '--noEmit', '--watch', '--preserveWatchOutput'],
];
const children = jobs.map((args) => spawn(process.execPath, args, { cwd: repo, stdio: 'inherit' }));
const stopAll = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(sig, stopAll);
for (const c of children) {
  c.once('exit', (code) => {
    // One watcher gone (a crash, a bad config): stop the others so the failure is seen.
    stopAll();
    process.exitCode ||= code ?? 0;
  });
}
