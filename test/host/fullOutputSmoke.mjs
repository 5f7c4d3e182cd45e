#!/usr/bin/env node
// Full output smoke: a tool card keeps only the end of a long output and offers *Open Full
// Output*; here the button is clicked as a person would, in code-server driven by Chromium. The
// scripted agent prints about 300 KB as a tool's text output (resent whole on each update, as
// many agents do) and runs a terminal whose output is longer than its outputByteLimit. Each card
// shows the end and says how much came before; *Open Full Output* opens an editor holding the
// whole output (its first line at the top, its last after Ctrl+End). Then a question asked
// inside a running tool's card (an elicitation): the card's pill says "Waiting for you", not
// "Running", until it is answered.
// Screenshots: test-results/full-output-card.png (the card, its cut line), full-output-editor.png
// (the editor at the output's end), full-output-asking.png (the card waiting on the question).
//
// Sabotage (the button's handler removed by hand: `return;` first in src/panel/panelRequests.ts's
// `case 'openFullOutput'`), this printed: step "Open Full Output on the text card: an editor with
// the whole output, first line to last" failed after 20.2 s: no editor opened on the card's output
// log (the active tab is "Reins: printer"). Without the pill's `asking` (media/webview/cardModel.ts
// toolPill): step "a question inside a running tool's card: its pill says Waiting for you until
// answered" failed after 20.9 s: the pill says "Running" while the question waits.
//
// Standalone: `node test/host/fullOutputSmoke.mjs` (needs dist/ built); run.mjs calls runFullOutputSmoke().
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findWebviewFrame, openPanelSteps, runCommand, runStandalone, scriptedAgentEntry, stepper, workbenchUrl, typePrompt } from './codeServer.mjs';
import { inSmokeBrowser } from './smokeBrowser.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(repo, 'test-results');
const log = (m) => console.log(`[full-output-smoke] ${m}`);
const step = stepper(log);

/** What a card holds of a text output (src/shared/toolOutput.ts OUTPUT_TAIL_CHARS). */
const TAIL_CHARS = 16 * 1024;
const LINES = 5000;
const line = (i) => `${i === 1 ? 'FIRST' : i === LINES ? 'LAST' : 'out'} line ${i} ${'.'.repeat(40)}`;
/** About 300 KB, sent as three updates each carrying the whole output so far. */
const chunks = [1, 2, 3].map((k) => Array.from({ length: (LINES * k) / 3 }, (_, i) => line(i + 1) + '\n').join(''));
const whole = chunks[2];
const TERMINAL_LINES = 40_000;
/** The terminal prints about 600 KB; the agent asked for 64 KB. */
const TERMINAL = `awk 'BEGIN { for (i = 1; i <= ${TERMINAL_LINES}; i++) print "term line " i }'`;

/** "283.6 KB", as the card says it (sizeLabel in src/shared/toolOutput.ts). */
const sizeLabel = (n) => (n < 1000 ? `${n} characters` : n < 1_000_000 ? `${(n / 1000).toFixed(1)} KB` : `${(n / 1_000_000).toFixed(1)} MB`);

function scenario() {
  const text = (t) => [{ type: 'content', content: { type: 'text', text: t } }];
  return {
    name: 'full-output-smoke',
    prompts: [
      {
        steps: [
          { tool: { id: 'call-log', title: 'Print the build log', kind: 'execute', status: 'in_progress' } },
          ...chunks.map((c) => ({ update: { sessionUpdate: 'tool_call_update', toolCallId: 'call-log', content: text(c) } })),
          { toolUpdate: { id: 'call-log', status: 'completed' } },
          { tool: { id: 'call-term', title: 'Run the long command', kind: 'execute', status: 'in_progress' } },
          { terminal: { create: { command: 'sh', args: ['-c', TERMINAL], outputByteLimit: 65_536 }, as: 'long', toolCallId: 'call-term' } },
          { terminal: { waitForExit: 'long' } },
          { toolUpdate: { id: 'call-term', status: 'completed' } },
          { text: 'Printed.' },
        ],
      },
      {
        steps: [
          { tool: { id: 'call-ask', title: 'Deploy', kind: 'other', status: 'in_progress' } },
          {
            elicit: {
              params: {
                sessionId: '${sessionId}',
                toolCallId: 'call-ask',
                mode: 'form',
                message: 'Which environment?',
                requestedSchema: { type: 'object', properties: { env: { type: 'string' } } },
              },
            },
          },
          { sleepMs: 1500 },
          { toolUpdate: { id: 'call-ask', status: 'completed' } },
          { text: 'Deployed.' },
        ],
      },
    ],
  };
}

async function waitFor(what, ok, timeoutMs = 20_000) {
  let last;
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) if ((last = await ok())) return last;
  throw new Error(typeof what === 'function' ? await what() : `timed out waiting for ${what}`);
}

/** The active editor tab's label. */
const activeTab = (page) =>
  page
    .locator('.editor-group-container.active .tab.active .label-name')
    .first()
    .textContent()
    .catch(() => '');

