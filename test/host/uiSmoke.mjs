#!/usr/bin/env node
// UI smoke phase: opens an "[Extension Development Host]" workbench with Reins loaded and uses
// it as a person would: command palette → "Reins: Open Agent Panel" → type a prompt in the
// webview → wait for the (offline, scripted) agent's answer. Screenshot: test-results/ui-smoke.png.
//
// Selectors are a contract with the webview (media/webview): #prompt-input, #transcript,
// .entry.user, .entry.agent, .entry.tool, .entry.permission button[data-option-id], #stop, #status,
// #session-mode, #session-model, #slash-completion .slash-item.
//
// Standalone: `node test/host/uiSmoke.mjs` (needs dist/ built); run.mjs calls runUiSmoke().
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cleanupAll, launchBrowser, runCommand, startCodeServer, stepper, workbenchUrl } from './codeServer.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(repo, 'test-results');
const PROMPT = 'hello from the smoke test';
const COMMAND = 'Reins: Open Agent Panel';
const log = (m) => console.log(`[ui-smoke] ${m}`);
// Browser console errors that are expected offline (gallery lookups, vsda 404s).
const NOISE = /open-vsx\.org|ERR_NAME_NOT_RESOLVED|status of 404|authentication provider 'github'/;

const step = stepper(log);

/**
 * Waits until #stop is hidden (the turn ended), clicking the first option of every permission
 * request that shows up meanwhile. Returns the data-option-id values clicked.
 */
async function finishTurn(frame, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const chosen = [];
  const pending = frame.locator('.entry.permission button[data-option-id]:not([disabled])');
  while (await frame.locator('#stop').isVisible()) {
    if (Date.now() > deadline) throw new Error(`#stop still visible after ${timeoutMs / 1000} s`);
    const open = await pending.count();
    if (open) {
      const button = pending.first();
      const id = await button.getAttribute('data-option-id');
      await button.click();
      chosen.push(id);
      // An answered request disables its buttons; wait for that so we don't click it twice.
      await frame.waitForFunction((n) => document.querySelectorAll('.entry.permission button[data-option-id]:not([disabled])').length < n,
        open, { timeout: 10_000 }).catch(() => {});
    }
    await frame.waitForTimeout(250);
  }
  return chosen;
}

/** The frame (inside iframe.webview.ready → #active-frame) that holds `selector`. */
async function findWebviewFrame(page, selector, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Same document as page.frameLocator('iframe.webview.ready').frameLocator('#active-frame'),
    // but searching all frames stays correct if more than one webview is open.
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      if (await frame.$(selector).catch(() => null)) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no webview containing ${selector} within ${timeoutMs / 1000} s`);
    await page.waitForTimeout(500);
  }
}

async function describeState(page, frame) {
  const text = async (f, sel) => f.locator(sel).allInnerTexts().then((t) => t.join('\n---\n'), () => '(n/a)');
  const out = [`title: ${await page.title().catch(() => '?')}`];
  out.push(`notifications: ${await text(page, '.notifications-toasts .notification-list-item-message')}`);
  if (frame) {
    out.push(`#status: ${await text(frame, '#status')}`);
    out.push(`#stop visible: ${await frame.locator('#stop').isVisible().catch(() => '?')}`);
    out.push(`#transcript:\n${await text(frame, '#transcript')}`);
  } else {
    out.push('(no Reins webview found)');
  }
  return out.join('\n');
}

/**
 * Runs the smoke scenario. `server` (from startCodeServer) is reused if given; otherwise one
 * is started for `workspace` and stopped at the end. Throws with details on failure.
 */
