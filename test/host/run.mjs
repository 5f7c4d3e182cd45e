#!/usr/bin/env node
// `npm run test:integration`: runs out/test/integration (built by `node scripts/esbuild.mjs
// --tests`) inside a real VS Code extension host, then the UI smoke phase (the UI, reload,
// hostile, scroll, view, first-ten-minutes, answers, look, elicitation, full output and v2 smokes).
//
// Host: code-server + headless Chromium (default; works offline), or
//       REINS_TEST_HOST=electron → @vscode/test-electron (downloads VS Code; used on GitHub CI).
// Env:  REINS_TEST_GREP, REINS_SKIP_UI=1, REINS_SMOKES=ui,scroll (only those smokes; the first-ten-minutes walk is `first`), REINS_TEST_TIMEOUT_MIN (default 20),
//       REINS_EXT_DEV_PATH / REINS_TESTS_PATH (override extension folder / suite index),
//       REINS_HOST_VERBOSE=1 (echo code-server's own output), REINS_WORKSPACE_TRUST=1 (workspace
//       trust on: the folder opens untrusted; npm run test:trust), REINS_MULTI_ROOT=1 (a multi-root
//       workspace, multiRootWorkspace() below; npm run test:load), REINS_SUITE_WINDOWS=1 (the suite
//       in one window instead of two at once; see SHARDS). Everything else in the
//       environment (e.g. REINS_TEST_RECORD_DIR) reaches the extension host unchanged.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupAll, launchBrowser, onCleanup, openWorkbench, shuttingDown, startCodeServer, workbenchUrl } from './codeServer.mjs';
import { runAnswersSmoke } from './answersSmoke.mjs';
import { runElicitationSmoke } from './elicitationSmoke.mjs';
import { runFirstTenMinutesSmoke } from './firstTenMinutesSmoke.mjs';
import { runFullOutputSmoke } from './fullOutputSmoke.mjs';
import { runHostileSmoke } from './hostileSmoke.mjs';
import { runLongSmoke } from './longSmoke.mjs';
import { runLookSmoke } from './lookSmoke.mjs';
import { runReloadSmoke } from './reloadSmoke.mjs';
import { runScrollSmoke } from './scrollSmoke.mjs';
import { runUiSmoke } from './uiSmoke.mjs';
import { runViewSmoke } from './viewSmoke.mjs';
import { runV2Smoke } from './v2Smoke.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const extensionDevelopmentPath = resolve(process.env.REINS_EXT_DEV_PATH || repo);
const extensionTestsPath = resolve(process.env.REINS_TESTS_PATH || join(repo, 'out/test/integration/index.js'));
const timeoutMs = Number(process.env.REINS_TEST_TIMEOUT_MIN || 20) * 60_000;
const started = Date.now();
const secs = (t = started) => `${((Date.now() - t) / 1000).toFixed(1)} s`;

/**
 * Runs one smoke; its summary row carries the first lines of a failure, because CI keeps only the
 * end of a run's output and the smoke's own report scrolls out of it (stop 18 failed so: the
 * summary said "FAIL hostile smoke" and nothing more). `key`: its name in REINS_SMOKES.
 */
