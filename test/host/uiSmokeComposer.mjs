// The UI smoke's composer steps (uiSmoke.mjs runs them after the first turn): the header's
// mode, model and agent pickers, slash completion, `@` files attached and handed back.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearHovers } from './codeServer.mjs';

/** Runs the steps in the conversation `frame` of `page`; `workspace` is the folder code-server opened. */
export async function composerSteps({ page, frame, step, log, workspace }) {
  // The session line and slash completion: the demonstration offers a (pretend) mode and model
  // and two slash commands. `/` lists them; Enter takes one and must not also send the prompt.
  await step('header shows the mode and model', async () => {
    await frame.locator('#session-mode', { hasText: 'Ask' }).waitFor({ timeout: 10_000 });
    await frame.locator('#session-model', { hasText: 'Scripted' }).waitFor({ timeout: 10_000 });
  });
  await step("the header's agent is a picker: a click lists the agents (the installed presets among them); Escape leaves it", async () => {
    await clearHovers(page);
    await frame.locator('#agent-picker', { hasText: 'demo' }).click();
    const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ visible: true });
    await rows.first().waitFor({ timeout: 15_000 });
    log(`agent picker rows: ${JSON.stringify((await rows.allInnerTexts()).map((t) => t.split('\n')[0]).slice(0, 8))}`);
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').filter({ visible: true }).waitFor({ state: 'hidden', timeout: 10_000 });
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
  // A file to attach and then lose (the give-back step below), listed before the first `@`
  // search caches the folder's files.
  const doomed = join(workspace, 'attach-me.txt');
  writeFileSync(doomed, 'attached, then deleted before the prompt is sent\n');
  await step('"@READ", ArrowDown and Enter attach the highlighted file: its chip, its name in the text, nothing sent', async () => {
    const users = await frame.locator('.entry.user').count();
    const input = frame.locator('#prompt-input');
    await input.click();
    await input.pressSequentially('@READ', { delay: 15 });
    await frame.locator('#file-completion .file-item', { hasText: 'README.md' }).first().waitFor({ timeout: 10_000 });
    await input.press('ArrowDown');
    const name = (await frame.locator('#file-completion .file-item.active .slash-name').innerText()).trim();
    const active = await input.getAttribute('aria-activedescendant');
    if (!active?.startsWith('file-item-')) throw new Error(`the input's aria-activedescendant is ${active}, want a file-item-`);
    await input.press('Enter');
    await frame.locator('#attached-files .attached-file', { hasText: name }).waitFor({ timeout: 5_000 });
    await frame.locator('#file-completion').waitFor({ state: 'hidden', timeout: 5_000 });
    const value = await input.inputValue();
    if (!value.startsWith('@') || !value.includes(name)) throw new Error(`the input holds ${JSON.stringify(value)}, want the file ${name} named`);
    await frame.waitForTimeout(300);
    if ((await frame.locator('.entry.user').count()) !== users) throw new Error('Enter on a file also sent the prompt');
    await frame.locator('#attached-files .attached-remove').first().click();
    await frame.locator('#attached-files').waitFor({ state: 'hidden', timeout: 5_000 });
    await input.fill('');
  });
  await step('a prompt handed back to the box keeps its attached file (the file vanished before it was sent)', async () => {
    const input = frame.locator('#prompt-input');
    await input.click();
    await input.pressSequentially('please read @attach-m', { delay: 15 });
    // The highlighted row, as a person looks before Enter: a fresh clone's run pressed Enter while
    // the list for "@a" (README.md first, attach-me.txt second) was still shown, and attached README.md.
    await frame.locator('#file-completion .file-item.active', { hasText: 'attach-me.txt' }).first().waitFor({ timeout: 10_000 });
    await input.press('Enter');
    await frame.locator('#attached-files .attached-file', { hasText: 'attach-me.txt' }).waitFor({ timeout: 5_000 });
    rmSync(doomed);
    await input.press('Enter');
    await frame.locator('.entry.notice', { hasText: 'Not sent: no such file' }).first().waitFor({ timeout: 15_000 });
    await frame.waitForFunction(() => document.querySelector('#prompt-input')?.value.includes('please read @attach-me.txt'), null, { timeout: 10_000 });
    await frame.locator('#attached-files .attached-file', { hasText: 'attach-me.txt' }).waitFor({ timeout: 5_000 });
    await frame.locator('#attached-files .attached-remove').first().click();
    await input.fill('');
  });
  await step('a click on the model opens its picker; the choice shows in the header', async () => {
    await frame.locator('#session-model').click();
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Scripted, slow' });
    await row.first().waitFor({ state: 'visible', timeout: 10_000 });
    await row.first().click();
    await frame.locator('#session-model', { hasText: 'slow' }).waitFor({ timeout: 10_000 });
  });
}
