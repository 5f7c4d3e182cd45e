// Small library to run a real VS Code extension host offline: code-server (Node 24, from the
// cache installCodeServer.mjs fills) plus Debian's Chromium through playwright-core.
// Why each flag is there: /work/shared/notes/real-vscode-offline.md.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os, { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureCodeServer, hostEnv, vscodeOptionArgs } from './installCodeServer.mjs';

// ---- cleanup that also runs on Ctrl-C, kill and crashes ---------------------------------
// Each cleanup with what it stops, so that a Ctrl-C says what it is stopping.
const cleanups = new Map();
/** True once a signal or crash started the shutdown (callers then just let it finish). */
export let shuttingDown = false;
/**
 * Registers fn to run on cleanupAll() / SIGINT / SIGTERM / uncaught errors; returns an unregister.
 * `what` (e.g. "code-server", "browser") is named in the line a signal prints.
 */
export function onCleanup(fn, what) {
  cleanups.set(fn, what);
  return () => cleanups.delete(fn);
}
let cleaning = null;
/** Runs every registered cleanup once; concurrent callers (signal handler + main) share one run. */
export function cleanupAll() {
  cleaning ??= (async () => {
    const fns = [...cleanups.keys()].reverse(); // last started, first stopped (browser before server)
    cleanups.clear();
    for (const fn of fns) {
      try {
        await fn();
      } catch (err) {
        console.error(`[host] cleanup failed: ${err?.message ?? err}`);
      }
    }
  })().finally(() => (cleaning = null));
  return cleaning;
}
// Synchronous last-resort cleanups (kill a server's group, remove temp dirs) for when the
// process exits before cleanupAll() finished.
const exitHooks = new Set();
let handlersInstalled = false;
function installSignalHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(sig, () => {
      shuttingDown = true;
      const what = [...new Set([...cleanups.values()].filter(Boolean))].reverse();
      if (what.length) console.error(`[host] ${sig}: stopping ${what.join(' and ')}…`);
      cleanupAll().finally(() => process.exit(128 + os.constants.signals[sig]));
    });
  }
  process.once('uncaughtException', (err) => {
    shuttingDown = true;
    console.error('[host] uncaught error:', err);
    cleanupAll().finally(() => process.exit(1));
  });
  // Last resort if the process exits before cleanup finished: SIGKILL the server groups.
  process.once('exit', () => {
    for (const hook of exitHooks) {
      try {
        hook();
      } catch {
        // best effort
      }
    }
  });
}

// ---- code-server ---------------------------------------------------------------------------
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'chat.disableAIFeatures': true,
  'window.confirmBeforeClose': 'never',
  'workbench.tips.enabled': false,
};

/**
 * The built-in extensions a test window leaves out (VS Code's VSCODE_SKIP_BUILTIN_EXTENSIONS):
 * language servers, git, Copilot, debuggers and task providers, none of which Reins or its tests
 * touch, and which start with every window (git, github and Copilot at startup; the JSON and
 * TypeScript servers when the settings or a fixture file opens). The suite measured here: 362 s
 * with them, 338 s without; its extension host 85 CPU-s against 66, code-server 71 against 60.
 * Themes, grammars and Markdown stay (the smokes switch themes; the walkthrough renders Markdown).
 * `npm start` (scripts/userHost.mjs) and test:start keep every one, as a user has them.
 */
const UNUSED_BUILTINS = [
  'GitHub.copilot-chat',
  'vscode.git',
  'vscode.git-base',
  'vscode.github',
  'vscode.github-authentication',
  'vscode.microsoft-authentication',
  'vscode.merge-conflict',
  'vscode.debug-auto-launch',
  'vscode.debug-server-ready',
  'ms-vscode.js-debug',
  'ms-vscode.js-debug-companion',
  'vscode.npm',
  'vscode.grunt',
  'vscode.gulp',
  'vscode.jake',
  'vscode.emmet',
  'vscode.typescript-language-features',
  'vscode.json-language-features',
  'vscode.css-language-features',
  'vscode.html-language-features',
  'vscode.php-language-features',
  'vscode.configuration-editing',
  'vscode.extension-editing',
  'vscode.terminal-suggest',
  'vscode.tunnel-forwarding',
  'vscode.ipynb',
  'vscode.references-view',
  'vscode.simple-browser',
  'vscode.mermaid-markdown-features',
  'vscode.markdown-math',
];

