#!/usr/bin/env node
// Elicitation smoke: the agent asks with a form (ACP elicitation, form mode) and the user
// fills and submits it in the real panel with the keyboard only: the first field has the focus
// when the form appears, Tab walks the fields (a choice picked by typing its first letter), a too-short name is refused in the form with its
// message (nothing sent), Enter submits; the agent gets the values with the schema's types.
// Then a second form dismissed with Escape: answered `cancel`, and the panel's Escape is not a
// Stop (no session/cancel). Then a URL: the whole address shown as text (no link), its host
// picked out, a Punycode host warned, the panel measured in four themes (uiSmokeThemes.mjs);
// hidden behind a new file, the status bar says the agent waits for the user, and its click
// brings the question back.
// Screenshots: test-results/elicitation-form.png (filled, before Submit), elicitation-url.png,
// elicitation-theme-*.png.
//
// Sabotage (the form's Escape handler without preventDefault/stopPropagation, so the panel's
// Escape also ran), this printed: step "Escape in the next form: answered cancel, and no Stop
// (no session/cancel)" failed after 0.4 s: Escape in the form stopped the turn (a session/cancel
// went out).
//
// Standalone: `node test/host/elicitationSmoke.mjs` (needs dist/ built); run.mjs calls runElicitationSmoke().
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { themeSteps } from './uiSmokeThemes.mjs';
import { findWebviewFrame, openPanelSteps, runCommand, runStandalone, scriptedAgentEntry, stepper, workbenchUrl, typePrompt } from './codeServer.mjs';
import { inSmokeBrowser } from './smokeBrowser.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(repo, 'test-results');
const log = (m) => console.log(`[elicitation-smoke] ${m}`);
const step = stepper(log);

const FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Release name', minLength: 3 },
    retries: { type: 'integer', title: 'Retries', minimum: 0, maximum: 5, default: 2 },
    dryRun: { type: 'boolean', title: 'Dry run' },
    strategy: {
      type: 'string',
      title: 'Strategy',
      oneOf: [
        { const: 'conservative', title: 'Conservative' },
        { const: 'balanced', title: 'Balanced' },
      ],
    },
    targets: { type: 'array', title: 'Targets', items: { type: 'string', enum: ['linux', 'mac'] } },
  },
  required: ['name', 'strategy'],
};

// After the answer the turn goes on a moment: a Stop that Escape set off would find it running.
const ask = (params) => ({ steps: [{ elicit: { params: { sessionId: '${sessionId}', ...params } } }, { sleepMs: 800 }, { text: 'Thanks.' }] });

function scenario() {
  return {
    name: 'elicitation-smoke',
    prompts: [
      ask({ mode: 'form', message: 'How should I set up the release?', requestedSchema: FORM }),
      ask({ mode: 'form', message: 'Which branch?', requestedSchema: { type: 'object', properties: { branch: { type: 'string' } } } }),
      // Asked during a tool call: shown inside that tool's card.
      {
        steps: [
          { tool: { id: 'call-signin', title: 'Connect to the forge', kind: 'fetch', status: 'in_progress' } },
          ...ask({
            mode: 'url',
            toolCallId: 'call-signin',
            elicitationId: 'e-1',
            url: 'https://xn--gthub-n4a.com/login/oauth?state=1',
            message: 'Sign in to continue.',
          }).steps,
        ],
      },
    ],
  };
}

function answers(record) {
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.dir === 'event' && e.event === 'elicitation-answered')
    .map((e) => e.reply?.result ?? e.reply);
}

const cancelsIn = (record) =>
  readFileSync(record, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"session/cancel"')).length;

async function waitFor(what, ok, timeoutMs = 15_000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) if (await ok()) return;
  throw new Error(`timed out waiting for ${what}`);
}

/** What has the keyboard in the panel: the element's class and, for a field, its row's name. */
const focused = (frame) =>
  frame.evaluate(() => {
    const a = document.activeElement;
    return { cls: a?.className ?? '', name: a?.closest('.elicitation-field')?.dataset.name, tag: a?.tagName, text: a?.textContent ?? '' };
  });

