// The frame every smoke that can share the suite's code-server runs in: a browser on that server
// (or on one of its own, stopped after), a screenshot named in the error when a step fails, and
// nothing left behind: the browser closed, the smoke's scratch folders removed.
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, startCodeServer } from './codeServer.mjs';

const resultsDir = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'test-results');

/**
 * Runs `body(page, server)`. `server`: from startCodeServer, reused; without it one is started on
 * `folder`. A failure takes test-results/<name>-failure.png and says so in the error. `remove`:
 * folders deleted at the end, whatever happened.
 */
export async function inSmokeBrowser({ name, server, folder, remove = [] }, body) {
  const ownServer = !server;
  const host = server ?? (await startCodeServer({ folder }));
  const browser = await launchBrowser();
  const { page } = browser;
  try {
    return await body(page, host);
  } catch (err) {
    const shot = join(resultsDir, `${name}-failure.png`);
    await page.screenshot({ path: shot }).catch(() => {});
    throw new Error(`${err?.message ?? err}\nscreenshot: ${shot}`);
  } finally {
    await browser.close();
    if (ownServer) await host.stop();
    for (const folder of remove) rmSync(folder, { recursive: true, force: true });
  }
}