/**
 * Starts code-server on 127.0.0.1 serving `folder`, driven for tests: VS Code's smoke-test driver
 * on (the workbench then honours a payload's extensionDevelopmentPath / extensionTestsPath, and
 * drops toasts: notifications reach only the notification centre), scratch user data removed at
 * stop. `npm start` runs code-server as a user would instead (scripts/userHost.mjs). `env` is
 * added to the server's environment, which the extension host inherits exactly (force-disable-user-env).
 * `allBuiltins`: every built-in extension, as a user has them (the benchmarks, whose table was
 * measured so); otherwise UNUSED_BUILTINS are left out. Returns { port, url, pid, scratch, output(), stop() }.
 */
export async function startCodeServer({
  folder,
  env = {},
  port,
  host = '127.0.0.1',
  settings = {},
  machineSettings,
  verbose = !!process.env.REINS_HOST_VERBOSE,
  workspaceTrust = false,
  allBuiltins = false,
} = {}) {
  installSignalHandlers();
  const paths = await ensureCodeServer();
  const scratch = mkdtempSync(join(tmpdir(), 'reins-host-'));
  const ud = join(scratch, 'user-data');
  mkdirSync(join(ud, 'User'), { recursive: true });
  writeFileSync(join(ud, 'User', 'settings.json'), JSON.stringify({ ...USER_SETTINGS, ...settings }, null, 2));
  // A remote window (code-server's) reads machine-scoped settings, such as reins.agents, from here.
  if (machineSettings) {
    mkdirSync(join(ud, 'Machine'), { recursive: true });
    writeFileSync(join(ud, 'Machine', 'settings.json'), JSON.stringify(machineSettings, null, 2));
  }

  const args = [
    // workspaceTrust: as a user has it, so that the folder opens untrusted (test/integration/trust.test.ts).
    ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--user-data-dir',
    ud,
    '--extensions-dir',
    join(scratch, 'extensions'),
    // Otherwise the login shell's profile is merged into the extension host's env.
    ...vscodeOptionArgs(['force-disable-user-env']),
    // Required for the payload (extensionDevelopmentPath / extensionTestsPath) to be honoured.
    ...vscodeOptionArgs(['enable-smoke-test-driver']),
    ...(folder ? [folder] : []),
  ];
  // Per-run XDG dirs: code-server writes its config there, and parallel runs must not share it.
  const serverEnv = {
    ...hostEnv(paths),
    XDG_CONFIG_HOME: join(scratch, 'xdg', 'config'),
    XDG_DATA_HOME: join(scratch, 'xdg', 'data'),
    XDG_CACHE_HOME: join(scratch, 'xdg', 'cache'),
    ...(allBuiltins ? {} : { VSCODE_SKIP_BUILTIN_EXTENSIONS: UNUSED_BUILTINS.join(',') }),
    ...env,
  };
  const removeScratch = () => {
    if (!process.env.REINS_KEEP_SCRATCH) rmSync(scratch, { recursive: true, force: true });
  };
  const server = await launchCodeServer({ paths, args, env: serverEnv, host, port, verbose, afterStop: removeScratch });
  return { ...server, scratch };
}

/**
 * Runs code-server (`args` after its address and auth flags) in a process group of its own and
 * waits until it answers; every way out (stop(), Ctrl-C, a crash, exit) ends the whole group.
 * `onLine` sees each line it prints; `afterStop` runs once it is gone (also at exit).
 * Returns { port, host, url, pid, env, output(), exited, stop() }.
 */
