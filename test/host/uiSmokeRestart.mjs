// The UI smoke's Restart Agent step (uiSmoke.mjs runs it once a turn has ended): the demo,
// restarted, counts its tool call ids from the start again (demo-read-1, demo-edit-1, …); the
// next turn's permission still shows inside that turn's own edit card, in sight, and the turn
// ends when it is answered. Before, the new card and request landed on the old ones, up in the
// transcript, and the turn showed "Working…" for good. Screenshot: ui-smoke-restart.png.
//
// Standalone (a first demo turn, its permission allowed, then this step):
// `node test/host/uiSmokeRestart.mjs` (needs dist/ built).
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findWebviewFrame, launchBrowser, openPanelSteps, runCommand, runStandalone, startCodeServer, stepper, workbenchUrl } from './codeServer.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs the step in the conversation `frame` of `page`, no turn running; returns the frame (the panel may be redrawn). */
export async function restartSteps({ page, frame, step, resultsDir, timeoutMs }) {
  // Without the fix (cards keyed by the agent's toolCallId, request ids counted per process, no
  // guard), the standalone smoke printed (the hang a person saw: no answerable permission anywhere):
  //   FAILED: step "after Restart Agent, …" failed after 60.6 s: locator.waitFor: Timeout 60000ms exceeded.
  await step("after Restart Agent, the next demo turn's permission shows in its own edit card, in sight; allowed, the turn ends", async () => {
    const notices = await frame.locator('.entry.notice', { hasText: 'Restarting' }).count();
    await runCommand(page, 'Reins: Restart Agent', timeoutMs);
    frame = await findWebviewFrame(page, '#prompt-input', timeoutMs);
    await frame.locator('.entry.notice', { hasText: 'Restarting' }).nth(notices).waitFor({ timeout: 15_000 });
    const input = frame.locator('#prompt-input');
    await input.click();
    await input.pressSequentially('and once more after the restart', { delay: 5 });
    await input.press('Enter');
    const waiting = frame.locator('.entry.tool .entry.permission.nested button[data-option-id="allow-once"]:not([disabled])');
    await waiting.first().waitFor({ timeout: timeoutMs });
    const where = await waiting.first().evaluate((button) => {
      const card = button.closest('.entry.tool');
      const users = document.querySelectorAll('.entry.user');
      const last = users[users.length - 1];
      const box = button.getBoundingClientRect();
      return {
        card: card?.getAttribute('data-id'),
        afterPrompt: Boolean(last && card && last.compareDocumentPosition(card) & 4 /* DOCUMENT_POSITION_FOLLOWING */),
        inSight: box.top >= 0 && box.bottom <= window.innerHeight,
      };
    });
    if (!where.afterPrompt) throw new Error(`the waiting permission is in a card before the last prompt (${where.card})`);
    if (!where.inSight) throw new Error(`the waiting permission (in ${where.card}) is out of sight`);
    await page.screenshot({ path: join(resultsDir, 'ui-smoke-restart.png') });
    await waiting.first().click();
    await frame.locator('#stop').waitFor({ state: 'hidden', timeout: timeoutMs });
    const answered = frame.locator(`.entry.tool[data-id="${where.card}"] .permission-answer`);
    await answered.waitFor({ timeout: 10_000 });
    if (await frame.locator('.entry.permission button[data-option-id]:not([disabled])').count())
      throw new Error('a permission still waits after the turn ended');
  });
  return frame;
}

/** The standalone smoke: the demo in an editor tab, one full turn (its permission allowed), then the step above. */
async function run({ extensionDevelopmentPath, timeoutMs = 60_000 }) {
  const resultsDir = join(repo, 'test-results');
  mkdirSync(resultsDir, { recursive: true });
  rmSync(join(resultsDir, 'ui-smoke-restart.png'), { force: true });
  const workspace = mkdtempSync(join(tmpdir(), 'reins-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), workspace, { recursive: true });
  const server = await startCodeServer({ folder: workspace, settings: { 'reins.openIn': 'editor', 'reins.defaultAgent': 'demo' } });
  const browser = await launchBrowser();
  const { page } = browser;
  const step = stepper((m) => console.log(`[restart-smoke] ${m}`));
  try {
    let frame = await openPanelSteps(step, page, workbenchUrl(server, { folder: workspace, extensionDevelopmentPath }), timeoutMs);
    await step('a first demo turn, its permission allowed, ends', async () => {
      const input = frame.locator('#prompt-input');
      await input.click();
      await input.pressSequentially('hello before the restart', { delay: 5 });
      await input.press('Enter');
      const allow = frame.locator('.entry.tool .entry.permission.nested button[data-option-id="allow-once"]:not([disabled])');
      await allow.first().waitFor({ timeout: timeoutMs });
      await allow.first().click();
      await frame.locator('#stop').waitFor({ state: 'hidden', timeout: timeoutMs });
    });
    frame = await restartSteps({ page, frame, step, resultsDir, timeoutMs });
  } catch (err) {
    await page.screenshot({ path: join(resultsDir, 'ui-smoke-restart-failure.png') }).catch(() => {});
    throw err;
  } finally {
    await browser.close();
    await server.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}

runStandalone(import.meta.url, 'restart-smoke', run);
