// The package smoke's walk through the installed .vsix (packageSmoke.mjs): what only the packed
// copy can get wrong, as a person meets it. A file left out by the allow-list (.vscodeignore), a
// path that differs once installed, or the minified production build failing where the
// development build works: each of these breaks one of the steps below.
//
// Why not the whole UI walk (uiSmoke.mjs, about 45 s) again: that walk runs on the development
// extension in the integration step, from the same sources. What the .vsix changes is which files
// are there and how they are built, and every file it runs is used here: package.json (the command,
// the view, the welcome and its Try the Demo), dist/extension.js and dist/reins.js (activation, the turn, the
// stop), dist/webview.js, dist/highlight.js and dist/webview.css (the panel drawn, the code block highlighted in its
// own colours), dist/codicon.ttf (the icon font loaded, not failed), dist/scripted-agent.js (the
// demonstration agent, run from the installed folder) and dist/watchdog.js (its lifeline, the
// same). A turn with a permission and a confirmed stop go through the minified bundles' main
// paths: the host's conversation, the runtime and its stop routine, the webview's transcript and
// composer. Sabotage (dist/codicon.ttf left out of .vscodeignore), this printed:
//   step "the icon font (dist/codicon.ttf) loaded" failed after 10.0 s: the fonts: ["codicon error"]
// (no step of the whole UI walk looks at document.fonts, so it could not have told).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findWebviewFrame, launchBrowser, openWorkbench, runCommand, stepper, workbenchUrl } from './codeServer.mjs';
import { finishTurn, tryDemoIfWelcomed } from './uiSmoke.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(repo, 'test-results');
const log = (m) => console.log(`[package] ${m}`);
const step = stepper(log);
const COMMAND = 'Reins: Open Agent Panel';

/** The command lines of this machine's processes that run `script` from under `dir`. */
function processesRunning(dir, script) {
  const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  return ps.stdout.split('\n').filter((l) => l.includes(`${dir}/`) && l.includes(script));
}

/**
 * Drives the installed package in `server` (its extensions in `extensionsDir`), opened on
 * `workspace`, by a fresh user. Throws naming the step that failed (a screenshot beside it).
 */
export async function runPackageWalk({ server, workspace, extensionsDir, timeoutMs = 60_000 }) {
  mkdirSync(resultsDir, { recursive: true });
  const browser = await launchBrowser();
  const { page } = browser;
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(`[pageerror] ${e.message}`));
  try {
    await step('workbench drawn', async () => {
      // No extensionDevelopmentPath: the workbench runs the installed copy.
      await openWorkbench(page, workbenchUrl(server, { folder: workspace }));
      await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: timeoutMs });
    });
    await step(`ran "${COMMAND}"`, () => runCommand(page, COMMAND, timeoutMs));
    await step('the welcome (a fresh user), then Try the Demo', () => tryDemoIfWelcomed(page, timeoutMs));
    const frame = await step('webview shows #prompt-input', () => findWebviewFrame(page, '#prompt-input', timeoutMs));
    await step('a prompt sent; the answer streams in', async () => {
      const input = frame.locator('#prompt-input');
      await input.click();
      await input.pressSequentially('hello from the package smoke', { delay: 10 });
      await input.press('Enter');
      await frame.waitForFunction(() => [...document.querySelectorAll('.entry.agent')].some((e) => e.textContent.trim().length > 0), null, {
        timeout: timeoutMs,
      });
    });
    await step('the demonstration agent and its watchdog run from the installed folder', async () => {
      const deadline = Date.now() + 15_000;
      let agent, watchdog;
      while (
        !(agent = processesRunning(extensionsDir, 'dist/scripted-agent.js')).length ||
        !(watchdog = processesRunning(extensionsDir, 'dist/watchdog.js')).length
      ) {
        if (Date.now() > deadline) throw new Error(`under ${extensionsDir}: ${agent.length} scripted-agent.js, ${watchdog?.length ?? 0} watchdog.js processes`);
        await page.waitForTimeout(250);
      }
    });
    await step("the answer's code block is highlighted (dist/highlight.js, dist/webview.css): its keywords coloured apart from the code", async () => {
      const block = frame.locator('.entry.agent .code-block pre code.hljs').first();
      await block.waitFor({ timeout: timeoutMs });
      const colours = await block.evaluate((code) => {
        const keyword = code.querySelector('.hljs-keyword');
        const style = (e) => code.ownerDocument.defaultView.getComputedStyle(e);
        return keyword ? { code: style(code).color, keyword: style(keyword).color } : undefined;
      });
      if (!colours) throw new Error('no .hljs-keyword in the code block');
      if (colours.code === colours.keyword) throw new Error(`the keyword has the code's colour (${colours.code})`);
    });
    await step('the icon font (dist/codicon.ttf) loaded', async () => {
      const loaded = await frame
        .waitForFunction(() => [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'codicon' && f.status === 'loaded'), null, { timeout: 10_000 })
        .then(
          () => true,
          () => false,
        );
      if (!loaded) throw new Error(`the fonts: ${await frame.evaluate(() => JSON.stringify([...document.fonts].map((f) => `${f.family} ${f.status}`)))}`);
    });
    const chosen = await step('the turn ends, its permission answered', () => finishTurn(frame, timeoutMs));
    if (!chosen.length) throw new Error('the demonstration turn asked for no permission');
    await step('a slow turn, Escape: the stop confirmed, Send back', async () => {
      const input = frame.locator('#prompt-input');
      await input.click();
      await input.pressSequentially('please answer slow', { delay: 10 });
      await input.press('Enter');
      await frame.locator('#stop').waitFor({ state: 'visible', timeout: 10_000 });
      await input.press('Escape');
      await frame.locator('.entry.notice', { hasText: 'the agent confirmed' }).first().waitFor({ timeout: 15_000 });
      await frame.locator('#send').waitFor({ state: 'visible', timeout: 10_000 });
    });
  } catch (err) {
    const shot = join(resultsDir, 'package-failure.png');
    await page.screenshot({ path: shot }).catch(() => {});
    throw new Error([err?.message ?? String(err), `screenshot: ${shot}`, `page errors:\n${consoleErrors.slice(-10).join('\n')}`].join('\n\n'));
  } finally {
    await browser.close();
  }
}