export async function launchCodeServer({ paths, args, env, host = '127.0.0.1', port, verbose = false, onLine, afterStop = () => {} }) {
  installSignalHandlers();
  port ??= await freePort(host);
  const fullArgs = [paths.codeServerEntry, '--bind-addr', `${host}:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', ...args];
  // detached = own process group, so kill(-pid) also ends the extension host and pty host.
  const child = spawn(paths.node, fullArgs, { detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  const collect = (chunk) => {
    for (const line of String(chunk).split('\n')) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > 400) lines.shift();
      if (verbose) console.log(`[code-server] ${line}`);
      onLine?.(line);
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let exited = null;
  const exitPromise = new Promise((r) => child.once('exit', (code, signal) => r((exited = { code, signal }))));

  const killGroup = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  const lastResort = () => {
    killGroup('SIGKILL');
    afterStop();
  };
  exitHooks.add(lastResort);
  const stop = async () => {
    unregister();
    if (!exited) {
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), 5000);
      await exitPromise;
      clearTimeout(timer);
    }
    // The extension host outlives code-server on SIGTERM (seen): always finish the group off.
    killGroup('SIGKILL');
    exitHooks.delete(lastResort);
    afterStop();
  };
  const unregister = onCleanup(stop, 'code-server');

  const url = `http://${host}:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`code-server exited (${exited.code ?? exited.signal}) before answering:\n${lines.slice(-30).join('\n')}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer on ${url} within 90 s:\n${lines.slice(-30).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { port, host, url, pid: child.pid, env, output: () => lines.slice(), exited: exitPromise, stop };
}

/** Workbench URL that opens `folder` (or a `.code-workspace` file, `workspace`) and loads an unpacked extension (and, optionally, a suite). */
export function workbenchUrl(server, { folder, workspace, extensionDevelopmentPath, extensionTestsPath } = {}) {
  const remote = (p) => `vscode-remote://${server.host}:${server.port}${p}`;
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  const q = new URLSearchParams();
  if (folder) q.set('folder', folder);
  if (workspace) q.set('workspace', workspace);
  if (payload.length) q.set('payload', JSON.stringify(payload));
  return `${server.url}/?${q}`;
}

/**
 * A `reins.agents` entry that runs the built scripted agent (dist/scripted-agent.js of the
 * extension under test) as a user's own agent: its scenario from a file or inline JSON, and the
 * record of what it received and sent when `record` is given.
 */
export function scriptedAgentEntry(extensionDevelopmentPath, { scenarioFile, scenarioJson, record } = {}) {
  const args = [join(extensionDevelopmentPath, 'dist', 'scripted-agent.js')];
  if (scenarioFile) args.push('--scenario', scenarioFile);
  if (scenarioJson) args.push('--scenario-json', scenarioJson);
  if (record) args.push('--record', record);
  return { command: process.execPath, args };
}

/**
 * The steps a smoke opens with, as a person would: the workbench at `url` drawn, "Reins: Open
 * Agent Panel" run from the palette, the panel's frame found. `step` is the smoke's stepper.
 */
export async function openPanelSteps(step, page, url, timeoutMs) {
  await step('workbench drawn', async () => {
    await openWorkbench(page, url);
    await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: timeoutMs });
  });
  await step('ran "Reins: Open Agent Panel"', () => runCommand(page, 'Reins: Open Agent Panel', timeoutMs));
  return step('webview shows #prompt-input', () => findWebviewFrame(page, '#prompt-input', timeoutMs));
}

/** How long the workbench may take to send its first response: on a loaded machine far more than
 *  Playwright's 30 s default (runs timed out at goto before any test ran). */
export const FIRST_RESPONSE_MS = 120_000;

/**
 * Opens the workbench at `url`, waiting up to FIRST_RESPONSE_MS for its first response only
 * (`commit`): what the caller needs next (the status bar drawn, the suite's exit) it waits for
 * with its own timeout.
 */
export function openWorkbench(page, url) {
  return page.goto(url, { waitUntil: 'commit', timeout: FIRST_RESPONSE_MS });
}