export async function runUiSmoke({ server, workspace, extensionDevelopmentPath = repo, timeoutMs = 60_000 } = {}) {
  mkdirSync(resultsDir, { recursive: true });
  // Stale pictures from an earlier run would mislead whoever reads test-results/.
  for (const f of ['ui-smoke.png', 'ui-smoke-failure.png']) rmSync(join(resultsDir, f), { force: true });
  const ownServer = !server;
  if (ownServer) server = await startCodeServer({ folder: workspace });
  const browser = await launchBrowser();
  const { page } = browser;
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !NOISE.test(m.text())) consoleErrors.push(m.text().split('\n').slice(0, 4).join('\n'));
  });
  page.on('pageerror', (e) => consoleErrors.push(`[pageerror] ${e.message}`));
  let frame;
  try {
    await step('workbench drawn', async () => {
      await page.goto(workbenchUrl(server, { folder: workspace, extensionDevelopmentPath }));
      await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: timeoutMs });
    });
    log(`window title: ${await page.title()}`);
    const attempts = await step(`ran "${COMMAND}"`, () => runCommand(page, COMMAND, timeoutMs));
    log(`palette attempts until the command was registered: ${attempts}`);
    frame = await step('webview shows #prompt-input', () => findWebviewFrame(page, '#prompt-input', timeoutMs));

    await step('typed the prompt and pressed Enter', async () => {
      const input = frame.locator('#prompt-input');
      await input.click();
      await input.pressSequentially(PROMPT, { delay: 15 });
      await input.press('Enter');
    });
    await step('user entry shown', () =>
      frame.locator('.entry.user', { hasText: PROMPT }).first().waitFor({ timeout: 10_000 }));
    await step('first agent text shown', () =>
      frame.waitForFunction(
        () => [...document.querySelectorAll('.entry.agent')].some((e) => e.textContent.trim().length > 0),
        null, { timeout: timeoutMs }));
    // The demonstration agent asks for permission mid-turn; answer as a person would.
    const chosen = await step('turn done (#stop gone), answering permission requests', () => finishTurn(frame, timeoutMs));
    log(`permission options clicked: ${chosen.length ? chosen.join(', ') : 'none asked'}`);

    const answer = frame.locator('.entry.agent').last();
    if (!(await answer.isVisible())) throw new Error('the agent answer exists but is not visible');
    log(`last agent entry: ${JSON.stringify((await answer.innerText()).trim().slice(0, 200))}`);
    await page.screenshot({ path: join(resultsDir, 'ui-smoke.png') });
    log(`screenshot: ${join(resultsDir, 'ui-smoke.png')}`);

    // The session line and slash completion: the demonstration offers a (pretend) mode and model
    // and two slash commands. `/` lists them; Enter takes one and must not also send the prompt.
    await step('header shows the mode and model', async () => {
      await frame.locator('#session-mode', { hasText: 'Ask' }).waitFor({ timeout: 10_000 });
      await frame.locator('#session-model', { hasText: 'Scripted' }).waitFor({ timeout: 10_000 });
    });
    // Sabotage (slashCompletion.ts's keydown without stopImmediatePropagation), this printed:
    //   step ""/" lists the slash commands; …" failed: the input holds "", want "/slow "
    await step('"/" lists the slash commands; Enter takes one without sending', async () => {
      const users = await frame.locator('.entry.user').count();
      const input = frame.locator('#prompt-input');
      await input.click();
      await input.pressSequentially('/sl', { delay: 15 });
      await frame.locator('#slash-completion .slash-item', { hasText: '/slow' }).first().waitFor({ timeout: 5_000 });
      await input.press('Enter');
      const value = await input.inputValue();
      if (value !== '/slow ') throw new Error(`the input holds ${JSON.stringify(value)}, want "/slow "`);
      await frame.waitForTimeout(300);
      if ((await frame.locator('.entry.user').count()) !== users) throw new Error('Enter on a completion also sent the prompt');
      await input.fill('');
    });
    await step('a click on the model opens its picker; the choice shows in the header', async () => {
      await frame.locator('#session-model').click();
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Scripted, slow' });
      await row.first().waitFor({ state: 'visible', timeout: 10_000 });
      await row.first().click();
      await frame.locator('#session-model', { hasText: 'slow' }).waitFor({ timeout: 10_000 });
    });

    // Stop as a person would: a slow turn, the Stop affordances that appear only while it runs
    // (panel button, editor title action, status bar), Escape in the panel, the confirmed stop.
    const statusItem = page.locator('.statusbar-item', { hasText: 'demo' });
    const titleStop = page.locator('.editor-actions .action-label[aria-label^="Stop Turn"]');
    await step('no Stop in the editor title while idle', async () => {
      if (await titleStop.count()) throw new Error('"Stop Turn" is in the editor title with no turn running');
    });
    await step('a slow turn runs: #stop, title Stop and "working" in the status bar', async () => {
      const input = frame.locator('#prompt-input');
      await input.click();
      await input.pressSequentially('please answer slow', { delay: 10 });
      await input.press('Enter');
      await frame.locator('#stop').waitFor({ state: 'visible', timeout: 10_000 });
      await titleStop.first().waitFor({ state: 'visible', timeout: 10_000 });
      await page.locator('.statusbar-item', { hasText: 'working' }).first().waitFor({ state: 'visible', timeout: 10_000 });
    });
    // Sabotage (Escape closing the list without preventDefault/stopImmediatePropagation), this printed:
    //   step "Escape first closes an open slash list, …" failed: the Escape that closed the list also stopped the turn
    await step('Escape first closes an open slash list, and the turn goes on', async () => {
      const input = frame.locator('#prompt-input');
      await input.pressSequentially('/', { delay: 15 });
      await frame.locator('#slash-completion').waitFor({ state: 'visible', timeout: 5_000 });
      await input.press('Escape');
      await frame.locator('#slash-completion').waitFor({ state: 'hidden', timeout: 5_000 });
      await frame.waitForTimeout(300);
      if (!(await frame.locator('#stop').isVisible())) throw new Error('the Escape that closed the list also stopped the turn');
      await input.fill('');
    });
    await step('Escape in the panel stops it: confirmed, Stop gone, status bar idle', async () => {
      await frame.locator('#prompt-input').press('Escape');
      await frame.locator('.entry.notice', { hasText: 'the agent confirmed' }).first().waitFor({ timeout: 15_000 });
      await frame.locator('#stop').waitFor({ state: 'hidden', timeout: 10_000 });
      await titleStop.first().waitFor({ state: 'detached', timeout: 10_000 });
      await statusItem.first().waitFor({ state: 'visible', timeout: 10_000 });
    });
    log(`stop notice: ${JSON.stringify(await frame.locator('.entry.notice').last().innerText())}`);
    await page.screenshot({ path: join(resultsDir, 'ui-smoke-stopped.png') });
  } catch (err) {
    const shot = join(resultsDir, 'ui-smoke-failure.png');
    await page.screenshot({ path: shot }).catch(() => {});
    const details = [
      err?.message ?? String(err),
      `screenshot: ${shot}`,
      await describeState(page, frame),
      `browser console errors (last 15):\n${consoleErrors.slice(-15).join('\n')}`,
    ];
    // eslint-disable-next-line no-control-regex
    throw new Error(details.join('\n\n').replace(/\x1b\[[0-9;]*m/g, ''));
  } finally {
    await browser.close();
    if (ownServer) await server.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const workspace = mkdtempSync(join(tmpdir(), 'reins-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), workspace, { recursive: true });
  runUiSmoke({ workspace, extensionDevelopmentPath: resolve(process.env.REINS_EXT_DEV_PATH || repo) }).then(
    () => log('PASS'),
    async (err) => {
      console.error(`[ui-smoke] FAILED: ${err.message}`);
      process.exitCode = 1;
    },
  ).finally(async () => {
    await cleanupAll();
    rmSync(workspace, { recursive: true, force: true });
  });
}
