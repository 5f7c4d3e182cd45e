// The UI smoke's theme steps (uiSmoke.mjs runs them once the panel shows a turn): the panel
// pictured in dark, high contrast and light, each picked as a user would.
import { join } from 'node:path';
import { fillQuickInput } from './codeServer.mjs';

/** The themes the panel is pictured in (test-results/ui-smoke-theme-*.png): workbench class, webview body class. */
const THEMES = [
  { name: 'dark', theme: 'Dark Modern', workbench: 'vs-dark', body: 'vscode-dark' },
  { name: 'high-contrast', theme: 'Dark High Contrast', workbench: 'hc-black', body: 'vscode-high-contrast' },
  // Last: the rest of the smoke goes on in the light theme it started in.
  { name: 'light', theme: 'Light Modern', workbench: 'vs', body: 'vscode-light' },
];

/** The screenshots the steps write (uiSmoke.mjs clears them before a run). */
export const themeShots = THEMES.map((t) => `ui-smoke-theme-${t.name}.png`);

/** Runs the steps on `page` and the conversation `frame`; screenshots go to `resultsDir`. */
export async function themeSteps({ page, frame, step, resultsDir }) {
  // Light, dark and high contrast, picked through Preferences: Color Theme as a user would
  // (code-server's workbench did not see a settings file written behind its back: "the dark
  // theme … Timeout 30000ms exceeded"); the panel follows the workbench (VS Code's classes on
  // the webview's body, its colour variables).
  for (const t of THEMES) {
    await step(`the ${t.name} theme (${t.theme}): the workbench and the panel follow`, async () => {
      // Its keybinding (Ctrl+K Ctrl+T): by its title the palette's first row can be "Browse
      // Color Themes in Marketplace", which offline lists only an error.
      const openPicker = async () => {
        await page
          .locator('.monaco-workbench .part.editor')
          .first()
          .click({ position: { x: 5, y: 5 } });
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
    await page.screenshot({ path: join(resultsDir, `ui-smoke-theme-${t.name}.png`) });
  }
}