/** A window reload, by openWorkbench's rule. */
export function reloadWorkbench(page) {
  return page.reload({ waitUntil: 'commit', timeout: FIRST_RESPONSE_MS });
}

// ---- Chromium --------------------------------------------------------------------------------
export function chromiumPath() {
  return process.env.REINS_CHROMIUM || '/usr/bin/chromium';
}

/**
 * Launches Debian's Chromium headless with a fresh profile; returns { context, page, close() }.
 * `args`: more of Chromium's flags; `bypassCSP`: pages' Content-Security-Policy not enforced
 * (Playwright's option); `preferences`: the profile's Chromium preferences, written before launch;
 * `profile`: a profile folder the caller keeps (the same browser again: VS Code for the web keeps
 * an extension's globalState in the browser), instead of a fresh one removed at close.
 * `pwaWorker`: let code-server register its service worker (what makes it an installable app).
 * Off for tests: while it controls the window, the first webview's own service worker took 3.5 to
 * 4.5 s to take over its frame, and the webview showed nothing until then. Measured on "Reins:
 * Open Agent Panel" in a new window: its page written 5.2 s after the command with code-server's
 * worker, 1.0 s without. The benchmarks keep it, as their table was measured so.
 */
export async function launchBrowser({
  headless = true,
  viewport = { width: 1400, height: 900 },
  args = [],
  bypassCSP = false,
  preferences,
  scrollbars = false,
  profile: kept,
  pwaWorker = false,
} = {}) {
  installSignalHandlers();
  const { chromium } = await import('playwright-core');
  const profile = kept ?? mkdtempSync(join(tmpdir(), 'reins-chromium-'));
  if (preferences) {
    mkdirSync(join(profile, 'Default'), { recursive: true });
    writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify(preferences));
  }
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless,
    viewport,
    bypassCSP,
    // Our handlers close the browser first and then stop the server; Playwright's own would
    // process.exit() midway through that.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    // Playwright hides scrollbars in headless mode (--hide-scrollbars): `scrollbars` shows them, as a user's browser does.
    ...(scrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      ...args,
    ],
  });
  const removeProfile = () => {
    if (!kept) rmSync(profile, { recursive: true, force: true });
  };
  exitHooks.add(removeProfile); // Playwright itself kills the browser when we exit
  const close = async () => {
    unregister();
    // The 10 s bound cleared once the browser closed: left running, it kept every host script
    // alive for 10 s after its work (`npm test` waited so at the end of five of its steps).
    let timer;
    await Promise.race([context.close().catch(() => {}), new Promise((r) => (timer = setTimeout(r, 10_000)))]);
    clearTimeout(timer);
    exitHooks.delete(removeProfile);
    removeProfile();
  };
  const unregister = onCleanup(close, 'browser');
  // code-server's worker is /_static/out/browser/serviceWorker.js; a webview's own is service-worker.js.
  if (!pwaWorker)
    await context.addInitScript(() => {
      if (window !== window.top || !('serviceWorker' in navigator)) return;
      const register = navigator.serviceWorker.register.bind(navigator.serviceWorker);
      navigator.serviceWorker.register = (url, options) =>
        /\/serviceWorker\.js$/.test(String(url).split('?')[0]) ? Promise.resolve(undefined) : register(url, options);
    });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page, close };
}

// ---- driving the workbench (the host smoke tests share these) --------------------------------

