#!/usr/bin/env node
// Look smoke: the panel's look and state in the Reins view, in code-server driven by Chromium as a
// person would, with the demonstration agent: the header at 289 px (the view's default), 240 and
// 400 px (nothing overlaps, cut text ends in an ellipsis with its whole text as the tooltip, the
// agent and the state readable); what the busy line says while working, while waiting for the
// user's permission, and while stopping; a wide code block that scrolls visibly; a tool's title in
// full on hover; file links that break only at separators; the plan after a confirmed stop; every
// animation frame across a stop (never the stop's notice beside "Stopping…" or Stop); the panel's
// contrast in four themes at a permission and after a stop (uiSmokeThemes.mjs).
//
// The browser draws scrollbars, as a user's does (Playwright's headless default hides them: every
// scrollbar measured 0 px). Screenshots: test-results/look-*.png.
// Standalone: `node test/host/lookSmoke.mjs` (needs dist/ built); run.mjs calls runLookSmoke().
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  fillQuickInput,
  frameIn,
  launchBrowser,
  openWorkbench,
  runCommand,
  runStandalone,
  scriptedAgentEntry,
  startCodeServer,
  stepper,
  workbenchUrl,
} from './codeServer.mjs';
import { brokenPaths, checkHeader, codeBlocks, startFrames, statusTexts, stopFrames, twoStates } from './lookProbes.mjs';
import { themeSteps } from './uiSmokeThemes.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(repo, 'test-results');
const log = (m) => console.log(`[look-smoke] ${m}`);
const step = stepper(log);
/** An agent of the user's whose stop takes 1.5 s to confirm: "Stopping…" is on screen for a while. */
const SLOW_STOP = 'slow-stop';
const SLOW_STOP_SCENARIO = {
  // A start that takes a while: the prompt is typed while it starts (the step below). Typing the
  // prompt takes a few hundred ms here; 4 s leaves room for a loaded CI machine.
  init: { delayMs: 4000 },
  prompts: [
    {
      steps: [
        {
          update: {
            sessionUpdate: 'plan',
            entries: [
              { content: 'Look around', status: 'in_progress', priority: 'medium' },
              { content: 'Answer', status: 'pending', priority: 'medium' },
            ],
          },
        },
        { text: 'Working on it; a stop takes this agent a moment to confirm.' },
        { hang: true },
      ],
      onCancel: { delayMs: 1500 },
    },
  ],
};

async function send(frame, text) {
  const input = frame.locator('#prompt-input');
  await frame.waitForFunction(() => !document.querySelector('#prompt-input')?.readOnly, null, { timeout: 60_000 });
  await input.click();
  await input.pressSequentially(text, { delay: 5 });
  await input.press('Enter');
}

/** Drags the sash at the Reins view's left edge until the panel is `want` px wide. */
async function viewWidth(page, frame, want) {
  for (let i = 0; i < 5; i++) {
    const have = await frame.evaluate(() => window.innerWidth);
    if (have === want) return;
    const aux = await page.locator('.part.auxiliarybar').boundingBox();
    const sashes = await page.locator('.monaco-sash.vertical').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { x: r.x + r.width / 2, y: r.y + r.height / 2, h: r.height };
      }),
    );
    const sash = sashes.filter((s) => Math.abs(s.x - aux.x) < 6 && s.h > 100).sort((a, b) => b.h - a.h)[0];
    if (!sash) throw new Error(`no sash at the view's edge (x ${aux.x})`);
    await page.mouse.move(sash.x, sash.y);
    await page.mouse.down();
    await page.mouse.move(sash.x - (want - have), sash.y, { steps: 4 });
    await page.mouse.up();
    await page.waitForTimeout(300);
  }
  throw new Error(`the panel is ${await frame.evaluate(() => window.innerWidth)} px wide, want ${want}`);
}

const shot = (page, name, clip) => page.screenshot({ path: join(resultsDir, `look-${name}.png`), ...(clip ? { clip } : {}) });