export async function runElicitationSmoke({ server, extensionDevelopmentPath = repo, timeoutMs = 120_000 } = {}) {
  mkdirSync(resultsDir, { recursive: true });
  const workspace = mkdtempSync(join(tmpdir(), 'reins-elicit-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), workspace, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'reins-elicit-'));
  const record = join(scratch, 'record.jsonl');
  writeFileSync(join(scratch, 'scenario.json'), JSON.stringify(scenario()));
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({
      'reins.agents': { asker: scriptedAgentEntry(extensionDevelopmentPath, { scenarioFile: join(scratch, 'scenario.json'), record }) },
      'reins.defaultAgent': 'asker',
      'reins.openIn': 'editor',
    }),
  );
  await inSmokeBrowser({ name: 'elicitation', server, folder: workspace, remove: [scratch, workspace] }, async (page, server) => {
    let frame;
    const sendPrompt = (text) => typePrompt(page, frame, text);
    frame = await openPanelSteps(step, page, workbenchUrl(server, { folder: workspace, extensionDevelopmentPath }), timeoutMs);

    await step('the form appears in the transcript, naming the agent, its first field focused, defaults filled in', async () => {
      await sendPrompt('release');
      const form = frame.locator('.entry.elicitation');
      await form.waitFor({ timeout: timeoutMs });
      const title = await form.locator('.elicitation-title').textContent();
      if (!/asker asks you/.test(title ?? '')) throw new Error(`the form does not name the agent: ${title}`);
      await waitFor('the first field to take the keyboard', async () => (await focused(frame)).name === 'name');
      const retries = await frame.locator('.elicitation-field[data-name="retries"] input').inputValue();
      if (retries !== '2') throw new Error(`the default 2 is not filled in: ${JSON.stringify(retries)}`);
      const required = await frame.locator('.elicitation-field[data-name="name"] .elicitation-required').count();
      if (required !== 1) throw new Error('the required field is not marked');
    });

    await step('a too-short name is refused in the form by its message, nothing sent; the keyboard goes back to it', async () => {
      await page.keyboard.type('ab');
      await page.keyboard.press('Enter');
      const error = frame.locator('.elicitation-field[data-name="name"] .elicitation-error');
      await error.waitFor({ state: 'visible', timeout: 5_000 });
      const text = await error.textContent();
      if (text !== 'At least 3 characters.') throw new Error(`the error says ${JSON.stringify(text)}`);
      // Strategy is required too: its error shows as well, and the first invalid field has the keyboard.
      const f = await focused(frame);
      if (f.name !== 'name') throw new Error(`the keyboard is on ${JSON.stringify(f)}, not the name`);
      if (answers(record).length !== 0) throw new Error('an answer went to the agent');
    });

    await step('filled by keyboard only (Tab, typing, Space, arrows), then submitted with Enter', async () => {
      // Each key, and where the keyboard is after it: the trail a failure prints.
      const trail = [];
      // At a person's pace: the workbench syncs the webview's focus after each move, and keys a few
      // ms apart saw the keyboard put back on a field left a moment before (Tab→dryRun from the strategy).
      const key = async (k, want) => {
        await page.keyboard.press(k);
        await page.waitForTimeout(150);
        const f = await focused(frame);
        trail.push(`${k}→${f.name ?? f.text ?? f.tag}`);
        if (want !== undefined && f.name !== want && f.text !== want)
          throw new Error(`after ${trail.join(', ')}: the keyboard is on ${JSON.stringify(f)}, not ${want}`);
      };
      await key('End', 'name');
      await page.keyboard.type('c-1'); // "abc-1"
      const nameError = frame.locator('.elicitation-field[data-name="name"] .elicitation-error');
      if (await nameError.isVisible()) throw new Error('the name’s message stays after it was corrected');
      await key('Tab', 'retries');
      await key('Control+A', 'retries');
      await page.keyboard.type('4');
      await key('Tab', 'dryRun');
      await key('Space', 'dryRun');
      await key('Tab', 'strategy');
      // The option by its first letter, as a select takes typing (arrows may open its popup in headless Chromium).
      await key('b', 'strategy');
      await key('Tab', 'targets'); // linux
      await key('Tab', 'targets'); // mac
      await key('Space', 'targets');
      await frame.locator('.entry.elicitation').screenshot({ path: join(resultsDir, 'elicitation-form.png') });
      await key('Tab', 'Submit');
      await page.keyboard.press('Enter');
      await frame.locator('.entry.elicitation .elicitation-answer', { hasText: 'Submitted' }).waitFor({ timeout: 10_000 });
      await waitFor('the answer in the record', () => answers(record).length === 1);
      const got = answers(record)[0];
      const want = { action: 'accept', content: { name: 'abc-1', retries: 4, dryRun: true, strategy: 'balanced', targets: ['mac'] } };
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`the agent got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      await frame.locator('#stop').waitFor({ state: 'hidden', timeout: timeoutMs });
    });

    await step('Escape in the next form: answered cancel, and no Stop (no session/cancel)', async () => {
      await sendPrompt('branch');
      await frame.locator('.entry.elicitation:not(.answered)').waitFor({ timeout: timeoutMs });
      await waitFor('the new form to take the keyboard', async () => (await focused(frame)).name === 'branch');
      await page.keyboard.press('Escape');
      await waitFor('the cancel in the record', () => answers(record).length === 2);
      const got = answers(record)[1];
      if (got?.action !== 'cancel') throw new Error(`the agent got ${JSON.stringify(got)}, want cancel`);
      await frame.locator('#stop').waitFor({ state: 'hidden', timeout: timeoutMs });
      if (cancelsIn(record) !== 0) throw new Error('Escape in the form stopped the turn (a session/cancel went out)');
    });

    await step('a URL, in its tool’s card: the whole address as text, no link, its host picked out, Punycode warned', async () => {
      await sendPrompt('url');
      const box = frame.locator('.entry.elicitation[data-mode="url"]');
      await box.waitFor({ timeout: timeoutMs });
      const inCard = await frame.locator('.entry.tool', { hasText: 'Connect to the forge' }).locator('.entry.elicitation.nested').count();
      if (inCard !== 1) throw new Error('the URL question is not inside the card of the tool call that asked');
      const shown = await box.locator('.elicitation-url').textContent();
      if (shown !== 'https://xn--gthub-n4a.com/login/oauth?state=1') throw new Error(`the URL shown is ${JSON.stringify(shown)}`);
      const host = await box.locator('.elicitation-url .elicitation-host').textContent();
      if (host !== 'xn--gthub-n4a.com') throw new Error(`the host picked out is ${JSON.stringify(host)}`);
      if ((await box.locator('a').count()) !== 0) throw new Error('the URL is a link');
      const warning = await box.locator('.elicitation-warning').first().textContent();
      if (!/Punycode/.test(warning ?? '')) throw new Error(`no Punycode warning: ${JSON.stringify(warning)}`);
      await box.screenshot({ path: join(resultsDir, 'elicitation-url.png') });
    });

    // The panel with answered forms and a waiting URL (its host picked out, its warning) in Dark
    // Modern, both High Contrast themes and Light Modern: every text measured (WCAG AA).
    await themeSteps({ page, frame, step, resultsDir, prefix: 'elicitation', log });

    // The status bar is the only sign of a question out of sight (src/conversation/statusBar.ts).
    // Sabotage (statusBar.ts without its waitingOn branch: it said "working"), this printed:
    //   step "out of sight (…) while the URL waits: …" failed after 30.6 s: locator.waitFor: Timeout
    //   30000ms exceeded. … waiting for locator('.statusbar-item').filter({ hasText: 'waiting for you' })
    await step(
      'out of sight (a new file in its place) while the URL waits: the status bar says "waiting for you"; its click brings the question back',
      async () => {
        await runCommand(page, 'File: New Untitled Text File', timeoutMs);
        await page.locator('.tab.active', { hasText: 'Untitled' }).first().waitFor({ timeout: 10_000 });
        const waiting = page.locator('.statusbar-item', { hasText: 'waiting for you' });
        await waiting.first().waitFor({ state: 'visible', timeout: 30_000 });
        await waiting.first().click(); // reins.openPanel
        frame = await findWebviewFrame(page, '.entry.elicitation[data-mode="url"]:not(.answered)', timeoutMs);
        // Back in sight: the panel says it, the status bar no longer does.
        await waiting.first().waitFor({ state: 'detached', timeout: 15_000 });
      },
    );

    await step('the URL declined by keyboard', async () => {
      const box = frame.locator('.entry.elicitation[data-mode="url"]');
      await box.getByRole('button', { name: 'Decline' }).focus();
      await page.keyboard.press('Enter');
      await waitFor('the decline in the record', () => answers(record).length === 3);
      if (answers(record)[2]?.action !== 'decline') throw new Error(`the agent got ${JSON.stringify(answers(record)[2])}`);
    });
  });
}

runStandalone(import.meta.url, 'elicitation-smoke', runElicitationSmoke);