/** The lines the active editor shows (Monaco draws spaces as no-break spaces). */
const shownLines = async (page) =>
  (await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');

/** Clicks the card's Open Full Output; the editor that opens on `file` holds `first` at its top and `last` after Ctrl+End. */
async function openAndRead(page, card, file, first, last, shot) {
  await card.locator('.tool-full-output').click();
  await waitFor(
    async () => `no editor opened on the card's output log (the active tab is ${JSON.stringify(await activeTab(page))})`,
    async () => file.test((await activeTab(page)) ?? ''),
  );
  await waitFor(
    async () => `the editor's top is not the output's first line: ${JSON.stringify((await shownLines(page)).slice(0, 200))}`,
    async () => (await shownLines(page)).split('\n')[0].startsWith(first),
  );
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click(); // the keyboard in the editor
  await page.keyboard.press('Control+End');
  await waitFor(
    async () => `the editor's end is not the output's last line: ${JSON.stringify((await shownLines(page)).slice(-200))}`,
    async () => (await shownLines(page)).includes(last),
  );
  if (shot) await page.screenshot({ path: join(resultsDir, shot) });
  // Back to the panel, as a person would (the log stays open in its tab).
  await runCommand(page, 'Reins: Open Agent Panel');
}

export async function runFullOutputSmoke({ server, extensionDevelopmentPath = repo, timeoutMs = 120_000 } = {}) {
  mkdirSync(resultsDir, { recursive: true });
  const workspace = mkdtempSync(join(tmpdir(), 'reins-full-output-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), workspace, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'reins-full-output-'));
  writeFileSync(join(scratch, 'scenario.json'), JSON.stringify(scenario()));
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({
      'reins.agents': {
        printer: scriptedAgentEntry(extensionDevelopmentPath, { scenarioFile: join(scratch, 'scenario.json'), record: join(scratch, 'record.jsonl') }),
      },
      'reins.defaultAgent': 'printer',
      'reins.openIn': 'editor',
    }),
  );
  await inSmokeBrowser({ name: 'full-output', server, folder: workspace, remove: [scratch, workspace] }, async (page, server) => {
    let frame;
    const sendPrompt = (text) => typePrompt(page, frame, text);
    const logCard = () => frame.locator('.entry.tool', { hasText: 'Print the build log' });
    const termCard = () => frame.locator('.entry.tool', { hasText: 'Run the long command' });
    frame = await openPanelSteps(step, page, workbenchUrl(server, { folder: workspace, extensionDevelopmentPath }), timeoutMs);

    await step('the text card shows the output’s end and says how much came before', async () => {
      await sendPrompt('print');
      await frame.locator('#stop').waitFor({ state: 'hidden', timeout: timeoutMs });
      await frame.locator('.entry.agent', { hasText: 'Printed.' }).waitFor({ timeout: timeoutMs });
      const card = logCard();
      await card.locator('.tool-row').click(); // the output is folded under the card's row
      const shown = await card.locator('.tool-detail').textContent();
      if (!shown.trimEnd().endsWith(line(LINES))) throw new Error(`the card does not end with the output's last line: ${JSON.stringify(shown.slice(-120))}`);
      if (shown.includes('FIRST') || shown.length > TAIL_CHARS) throw new Error(`the card holds ${shown.length} characters, from the output's start`);
      const cut = await card.locator('.tool-output-cut').textContent();
      const want = `… ${sizeLabel(whole.length - TAIL_CHARS)} before this`;
      if (!cut.includes(want)) throw new Error(`the card says ${JSON.stringify(cut)}, not ${JSON.stringify(want)}`);
      await card.screenshot({ path: join(resultsDir, 'full-output-card.png') });
    });

    await step('the terminal card shows its end and says earlier output was left out', async () => {
      const card = termCard();
      const shown = await card.locator('.tool-terminal').textContent();
      if (!shown.trimEnd().endsWith(`term line ${TERMINAL_LINES}`))
        throw new Error(`the terminal does not end with its last line: ${JSON.stringify(shown.slice(-80))}`);
      if (/^term line 1$/m.test(shown)) throw new Error('the terminal card holds the output from its first line');
      const cut = await card.locator('.tool-output-cut').textContent();
      if (!cut.includes('earlier output')) throw new Error(`the terminal card says ${JSON.stringify(cut)}`);
    });

    await step('Open Full Output on the text card: an editor with the whole output, first line to last', () =>
      openAndRead(page, logCard(), /^card-\d+(\.log)?$/, 'FIRST line 1 ', line(LINES), 'full-output-editor.png'),
    );

    await step('Open Full Output on the terminal card: the terminal’s whole output, past its byte limit', async () => {
      frame = await findWebviewFrame(page, '#prompt-input', timeoutMs);
      await openAndRead(page, termCard(), /^terminal-\d+(\.log)?$/, 'term line 1', `term line ${TERMINAL_LINES}`);
    });

    await step('a question inside a running tool’s card: its pill says Waiting for you until answered', async () => {
      frame = await findWebviewFrame(page, '#prompt-input', timeoutMs);
      await sendPrompt('deploy');
      const card = frame.locator('.entry.tool', { hasText: 'Deploy' });
      await card.locator('.entry.elicitation.nested').waitFor({ timeout: timeoutMs });
      const pill = card.locator('.tool-row .pill-text');
      await waitFor(
        async () => `the pill says ${JSON.stringify(await pill.textContent())} while the question waits`,
        async () => (await pill.textContent()) === 'Waiting for you',
      );
      await card.screenshot({ path: join(resultsDir, 'full-output-asking.png') });
      await card.getByRole('button', { name: 'Decline' }).click();
      await waitFor(
        async () => `the pill says ${JSON.stringify(await pill.textContent())} after the answer`,
        async () => (await pill.textContent()) !== 'Waiting for you',
      );
      await frame.locator('#stop').waitFor({ state: 'hidden', timeout: timeoutMs });
    });
  });
}

runStandalone(import.meta.url, 'full-output-smoke', runFullOutputSmoke);