/** A step that logs its duration, and names itself (and its time) when it fails. */
export function stepper(log) {
  return async function step(name, fn) {
    const t = Date.now();
    const result = await fn().catch((err) => {
      throw new Error(`step "${name}" failed after ${((Date.now() - t) / 1000).toFixed(1)} s: ${err?.message ?? err}`);
    });
    log(`${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    return result;
  };
}

/**
 * Moves the mouse off the workbench's buttons and waits for their hover to go. A hover left by an
 * earlier click (the secondary side bar's "Hide Secondary Side Bar" shows below its button, over
 * the Reins view's header) takes the next click in the panel: a CI run failed so, "<div
 * class="hover-contents">Hide Secondary Side Bar (Ctrl+Alt+B)</div> … intercepts pointer events".
 */
export async function clearHovers(page) {
  const editor = await page
    .locator('.part.editor')
    .boundingBox()
    .catch(() => null);
  await page.mouse.move(editor ? editor.x + editor.width / 2 : 700, editor ? editor.y + editor.height - 20 : 450);
  await page
    .locator('.context-view .hover-contents, .workbench-hover')
    .first()
    .waitFor({ state: 'hidden', timeout: 5_000 })
    .catch(() => {});
}

/** What has the keyboard in the workbench's document: a tag and its classes (an IFRAME is a webview). */
const focusedElement = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a ? `${a.tagName}.${a.className}` : 'none';
  });

/**
 * Where the keyboard is, and whether the quick input is open with which row highlighted: what a
 * failure message needs after an Enter in a picker went nowhere (the first-ten-minutes and answers
 * smokes each saw one).
 */
export function keyboardAndQuickInput(page) {
  return page.evaluate(() => {
    const a = document.activeElement;
    const widget = document.querySelector('.quick-input-widget');
    const open = !!widget && window.getComputedStyle(widget).display !== 'none';
    const row = document.querySelector('.quick-input-list .monaco-list-row.focused');
    const keyboard = a ? `${a.tagName.toLowerCase()}.${[...a.classList].join('.')}` : 'none';
    return `keyboard on ${keyboard}; quick input ${open ? 'open' : 'closed'}, highlighted row: ${row?.innerText.replace(/\s+/g, ' ').trim().slice(0, 80) ?? 'none'}`;
  });
}

/** Waits until the keyboard has stayed on one element for `quietMs` (at most `timeoutMs`); returns it. */
async function settledFocus(page, quietMs = 300, timeoutMs = 3_000) {
  const deadline = Date.now() + timeoutMs;
  let last = await focusedElement(page);
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() < deadline) {
    await page.waitForTimeout(50);
    const now = await focusedElement(page);
    if (now !== last) [last, since] = [now, Date.now()];
  }
  return last;
}

/**
 * Gives the keyboard to the workbench itself, for a keybinding such as Ctrl+K Ctrl+T. A click on
 * the editor part's corner lands on a tab; when that tab is a webview's (the UI smoke's panel),
 * VS Code focuses the webview a moment later, and a quick input opened in that moment closes as
 * the focus arrives: a CI run's theme step failed so on each of its attempts ("locator.fill:
 * Timeout 5000ms exceeded … waiting for locator('.quick-input-widget .quick-input-box input')").
 * So the focus is waited for until it stays put, and taken out of a webview's frame (in the UI
 * smoke the click left it on "IFRAME.webview ready" before each of the four themes).
 */
export async function focusWorkbench(page) {
  await page
    .locator('.monaco-workbench .part.editor')
    .first()
    .click({ position: { x: 5, y: 5 } });
  if (!(await settledFocus(page)).startsWith('IFRAME')) return;
  await page.evaluate(() => /** @type {HTMLElement} */ (document.activeElement)?.blur());
  await settledFocus(page);
}

/** The extension host registers commands seconds after the workbench is drawn: retry. */
export async function runCommand(page, title, timeoutMs = 60_000) {
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title.split(': ').pop() });
  const attempt = await fillQuickInput(page, { open: () => page.keyboard.press('F1'), text: `>${title}`, row, timeoutMs, what: `command "${title}"` });
  await page.keyboard.press('Enter');
  return attempt;
}

/**
 * Opens a quick input with `open()`, fills in `text` and waits for `row`; the caller presses
 * Enter. Tried again until `timeoutMs` when the workbench missed the key (under load: the
 * lifeline smoke failed so twice at a load average of 20), when the input closed between showing
 * and the fill (focus moving to a view that opens at the same moment: the view smoke's palette
 * and a fresh clone's theme picker each failed so once, "locator.fill: Timeout 30000ms
 * exceeded"), or when `row` does not come. Returns the attempt that worked.
 */
export async function fillQuickInput(page, { open, text, row, timeoutMs = 60_000, what }) {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator('.quick-input-widget .quick-input-box input');
  for (let attempt = 1; ; attempt++) {
    await open();
    try {
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(text, { timeout: 5_000 });
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${err?.message ?? err} (the keyboard on ${await focusedElement(page).catch(() => '?')})`);
      continue;
    }
    // A short first look, longer ones after: a row that is there is drawn within a frame or two
    // of the fill, and one still missing (a command the extension host has not registered) is
    // seen sooner by looking again. With 2 s looks and 1 s between them, "Open Agent Panel" in a
    // new window took 3.8-4.5 s (two attempts each).
    try {
      await row.first().waitFor({ state: 'visible', timeout: Math.min(400 * attempt, 2_000) });
      return attempt;
    } catch {
      await page.keyboard.press('Escape');
      if (Date.now() > deadline) throw new Error(`${what} did not appear in the quick input within ${timeoutMs / 1000} s`);
      await page.waitForTimeout(150);
    }
  }
}