async function smoke(name, run, key = name) {
  const t = Date.now();
  if (onlySmokes && !onlySmokes.includes(key)) return [`${name} smoke (not run: REINS_SMOKES)`, 0];
  try {
    await run();
    return [`${name} smoke (${secs(t)})`, 0];
  } catch (err) {
    const message = String(err?.message ?? err);
    console.error(`[${name}-smoke] FAILED: ${message}`);
    return [`${name} smoke (${secs(t)})`, 1, message.split('\n').slice(0, 3).join(' | ').slice(0, 600)];
  }
}
const log = (m) => console.log(`[integration] ${m}`);
const verbose = !!process.env.REINS_HOST_VERBOSE;
// REINS_SMOKES=ui,scroll: only those smokes after the suite (a quicker loop while working on one).
const onlySmokes = process.env.REINS_SMOKES?.split(',');
// Harmless offline chatter (see the note); hidden unless REINS_HOST_VERBOSE=1.
const NOISE = [
  /ENOTFOUND open-vsx\.org/,
  /^\s*at .*\/static\/out\/vs\//, // workbench stack frames of the above
  /authentication provider 'github'/,
  /vsda/,
  /^(Resolving|Resolved) connection token|^Creating a socket|\[reconnection-grace-time\]/,
  /^Updating additional builtin extensions cache|^\[Service Worker\]|^\[AgentHost:|^\[AccountPolicyGate\]/,
];

/** A fresh copy of the fixture workspace, so tests may edit files freely; removed at cleanup. */
function freshWorkspace() {
  const dir = mkdtempSync(join(tmpdir(), 'reins-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), dir, { recursive: true });
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The checkouts of the multi-root workspace, each opened as two workspace folders. */
const CHECKOUTS = ['one', 'two', 'three', 'four'];

/**
 * A multi-root workspace for the load test (test/integration/load.test.ts): four copies of the
 * fixture workspace (four checkouts), each opened as two workspace folders, itself and its `pkg`
 * folder, since Reins keeps one conversation per workspace folder (src/conversation/conversations.ts). The
 * `.code-workspace` file is written in the same temporary folder; removed at cleanup.
 */
function multiRootWorkspace() {
  const dir = mkdtempSync(join(tmpdir(), 'reins-multi-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const folders = [];
  for (const name of CHECKOUTS) {
    cpSync(join(repo, 'test/fixtures/workspace'), join(dir, name), { recursive: true });
    mkdirSync(join(dir, name, 'pkg'));
    writeFileSync(join(dir, name, 'pkg', 'index.js'), `// ${name}/pkg\n`);
    folders.push({ path: name }, { path: `${name}/pkg` });
  }
  const file = join(dir, 'load.code-workspace');
  writeFileSync(file, JSON.stringify({ folders, settings: {} }, null, 2));
  return file;
}

async function runElectron(workspace) {
  const { runTests } = await import('@vscode/test-electron');
  return runTests({
    extensionDevelopmentPath,
    extensionTestsPath,
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
  }).then(
    () => 0,
    (err) => {
      console.error(`[integration] ${err?.message ?? err}`);
      return 1;
    },
  );
}

/**
 * The suite in two windows at once, each with its own code-server, user and workspace copy: the
 * settle matrix (88 rows that mostly wait out real unwinds and budgets: 137 s of the suite's 298)
 * and the rest. One window keeps 1.2 of the 2 cores busy on average, waiting the rest of the
 * time, so a second beside it finishes the suite sooner. REINS_SUITE_WINDOWS=1 (or any
 * REINS_TEST_GREP) runs it in one window.
 */
const SETTLE_MATRIX = '^settle contract: every exit path';
const SHARDS = [
  { name: 'settle matrix', grep: SETTLE_MATRIX },
  { name: 'rest', grep: SETTLE_MATRIX, invert: true },
];

async function runCodeServer(workspace, shard) {
  // The extension host also appends the reporter output here (see test/integration/index.ts);
  // we print it only if the console forwarding through codeAutomationLog showed none of it.
  const outputFile = `${workspace}-mocha.log`;
  const label = shard ? `[${shard.name}] ` : '';
  const shardEnv = shard ? { REINS_TEST_GREP: shard.grep, REINS_TEST_INVERT: shard.invert ? '1' : '0' } : {};
  // Conversations open in an editor tab here: the exit-path matrix closes the tab ("panel closed"),
  // and the suites check tabs. The Reins view (the default) has its own smoke (viewSmoke.mjs).
  const trust = process.env.REINS_WORKSPACE_TRUST === '1';
  const settings = {
    'reins.openIn': 'editor',
    ...(trust ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' } : {}),
  };
  const server = await startCodeServer({ folder: workspace, env: { REINS_TEST_OUTPUT: outputFile, ...shardEnv }, settings, workspaceTrust: trust });
  log(`${label}code-server on ${server.url} (pid ${server.pid}) after ${secs()}`);
  const browser = await launchBrowser();
  const { page } = browser;
  const recent = [];
  let sawMocha = false;
  const counts = {};
  // Mocha's report of its failures (the lines after "N failing"): the summary repeats it, because
  // CI keeps only the end of a run's output (stop 30 said "2 failing" and nothing of which).
  const failures = [];
  let inFailures = false;
  let exit;
  const exited = new Promise((r) => (exit = r));

  // The workbench's log service (incl. the extension host's console) arrives here.
  await page.exposeFunction('codeAutomationLog', (level, message) => {
    for (const line of String(message).split('\n')) {
      recent.push(line);
      if (recent.length > 60) recent.shift();
      const count = /^\s*(\d+) (passing|failing|pending)\b/.exec(line);
      if (count) {
        sawMocha = true;
        counts[count[2]] = Number(count[1]);
        inFailures = count[2] === 'failing';
      } else if (inFailures && failures.length < 400) failures.push(line);
      if (!verbose && NOISE.some((re) => re.test(line))) continue;
      console.log(level === 'error' || level === 'warn' ? `  ${label}[${level}] ${line}` : line.trim() ? `  ${label}${line}` : '');
    }
  });
  await page.exposeFunction('codeAutomationExit', (code) => exit(Number(code)));
  page.on('pageerror', (err) => recent.push(`[pageerror] ${err.message}`));
  page.on('crash', () => {
    console.error('[integration] the browser page crashed');
    exit(1);
  });

  const opened = workspace.endsWith('.code-workspace') ? { workspace } : { folder: workspace };
  const url = workbenchUrl(server, { ...opened, extensionDevelopmentPath, extensionTestsPath });
  log(`${label}opening ${url}`);
  const t0 = Date.now();
  // Only the navigation's start is awaited (openWorkbench: up to 120 s): the workbench's load
  // event came after goto's 30 s with workspace trust on, and under a load average of 20 on 2
  // cores (the run failed before any test started); what follows waits for the suite's own signal.
  await openWorkbench(page, url);
  let timer;
  let finished = false;
  const code = await Promise.race([
    exited,
    server.exited.then((e) => {
      if (finished || shuttingDown) return 1;
      console.error(`[integration] ${label}code-server exited (${e.code ?? e.signal}) during the suite`);
      return 1;
    }),
    new Promise((r) => (timer = setTimeout(() => r('timeout'), timeoutMs))),
  ]);
  clearTimeout(timer);
  finished = true;
  if (code === 'timeout') {
    console.error(`[integration] ${label}TIMEOUT: no codeAutomationExit after ${timeoutMs / 60_000} min. Last log lines:`);
    for (const l of recent) console.error(`  ${l}`);
    console.error('[integration] last code-server output:');
    for (const l of server.output().slice(-30)) console.error(`  ${l}`);
    mkdirSync(join(repo, 'test-results'), { recursive: true });
    await page.screenshot({ path: join(repo, `test-results/integration-timeout${shard ? `-${shard.name.replace(/ /g, '-')}` : ''}.png`) }).catch(() => {});
  }
  log(`${label}suite finished with ${code} in ${secs(t0)} (goto → codeAutomationExit)`);
  if (!sawMocha && existsSync(outputFile) && statSync(outputFile).size > 0) {
    log(`${label}reporter output (from the extension host file, not forwarded by the workbench):`);
    process.stdout.write(readFileSync(outputFile, 'utf8'));
  }
  rmSync(outputFile, { force: true });
  await browser.close();
  const tally = Object.entries(counts)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  return { code: code === 'timeout' ? 1 : code, server, tally, why: failureSummary(failures) };
}

/**
 * Each failure of mocha's spec report in one line: its number, titles and the first lines of its
 * error (the report's stack frames left out). `lines`: what followed "N failing".
 */
export function failureSummary(lines) {
  const out = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || /^at /.test(line) || line === '+ actual - expected') continue;
    if (/^\d+\) /.test(line)) out.push([line]);
    else if (out.length && out.at(-1).length < 6) out.at(-1).push(line);
  }
  return out.map((f) => f.join(' ').slice(0, 400)).join('\n        ');
}

async function main() {
  if (!existsSync(extensionTestsPath)) {
    console.error(`[integration] ${extensionTestsPath} is missing: run \`node scripts/esbuild.mjs --tests\` first.`);
    return 1;
  }
  const electron = process.env.REINS_TEST_HOST === 'electron';
  const workspace = process.env.REINS_MULTI_ROOT === '1' ? multiRootWorkspace() : freshWorkspace();
  log(`host=${electron ? 'electron' : 'code-server'} extension=${extensionDevelopmentPath} workspace=${workspace}`);
  const results = [];
  try {
    if (electron) {
      results.push(['mocha suite', await runElectron(workspace)]);
    } else {
      const oneWindow = process.env.REINS_SUITE_WINDOWS === '1' || !!process.env.REINS_TEST_GREP || process.env.REINS_MULTI_ROOT === '1';
      const runs = oneWindow
        ? [await runCodeServer(workspace)]
        : await Promise.all(SHARDS.map((shard, i) => runCodeServer(i === SHARDS.length - 1 ? workspace : freshWorkspace(), shard)));
      runs.forEach((r, i) => {
        const name = oneWindow ? 'mocha suite' : `mocha suite, ${SHARDS[i].name}`;
        results.push([`${name}${r.tally ? ` (${r.tally})` : ''}`, r.code, r.code ? r.why : undefined]);
      });
      // The smokes that share a server take the last window's; the others' are stopped now.
      for (const r of runs.slice(0, -1)) await r.server.stop();
      const r = runs.at(-1);
      if (process.env.REINS_SKIP_UI !== '1') {
        const shared = { server: r.server, extensionDevelopmentPath };
        results.push(await smoke('ui', () => runUiSmoke({ ...shared, workspace: freshWorkspace() })));
        // A real window reload: the panel, its transcript, draft and scroll, the session resumed.
        results.push(await smoke('reload', () => runReloadSmoke(shared)));
        // The hostile corpus in the real panel: nothing runs, no CSP violation, nothing lost.
        results.push(await smoke('hostile', () => runHostileSmoke(shared)));
        // A long transcript (entries out of sight not rendered): the panel follows its end, keeps the reader's place.
        results.push(await smoke('scroll', () => runScrollSmoke(shared)));
        // A transcript longer than a page: opened at the end on its newest page, scrolled to its first question.
        results.push(await smoke('long', () => runLongSmoke(shared)));
        // The Reins view and the first run, on a fresh user of its own (the suite's user has agents).
        results.push(await smoke('view', () => runViewSmoke({ extensionDevelopmentPath })));
        // The first ten minutes of a new user, walked end to end in the Reins view (REINS_SMOKES=first).
        results.push(await smoke('first ten minutes', () => runFirstTenMinutesSmoke({ extensionDevelopmentPath }), 'first'));
        // Answers where the user looks: in the conversation while in sight, a notification out of sight; the agent picker.
        results.push(await smoke('answers', () => runAnswersSmoke({ extensionDevelopmentPath })));
        // The agent asks (ACP elicitation): a form filled and submitted by keyboard only, Escape is cancel, a URL's host shown.
        results.push(await smoke('elicitation', () => runElicitationSmoke(shared)));
        // A tool's long output: the card keeps its end, Open Full Output clicked opens all of it (REINS_SMOKES=full).
        results.push(await smoke('full output', () => runFullOutputSmoke(shared), 'full'));
        // An agent speaking ACP v2: its permission's own question and command, its terminal, messages by id (REINS_SMOKES=v2).
        results.push(await smoke('v2', () => runV2Smoke({ extensionDevelopmentPath })));
        // The panel's look and state in the view: the header at 240–400 px, the busy line, a stop frame by frame, contrast in four themes.
        results.push(await smoke('look', () => runLookSmoke({ extensionDevelopmentPath })));
      }
    }
  } finally {
    await cleanupAll();
  }
  const failed = results.filter(([, c]) => c !== 0);
  console.log(`\n[integration] summary (${secs()} total):`);
  for (const [name, c, why] of results) console.log(`  ${c === 0 ? 'PASS' : 'FAIL'}  ${name}${c ? ` (exit ${c})` : ''}${why ? `\n        ${why}` : ''}`);
  return failed.length ? 1 : 0;
}

// Only when run, not when imported (failureSummary).
if (process.argv[1] === fileURLToPath(import.meta.url))
  main().then(
    (code) => process.exit(code),
    async (err) => {
      if (shuttingDown) return; // Ctrl-C broke the run; the signal handler cleans up and exits
      console.error('[integration] error:', err);
      await cleanupAll();
      process.exit(1);
    },
  );
