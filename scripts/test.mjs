#!/usr/bin/env node
// `npm test`: every check, in the order a failure is cheapest to find (lint first, the real host
// last), stopping at the first that fails, with a table of what each step took at the end.
//
// One thing runs beside the others: on a fresh clone the VS Code host (Node 24 + code-server,
// whose native modules are compiled) is installed while lint, the type check and the unit tests
// run. Those are single-threaded and the machines this runs on have two cores, so the install's
// minute and a half mostly disappears; the steps after them (the tests that start processes and
// time them, the real host) wait for it and then run alone, as before. The install writes to its
// own log (shown if it fails) so that the steps' output stays readable. On a new machine the
// Debian packages it needs (Kerberos headers to build with, Chromium to drive the workbench) are
// installed in the same lane, before and beside the host's build, rather than before lint.
//
//   node scripts/test.mjs            what `npm test` runs
//   REINS_TEST_STEPS=lint,unit node scripts/test.mjs   some steps only (by the names below)
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCodeServer, installLogPath, hostInstalled } from '../test/host/installCodeServer.mjs';
import { checkPrerequisites, ensurePrerequisites } from './prerequisites.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The steps, each an npm script; `host`: it needs the VS Code host installed. */
const STEPS = [
  { name: 'lint', script: 'lint' },
  { name: 'typecheck', script: 'typecheck' },
  { name: 'unit', script: 'test:unit' },
  { name: 'process', script: 'test:process', host: true },
  { name: 'integration', script: 'test:integration', host: true },
  { name: 'trust', script: 'test:trust', host: true },
  { name: 'lifeline', script: 'test:lifeline', host: true },
  { name: 'start', script: 'test:start', host: true },
  { name: 'package', script: 'test:package', host: true },
];

const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const log = (m) => console.log(`[test] ${m}`);

/** Runs `npm run <script>` with the terminal; resolves with its exit code. */
function npmRun(script) {
  return new Promise((done) => {
    const child = spawn('npm', ['run', script], { cwd: repo, stdio: 'inherit' });
    // Ctrl-C reaches the child through the terminal's process group; its code ends the run.
    child.on('exit', (code, signal) => done(code ?? (signal ? 130 : 1)));
    child.on('error', (err) => {
      console.error(`[test] could not run npm run ${script}: ${err.message}`);
      done(1);
    });
  });
}

async function main() {
  const started = Date.now();
  const only = process.env.REINS_TEST_STEPS?.split(',');
  const steps = only ? STEPS.filter((s) => only.includes(s.name)) : STEPS;
  if (only && steps.length !== only.length) {
    console.error(`[test] unknown step in REINS_TEST_STEPS=${process.env.REINS_TEST_STEPS}; the steps: ${STEPS.map((s) => s.name).join(', ')}`);
    return 2;
  }
  // The host install, started now and awaited by the first step that needs it.
  let host;
  const needsHost = steps.some((s) => s.host);
  // What cannot be installed here stops the run now; what can is installed in the host's lane.
  if (needsHost) await checkPrerequisites('test');
  const startHost = () => {
    if (host) return host;
    const t = Date.now();
    const cached = hostInstalled();
    if (!cached) log(`installing the VS Code host beside the first steps (its log: ${installLogPath()})`);
    // apt-get one at a time (dpkg has one lock): the build tools first, then Chromium beside
    // the host's build, which needs none of it.
    const built = cached ? Promise.resolve() : ensurePrerequisites('host');
    host = built
      .then(() => Promise.all([ensureCodeServer({ quiet: true }), ensurePrerequisites('test')]))
      .then(
        () => {
          if (!cached) log(`the VS Code host is installed (${secs(Date.now() - t)})`);
          return { ok: true, ms: Date.now() - t };
        },
        (err) => ({ ok: false, ms: Date.now() - t, message: String(err?.message ?? err) }),
      );
    return host;
  };
  if (needsHost) startHost();

  const times = [];
  for (const step of steps) {
    if (step.host) {
      const t = Date.now();
      const r = await startHost();
      const waited = Date.now() - t;
      if (waited > 1000) times.push({ name: 'waiting for the host install', ms: waited });
      if (!r.ok) {
        console.error(`[test] the VS Code host could not be installed: ${r.message}`);
        return report(times, started, 1);
      }
    }
    const t = Date.now();
    const code = await npmRun(step.script);
    times.push({ name: step.name, ms: Date.now() - t, code });
    if (code !== 0) return report(times, started, code);
  }
  return report(times, started, 0);
}

function report(times, started, code) {
  console.log(`\n[test] ${code === 0 ? 'all passed' : 'FAILED'} in ${secs(Date.now() - started)}:`);
  for (const t of times) console.log(`  ${t.code ? 'FAIL' : t.code === 0 ? 'pass' : '    '}  ${t.name.padEnd(28)} ${secs(t.ms).padStart(8)}`);
  return code;
}

// Exit through process.exit so the install's 'exit' hooks end its npm process group and free its lock.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(sig, () => process.exit(130));
main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[test] ${err?.stack ?? err}`);
    process.exit(1);
  },
);
