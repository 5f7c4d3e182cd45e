// The UI smoke's theme steps (uiSmoke.mjs runs them once the panel shows a turn; the look smoke
// at a permission and after a stop): the panel pictured in Dark Modern, both High Contrast themes
// and Light Modern, each picked as a user would, and every visible text of the real panel
// measured against its background (contrast.mjs): below WCAG AA (4.5:1, 3:1 for large text) in
// any of the four, the step fails and names the text, its colours and its ratio.
import { join } from 'node:path';
import { fillQuickInput, focusWorkbench } from './codeServer.mjs';
import { measureContrast } from './contrast.mjs';

/** The themes the panel is pictured in (test-results/<prefix>-theme-*.png): workbench class, webview body class. */
const THEMES = [
  { name: 'dark', theme: 'Dark Modern', workbench: 'vs-dark', body: 'vscode-dark' },
  { name: 'high-contrast', theme: 'Dark High Contrast', workbench: 'hc-black', body: 'vscode-high-contrast' },
  { name: 'high-contrast-light', theme: 'Light High Contrast', workbench: 'hc-light', body: 'vscode-high-contrast-light' },
  // Last: the rest of the smoke goes on in a light theme, as it started.
  { name: 'light', theme: 'Light Modern', workbench: 'vs', body: 'vscode-light' },
];

/** The screenshots the steps write (uiSmoke.mjs clears them before a run). */
export const themeShots = THEMES.map((t) => `ui-smoke-theme-${t.name}.png`);

/**
 * Runs the steps on `page` and the conversation `frame`; screenshots go to `resultsDir` as
 * `<prefix>-theme-<name>.png`. `part`: the workbench part the panel is in ('.part.editor',
 * '.part.auxiliarybar'), whose background is under the webview's. `log`: where the count goes.
 */
export async function themeSteps({ page, frame, step, resultsDir, part = '.part.editor', prefix = 'ui-smoke', log = console.log }) {
  // Picked through Preferences: Color Theme as a user would (code-server's workbench did not see
  // a settings file written behind its back: "the dark theme … Timeout 30000ms exceeded"); the
  // panel follows the workbench (VS Code's classes on the webview's body, its colour variables).
  for (const t of THEMES) {
    await step(`the ${t.name} theme (${t.theme}): the workbench and the panel follow`, async () => {
      // Its keybinding (Ctrl+K Ctrl+T): by its title the palette's first row can be "Browse
      // Color Themes in Marketplace", which offline lists only an error.
      const openPicker = async () => {
        await focusWorkbench(page);
        await page.keyboard.press('Control+K');
        await page.keyboard.press('Control+T');
      };
      const row = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: t.theme });
      await fillQuickInput(page, { open: openPicker, text: t.theme, row, timeoutMs: 30_000, what: `the theme "${t.theme}"` });
      await page.keyboard.press('Enter');
      await page.waitForFunction((cls) => document.querySelector('.monaco-workbench')?.classList.contains(cls), t.workbench, { timeout: 30_000 });
      await frame.waitForFunction((cls) => document.body.classList.contains(cls), t.body, { timeout: 30_000 });
      await frame.waitForTimeout(500); // the webview's colour variables land with its class
    });
    await page.screenshot({ path: join(resultsDir, `${prefix}-theme-${t.name}.png`) });
    // Before the fix (the panel's status colours as text, the line numbers' colour), this printed
    // in Light Modern: "1.88 < 4.5: "Done" rgb(115, 201, 145) on rgb(248, 248, 248) (summary.tool-row
    // > span.pill.status-completed > span.pill-text)", "3.12 < 4.5: "DEMO" rgb(255, 255, 255) on
    // rgb(191, 136, 3)"; in Dark Modern: "2.09 < 4.5: "4" rgb(110, 118, 129) on rgb(65, 71, 51)
    // (div.tool-diff-lines > div.diff-row.add > span.diff-num)", "4.35 < 4.5: "const" …".
    await step(`every text of the panel meets WCAG AA in ${t.theme}`, async () => {
      const { base, rows, failing } = await measureContrast(page, frame, part);
      const lowest = rows.reduce((low, r) => (r.ratio / r.required < low.ratio / low.required ? r : low), rows[0]);
      log(
        `${t.theme}: ${rows.length} texts over rgb(${base.map(Math.round).join(', ')}), the lowest ${lowest?.ratio}:1 ("${lowest?.text}", needs ${lowest?.required})`,
      );
      if (rows.length < 10) throw new Error(`only ${rows.length} texts measured: the panel is not what the step expects`);
      if (failing.length > 0)
        throw new Error(
          `${failing.length} texts under AA in ${t.theme}:\n${failing
            .map((f) => `  ${f.ratio} < ${f.required}: "${f.text}" ${f.colour} on ${f.background} (${f.where})`)
            .join('\n')}`,
        );
    });
  }
}