/** The webview frame (inside iframe.webview.ready → #active-frame) that holds `selector`. The same
 *  document as page.frameLocator('iframe.webview.ready').frameLocator('#active-frame'), but
 *  searching all frames stays correct when more than one webview is open. `pollMs`: the time
 *  between looks (a bench timing when the panel appears looks more often). */
export async function findWebviewFrame(page, selector, timeoutMs = 60_000, pollMs = 500) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      if (await frame.$(selector).catch(() => null)) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no webview containing ${selector} within ${timeoutMs / 1000} s`);
    await page.waitForTimeout(pollMs);
  }
}

/** The webview frame holding `selector` whose iframe lies inside `part`'s box ('.part.auxiliarybar', '.part.editor'). */
export async function frameIn(page, part, selector, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const box = await page
      .locator(part)
      .boundingBox()
      .catch(() => null);
    for (const frame of page.frames()) {
      if (frame === page.mainFrame() || !(await frame.$(selector).catch(() => null))) continue;
      // The document sits in #active-frame inside the webview's iframe: that outer iframe is placed over the part.
      // A frame being torn down as it is looked at (the tab a conversation just left) is skipped:
      // its frameElement() throws "Frame has been detached" (the view smoke failed so once in 4 runs).
      const parent = frame.parentFrame();
      const outer = await (parent && parent !== page.mainFrame() ? parent : frame).frameElement().catch(() => null);
      if (!outer) continue;
      const at = await outer.boundingBox().catch(() => null);
      if (box && at && at.width > 0 && at.x >= box.x - 1 && at.x + at.width <= box.x + box.width + 1) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no webview in ${part} containing ${selector} within ${timeoutMs / 1000} s`);
    await page.waitForTimeout(300);
  }
}

/**
 * Runs a smoke when its own file is what node was started with (`node test/host/xSmoke.mjs`),
 * against the extension under test (REINS_EXT_DEV_PATH, else this repository): `[name] PASS`
 * with its time, or `[name] FAILED` with the reason and exit code 1; whatever it started is ended.
 */
export function runStandalone(moduleUrl, name, run) {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  const started = Date.now();
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  run({ extensionDevelopmentPath: resolve(process.env.REINS_EXT_DEV_PATH || repo) })
    .then(
      () => console.log(`[${name}] PASS (${((Date.now() - started) / 1000).toFixed(1)} s)`),
      (err) => {
        console.error(`[${name}] FAILED: ${err.message}`);
        process.exitCode = 1;
      },
    )
    .finally(() => cleanupAll());
}

/** Types `text` into the panel's input box in `frame` as a person would, and sends it with Enter. */
export async function typePrompt(page, frame, text) {
  await frame.locator('#prompt-input').focus();
  await page.keyboard.type(text, { delay: 10 });
  await page.keyboard.press('Enter');
}
