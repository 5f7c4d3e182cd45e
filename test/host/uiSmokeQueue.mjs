// The UI smoke's queue steps (uiSmoke.mjs runs them while a slow turn runs): Enter while a turn
// runs offers the busy choice; queued prompts shown above the box, edited and removed.
import { join } from 'node:path';

/** Runs the steps in the conversation `frame` of `page`, a turn running; screenshots go to `resultsDir`. */
export async function queueSteps({ page, frame, step, resultsDir }) {
  // Enter while a turn runs (reins.whenBusy `ask`, issue 13): the choice beside the box, with its
  // keys; Escape keeps the text; Queue puts it above the box, editable and removable; the stop
  // below gives what is still queued back to the box.
  // Sabotage (composer.ts's submit sending at once instead of opening the choice), this printed:
  //   step "Enter while the turn runs offers …" failed: locator.waitFor: Timeout 5000ms exceeded (#busy-choice)
  await step('Enter while the turn runs offers Queue and Stop and Send (the demo cannot steer), with their keys; Escape keeps the text', async () => {
    const input = frame.locator('#prompt-input');
    await input.pressSequentially('queued one', { delay: 5 });
    await input.press('Enter');
    await frame.locator('#busy-choice').waitFor({ state: 'visible', timeout: 5_000 });
    const labels = await frame.locator('#busy-choice .busy-option').allInnerTexts();
    const flat = labels.map((l) => l.replace(/\s+/g, ' ').trim());
    if (JSON.stringify(flat) !== JSON.stringify(['Queue 1', 'Stop and Send 2'])) throw new Error(`the choices read ${JSON.stringify(flat)}`);
    await frame.waitForFunction(() => document.activeElement?.getAttribute('data-choice') === 'queue', null, { timeout: 5_000 });
    await frame.locator(':focus').press('Escape');
    await frame.locator('#busy-choice').waitFor({ state: 'hidden', timeout: 5_000 });
    if ((await input.inputValue()) !== 'queued one') throw new Error(`Escape left ${JSON.stringify(await input.inputValue())} in the box`);
    await frame.waitForTimeout(300);
    if (!(await frame.locator('#stop').isVisible())) throw new Error('the Escape that closed the choice also stopped the turn');
  });
  await step('Enter then 1 queues it; a second one with Enter Enter; both shown above the box, in order', async () => {
    const input = frame.locator('#prompt-input');
    await input.press('Enter');
    await frame.locator('#busy-choice').waitFor({ state: 'visible', timeout: 5_000 });
    await frame.locator(':focus').press('1');
    await frame.locator('#queue .queued-item', { hasText: 'queued one' }).waitFor({ timeout: 5_000 });
    if ((await input.inputValue()) !== '') throw new Error('the queued text is still in the box');
    await input.pressSequentially('queued two', { delay: 5 });
    await input.press('Enter');
    await frame.locator('#busy-choice').waitFor({ state: 'visible', timeout: 5_000 });
    await frame.locator(':focus').press('Enter');
    await frame.locator('#queue .queued-item').nth(1).waitFor({ timeout: 5_000 });
    const texts = await frame.locator('#queue .queued-text').allInnerTexts();
    if (JSON.stringify(texts) !== JSON.stringify(['queued one', 'queued two'])) throw new Error(`the queue reads ${JSON.stringify(texts)}`);
  });
  await page.screenshot({ path: join(resultsDir, 'ui-smoke-queue.png') });
  await step('a queued prompt edited in place (Enter saves), another removed', async () => {
    await frame.locator('#queue .queued-item').first().locator('.queued-edit').click();
    const box = frame.locator('#queue .queue-edit');
    await box.fill('queued one, edited');
    await box.press('Enter');
    await frame.locator('#queue .queued-text', { hasText: 'queued one, edited' }).waitFor({ timeout: 5_000 });
    await frame.locator('#queue .queued-item', { hasText: 'queued two' }).locator('.queued-remove').click();
    await frame.waitForFunction(() => document.querySelectorAll('#queue .queued-item').length === 1, null, { timeout: 5_000 });
    const texts = await frame.locator('#queue .queued-text').allInnerTexts();
    if (JSON.stringify(texts) !== JSON.stringify(['queued one, edited'])) throw new Error(`the queue reads ${JSON.stringify(texts)}`);
  });
}