export async function runLookSmoke({ extensionDevelopmentPath = repo, timeoutMs = 60_000 } = {}) {
  mkdirSync(resultsDir, { recursive: true });
  const workspace = mkdtempSync(join(tmpdir(), 'reins-look-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), workspace, { recursive: true });
  const server = await startCodeServer({
    folder: workspace,
    settings: { 'reins.defaultAgent': 'demo' },
    machineSettings: { 'reins.agents': { [SLOW_STOP]: scriptedAgentEntry(extensionDevelopmentPath, { scenarioJson: JSON.stringify(SLOW_STOP_SCENARIO) }) } },
  });
  const browser = await launchBrowser({ scrollbars: true });
  const { page } = browser;
  const aux = page.locator('.part.auxiliarybar');
  let frame;
  try {
    await step('workbench drawn, "Reins: Open Agent Panel" run', async () => {
      await openWorkbench(page, workbenchUrl(server, { folder: workspace, extensionDevelopmentPath }));
      await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: timeoutMs });
      await runCommand(page, 'Reins: Open Agent Panel', timeoutMs);
    });
    frame = await step('the conversation in the Reins view', () => frameIn(page, '.part.auxiliarybar', '#prompt-input', timeoutMs));

    // Before the fix (status.css adding '…' to a label that has one), this printed:
    //   step "working: the busy line says Working…" failed …: the busy line reads "Working……"
    await step('working: the busy line says "Working…", once', async () => {
      await send(frame, 'hello from the look smoke');
      await frame.locator('#working').waitFor({ state: 'visible', timeout: timeoutMs });
      const { working } = await statusTexts(frame);
      log(`while working: ${JSON.stringify(working)}`);
      if (working !== 'Working…') throw new Error(`the busy line reads ${JSON.stringify(working)}, want "Working…"`);
    });
    // Before the fix (the status derived from the turn alone), this printed:
    //   step "waiting for a permission: …" failed …: the busy line reads "Working…" while the permission waits
    await step('waiting for a permission: the busy line says "Waiting for you"', async () => {
      await frame.locator('.entry.permission button[data-option-id]').first().waitFor({ timeout: timeoutMs });
      await frame
        .waitForFunction(() => !/^Working/.test(document.querySelector('#working .working-text')?.textContent ?? ''), null, { timeout: 5_000 })
        .catch(() => {});
      const { working } = await statusTexts(frame);
      log(`while the permission waits: ${JSON.stringify(working)}`);
      if (working !== 'Waiting for you: the agent asks for permission')
        throw new Error(`the busy line reads ${JSON.stringify(working)} while the permission waits`);
    });
    await shot(page, 'permission', await aux.boundingBox());
    await themeSteps({ page, frame, step, resultsDir, part: '.part.auxiliarybar', prefix: 'look-permission', log });
    await step('the permission answered; the turn ends', async () => {
      await frame.locator('.entry.permission button[data-option-id="allow-once"]').first().click();
      await frame.locator('#stop').waitFor({ state: 'hidden', timeout: timeoutMs });
      await frame.locator('#session-usage').waitFor({ state: 'visible', timeout: 10_000 });
    });

    // Before the fix (header.css's and session.css's layout as they were), at 289 px this printed:
    //   step "the header at 289 px: …" failed after 0.1 s: session-usage lies outside the header
    //   (217–390 of 0–289); agent-name and badge.demo-badge overlap (10.6 × 18.0 px);
    //   icon.codicon.codicon-chevron-down.agent-picker-chevron and badge.demo-badge overlap (12.0 × 12.0 px)
    for (const width of [289, 240, 400]) {
      await step(`the header at ${width} px: nothing overlaps, cut text has an ellipsis and its whole text as the tooltip`, async () => {
        await viewWidth(page, frame, width);
        const { problems, cut, parts } = await checkHeader(frame);
        log(`header at ${width} px: ${parts} parts; cut: ${cut.length ? cut.join(', ') : 'none'}`);
        const box = await aux.boundingBox();
        const header = await frame.locator('.header').boundingBox();
        await shot(page, `header-${width}`, {
          x: box.x,
          y: box.y,
          width: box.width,
          height: Math.min(box.height, (header?.y ?? 0) + (header?.height ?? 120) + 8),
        });
        if (problems.length) throw new Error(problems.join('; '));
      });
    }

    // Before the fix (the diff header in one row, no unbreakable path parts), this printed:
    //   step "at 240 and 289 px: file links break only after separators" failed after 0.4 s: at 240 px:
    //   "reins-demo-notes.md" breaks after "reins-" (lines ["reins-","demo-","notes.md"])
    await step('at 240 and 289 px: file links break only after separators', async () => {
      for (const width of [240, 289]) {
        await viewWidth(page, frame, width);
        const broken = await brokenPaths(frame);
        if (broken.length) throw new Error(`at ${width} px: ${broken.join('; ')}`);
      }
    });
    await step('a tool title in full on hover', async () => {
      const title = frame.locator('.entry.tool .tool-title', { hasText: 'Edit reins-demo-notes.md' }).first();
      const full = await title.evaluate((t) => t.title);
      const before = await title.evaluate((t) => ({ cut: t.scrollWidth > t.clientWidth }));
      await title.hover();
      await frame.waitForTimeout(100);
      const hovered = await title.evaluate((t) => ({ cut: t.scrollWidth > t.clientWidth + 0.5, text: t.textContent }));
      log(`tool title at rest cut: ${before.cut}; hovered cut: ${hovered.cut}; tooltip ${JSON.stringify(full)}`);
      await shot(page, 'tool-title-hover', await aux.boundingBox());
      // Before the fix (no rule for the hovered row), this printed: "the hovered tool title is still cut".
      if (hovered.cut) throw new Error('the hovered tool title is still cut');
      if (full !== hovered.text) throw new Error(`the title's tooltip ${JSON.stringify(full)} is not its text`);
      await page.mouse.move(0, 0);
    });

    // Before the fix (VS Code's html scrollbar-color turning the panel's own scrollbars off), this
    // printed: step "a code block wider than the panel scrolls visibly: …" failed after 0.0 s: the
    // code block is 559 px wide in a 248 px box, and its scrollbar is 15 px high, want the panel's
    // own 10 px. Chromium's own is an overlay of 0 px where the system's are (macOS); with
    // Playwright's default --hide-scrollbars every scrollbar measured 0 px, as the issue saw.
    await step('a code block wider than the panel scrolls visibly: its scrollbar shows', async () => {
      const [wide] = (await codeBlocks(frame)).filter((b) => b.content > b.box);
      if (!wide) throw new Error('no code block wider than the panel at 289 px');
      log(`wide code block: ${wide.content} px in a ${wide.box} px box, scrollbar ${wide.scrollbar} px`);
      if (wide.scrollbar !== 10)
        throw new Error(
          `the code block is ${wide.content} px wide in a ${wide.box} px box, and its scrollbar is ${wide.scrollbar} px high, want the panel's own 10 px`,
        );
      const block = frame.locator('.entry.agent .code-block').first();
      await block.scrollIntoViewIfNeeded();
      await block.screenshot({ path: join(resultsDir, 'look-code-block.png') });
    });

    // Before the fix (Transcript.planEnded not called at the stop), this printed:
    //   step "a stop during the read: …" failed …: the plan reads "0 of 4 done" with ["in_progress","pending","pending","pending"]
    await step('a stop during the read: the plan shows its unfinished items stopped, no spinner', async () => {
      await send(frame, 'please answer slow');
      await frame.locator('.entry.plan').last().locator('.plan-item.status-in_progress').first().waitFor({ timeout: timeoutMs });
      await frame.locator('.entry.tool[data-status="in_progress"]').last().waitFor({ timeout: timeoutMs });
      const frames = await stopAndSample(frame);
      const plan = frame.locator('.entry.plan').last();
      await plan
        .locator('.plan-item.status-stopped')
        .first()
        .waitFor({ timeout: 5_000 })
        .catch(() => {});
      const items = await plan.locator('.plan-item').evaluateAll((els) => els.map((e) => [...e.classList].find((c) => c.startsWith('status-')).slice(7)));
      const progress = await plan.locator('.plan-progress').textContent();
      const spinning = await plan.locator('.plan-check').evaluateAll((els) => els.filter((e) => window.getComputedStyle(e).animationName !== 'none').length);
      log(`plan after the stop: ${JSON.stringify(progress)} ${JSON.stringify(items)}; ${spinning} spinning; ${frames.length} frames sampled`);
      await shot(page, 'plan-stopped', await aux.boundingBox());
      if (items.some((s) => s === 'in_progress' || s === 'pending') || !/^Stopped: \d of 4 done$/.test(progress ?? ''))
        throw new Error(`the plan reads ${JSON.stringify(progress)} with ${JSON.stringify(items)}`);
      if (spinning) throw new Error(`${spinning} plan items still spin`);
    });
    await themeSteps({ page, frame, step, resultsDir, part: '.part.auxiliarybar', prefix: 'look-stopped', log });

    await step(`switched to ${SLOW_STOP} (its stop takes 1.5 s to confirm); a prompt typed and sent while it starts`, async () => {
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: SLOW_STOP });
      await fillQuickInput(page, {
        open: () => page.keyboard.press('F1'),
        text: '>Reins: Select Agent',
        row: page.locator('.quick-input-list .monaco-list-row', { hasText: 'Select Agent' }),
        timeoutMs,
        what: 'Select Agent',
      });
      await page.keyboard.press('Enter');
      await row.first().waitFor({ timeout: 30_000 });
      await row.first().click();
      await frame
        .locator('.entry.notice', { hasText: `Switched to ${SLOW_STOP}` })
        .first()
        .waitFor({ timeout: 30_000 });
      // The next prompt is typed while the agent starts, as right after choosing it: the box takes
      // it and Enter sends it once the agent is ready. When the box was read-only while an agent
      // started, a fresh clone's run typed here and sent nothing ("waiting for
      // locator('.entry.plan .plan-item.status-in_progress')" for 60 s). Sabotage (starting
      // read-only again): "the prompt was not sent while slow-stop started: {"placeholder":"Message
      // slow-stop — Enter to send, …","value":""}" (the keys waited for the agent to be ready).
      await frame.waitForFunction((name) => (document.querySelector('#prompt-input')?.placeholder ?? '').startsWith(`Starting ${name}…`), SLOW_STOP, {
        timeout: 30_000,
      });
      await send(frame, 'work until stopped');
      const after = await frame.evaluate(() => {
        const input = document.querySelector('#prompt-input');
        return { placeholder: input?.placeholder, value: input?.value };
      });
      log(`after Enter: ${JSON.stringify(after)}`);
      if (!after.placeholder?.startsWith(`Starting ${SLOW_STOP}…`))
        throw new Error(`the prompt was not sent while ${SLOW_STOP} started: ${JSON.stringify(after)}`);
      if (after.value) throw new Error(`typed while ${SLOW_STOP} started, the text stayed in the box: ${JSON.stringify(after)}`);
    });
    // Before the fix (the outbox posting the notice and the status as two messages), this printed:
    //   step "a stop during the read: …" failed …: the stop's notice came in a message of its own, not
    //   with the status that ends the stop: [["status stopping with Stop"],["upsert"],["stop notice"],["status idle"]]
    // (a frame between the last two is what the issue saw; on an idle machine one rarely falls there).
    await step('stopping: the busy line says "Stopping…"; no frame shows the notice beside it or Stop', async () => {
      // The prompt typed while the agent started (the step before) goes once it is ready.
      await frame.locator('.entry.plan .plan-item.status-in_progress').last().waitFor({ timeout: timeoutMs });
      const frames = await stopAndSample(frame, async () => {
        await frame.waitForFunction(() => /^Stopping/.test(document.querySelector('#working .working-text')?.textContent ?? ''), null, { timeout: 5_000 });
        const { working } = await statusTexts(frame);
        log(`while stopping: ${JSON.stringify(working)}`);
        if (!/^Stopping… waiting for the agent to confirm( \(cancel sent \d+\.\d s ago\))?$/.test(working ?? ''))
          throw new Error(`the busy line reads ${JSON.stringify(working)} while stopping`);
        await shot(page, 'stopping', await aux.boundingBox());
      });
      const stopping = frames.filter((f) => /^Stopping/.test(f.working ?? '')).length;
      log(`${frames.length} frames sampled across the stop, ${stopping} of them stopping`);
      if (stopping === 0) throw new Error('no frame showed "Stopping…"');
      const plan = await frame
        .locator('.entry.plan')
        .last()
        .locator('.plan-item')
        .evaluateAll((els) => els.map((e) => e.className));
      if (!plan.every((c) => /status-stopped/.test(c))) throw new Error(`the plan after the stop: ${JSON.stringify(plan)}`);
    });
    await shot(page, 'stopped', await aux.boundingBox());
  } catch (err) {
    await shot(page, 'failure').catch(() => {});
    throw err;
  } finally {
    await browser.close();
    await server.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * Presses Stop (the panel's button), sampling every frame and every message until the stop's
 * notice has been shown a while; `during`: what to check while it stops. Throws when a frame
 * showed the notice beside a stopping state, or when the notice came in a message without the
 * status that ends the stop (then a frame may fall between the two: the issue saw one).
 * Returns the frames.
 */
async function stopAndSample(frame, during) {
  const stopNotices = () => [...document.querySelectorAll('.entry.notice')].filter((n) => /^Stopped —/.test(n.textContent.trim())).length;
  const before = await frame.evaluate(stopNotices);
  await startFrames(frame);
  let sampled;
  try {
    await frame.locator('#stop').click();
    await during?.();
    const more = (n) => [...document.querySelectorAll('.entry.notice')].filter((e) => /^Stopped —/.test(e.textContent.trim())).length > n;
    await frame.waitForFunction(more, before, { timeout: 15_000 }).catch(() => {
      throw new Error(`no "Stopped — …" notice within 15 s (${before} before the stop)`);
    });
    await frame.locator('#stop').waitFor({ state: 'hidden', timeout: 10_000 });
    await frame.waitForTimeout(500);
  } finally {
    sampled = await stopFrames(frame);
  }
  const { frames, messages } = sampled;
  const carrying = messages.find((m) => m.includes('stop notice'));
  log(`the message with the stop's notice: ${JSON.stringify(carrying)}`);
  const both = twoStates(frames, before);
  if (both.length) throw new Error(`${both.length} frames showed the stop's notice beside a stopping state: ${JSON.stringify(both[0])}`);
  if (!carrying?.includes('status idle'))
    throw new Error(`the stop's notice came in a message of its own, not with the status that ends the stop: ${JSON.stringify(messages.slice(-4))}`);
  return frames;
}

runStandalone(import.meta.url, 'look-smoke', runLookSmoke);
