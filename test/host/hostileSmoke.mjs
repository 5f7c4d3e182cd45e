#!/usr/bin/env node
// Hostile smoke (issue 12): the corpus of hostile agent output (test/fixtures/hostile/corpus.mjs)
// played by the scripted agent into the real panel in code-server, as a turn: each payload as
// agent text (followed by a line "AFTER-i"), as a tool card's title and content, as the path and
// each side of its diffs, some in a thought, the plan, a permission request's title and options,
// and the turn's error; the agent configured under a hostile name (the `reins.agents` key) and
// reporting a hostile `agentInfo` (test/fixtures/hostile/placements.mjs). Then, in
// the real webview: nothing executed (no `window.__reinsPwned` in any frame, no request to the
// local server every payload aims at), no CSP violation (a `securitypolicyviolation` listener in
// the webview, and the console), no active element in the transcript, only web and mail links,
// misleading links show their target, and the text after every payload is shown; the name is
// text wherever it is shown (header, empty state, status line, input box, the workbench's status
// bar; test/host/hostileProbes.mjs), and so is every diff. The probes
// are checked once on purpose at the end (a blocked image must be reported, a marker found).
//
// Standalone: `node test/host/hostileSmoke.mjs` (needs dist/ built); run.mjs calls it.
// Screenshots: test-results/hostile-*.png.
import { createServer } from 'node:http';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostilePayloads } from '../fixtures/hostile/corpus.mjs';
import { hostileAgentName, NAME_TOKEN, scenarioFor } from '../fixtures/hostile/placements.mjs';
import { checkAgentName, checkDiffs, checkStatusBar } from './hostileProbes.mjs';
import { launchBrowser, openPanelSteps, runStandalone, scriptedAgentEntry, startCodeServer, stepper, workbenchUrl } from './codeServer.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(repo, 'test-results');
const log = (m) => console.log(`[hostile-smoke] ${m}`);
const step = stepper(log);
/**
 * Elements that agent text must never create in the transcript (Reins' own cards use none of
 * them; its tool cards are <details>, so a payload's ontoggle is caught by the on* check).
 */
const ACTIVE = 'script, iframe, frame, object, embed, img, svg, math, style, link, meta, base, form, input, video, audio, source, template, noscript';

/** A local server that counts every request: a payload that loads or runs anything hits it. */
async function hitServer() {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(204, { 'access-control-allow-origin': '*' });
    res.end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return { hits, url: (tag) => `http://127.0.0.1:${port}/hit/${encodeURIComponent(tag)}`, close: () => server.close() };
}

/** `window.__reinsPwned` in every frame of the page (the workbench, the webview host, the panel). */
async function markers(page) {
  const found = [];
  for (const frame of page.frames()) {
    const value = await frame.evaluate(() => window.__reinsPwned).catch(() => undefined);
    if (value !== undefined) found.push(`${frame.url().slice(0, 80)}: ${value}`);
  }
  return found;
}

async function typeAndSend(frame, text, timeoutMs) {
  const input = frame.locator('#prompt-input');
  await frame.waitForFunction(() => !document.querySelector('#prompt-input')?.readOnly, null, { timeout: timeoutMs });
  await input.click();
  await input.pressSequentially(text, { delay: 10 });
  await input.press('Enter');
}

/** `server` (from startCodeServer) is reused if given; otherwise one is started and stopped. */
export async function runHostileSmoke({ server, extensionDevelopmentPath = repo, timeoutMs = 90_000 } = {}) {
  mkdirSync(resultsDir, { recursive: true });
  for (const f of ['hostile-name.png', 'hostile-answer.png', 'hostile-links.png', 'hostile-end.png', 'hostile-failure.png'])
    rmSync(join(resultsDir, f), { force: true });
  const hits = await hitServer();
  const payloads = hostilePayloads(hits.url);
  const workspace = mkdtempSync(join(tmpdir(), 'reins-hostile-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), workspace, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'reins-hostile-'));
  writeFileSync(join(scratch, 'scenario.json'), JSON.stringify(scenarioFor(payloads, hits.url)));
  const agentName = hostileAgentName(hits.url);
  // Workspace settings: `reins.agents` is machine-overridable, so a folder may set it (in a
  // remote window such as code-server's, the folder's value is read; the User settings' is not).
  // The agent is configured under a hostile name, as a cloned folder's settings could name it.
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({
      'reins.agents': {
        [agentName]: scriptedAgentEntry(extensionDevelopmentPath, { scenarioFile: join(scratch, 'scenario.json') }),
      },
      'reins.defaultAgent': agentName,
      'reins.openIn': 'editor',
    }),
  );
  const ownServer = !server;
  if (ownServer) server = await startCodeServer({ folder: workspace });
  const browser = await launchBrowser();
  const { page } = browser;
  const cspConsole = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to (load|execute|apply|frame|connect)/i.test(m.text())) cspConsole.push(m.text().slice(0, 300));
  });
  let frame;
  try {
    frame = await openPanelSteps(step, page, workbenchUrl(server, { folder: workspace, extensionDevelopmentPath }), timeoutMs);
    await frame.evaluate(() => {
      window.__reinsCsp = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__reinsCsp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    // Checked with the other places of the name after the turn (the empty state keeps its text
    // while hidden), so that one run shows every place that fails.
    await step("the agent's hostile name in the header and the empty state", () =>
      frame.waitForFunction((token) => document.querySelector('.empty-title')?.textContent.includes(token), NAME_TOKEN, { timeout: timeoutMs }),
    );
    await page.screenshot({ path: join(resultsDir, 'hostile-name.png') });
    await step(
      `${payloads.length} hostile payloads as text, tool cards (their diffs too), a thought, the plan; the permission (hostile too) answered`,
      async () => {
        await typeAndSend(frame, 'play the corpus', timeoutMs);
        await frame.locator('.entry.permission button[data-option-id="reject-once"]').first().click({ timeout: timeoutMs });
      },
    );
    await step('the turn ends with the (hostile) error', async () => {
      await frame.locator('.entry.agent', { hasText: 'THE-END-OF-THE-ANSWER' }).first().waitFor({ timeout: timeoutMs });
      await frame.locator('#stop').waitFor({ state: 'hidden', timeout: timeoutMs });
    });
    // Sabotage (2 December: the empty state, the status line and the placeholder with the name as
    // plain textContent, the status bar without escapeIcons and markers), this printed:
    //   step "a second prompt makes the agent exit; …" failed after 0.6 s: empty state: a raw bidi
    //   or zero-width character ("Ask <img src=x onerror=…>$(zap) [run](command:…) \u202EZZ");
    //   empty state: no ⟨RLO⟩ marker (…); empty state: the name is not isolated; status line: a raw
    //   bidi …; input box: a raw bidi …; status bar: the name's $(zap) is drawn as an icon (…);
    //   status bar: "$(zap)" is not shown as text (…); status bar: a raw bidi or zero-width character
    await step(
      "a second prompt makes the agent exit; its hostile name is text, its override a marker, in the header, the empty state, the status line, the input box, the picker's tooltip and the status bar",
      async () => {
        await typeAndSend(frame, 'exit now', timeoutMs);
        await frame.locator('#status .status-text', { hasText: NAME_TOKEN }).waitFor({ state: 'attached', timeout: timeoutMs });
        const problems = await checkAgentName(frame, NAME_TOKEN, [
          ['header', '.agent-name'],
          ['empty state', '.empty-title'],
          ['status line', '#status .status-text'],
          ['input box', '#prompt-input', 'placeholder'],
          ["the picker's tooltip", '#agent-picker', 'title'],
        ]);
        problems.push(...(await checkStatusBar(page, NAME_TOKEN)).map((p) => `status bar: ${p}`));
        if (problems.length) throw new Error(problems.join('; '));
      },
    );
    await page.screenshot({ path: join(resultsDir, 'hostile-end.png') });

    // Sabotage (markdown.ts's markdown-it with html: true, so raw HTML reaches the DOM), the run
    // did not get this far: the panel's document was replaced (the meta refresh / base payloads),
    //   step "54 hostile payloads as text, …" failed after 91.6 s: locator.click: Timeout 90000ms
    //   exceeded … transcript (end): (n/a)
    await step('nothing executed or loaded: no marker in any frame, no request to the local server', async () => {
      await page.waitForTimeout(1000); // a late load (an image, a refresh) would have come by now
      const found = await markers(page);
      if (found.length || hits.hits.length) throw new Error(`markers: ${found.join('; ') || 'none'}; requests: ${hits.hits.join(', ') || 'none'}`);
    });
    await step('no CSP violation (the webview listener, the console)', async () => {
      const violations = await frame.evaluate(() => window.__reinsCsp);
      if (violations.length || cspConsole.length) throw new Error(`listener: ${violations.join('; ') || 'none'}; console: ${cspConsole.join('; ') || 'none'}`);
    });
    await step('no active element or event handler in the transcript; links only web and mail', async () => {
      const bad = await frame.evaluate((active) => {
        const t = document.querySelector('#transcript');
        const out = [...t.querySelectorAll(active)].map((e) => `<${e.tagName.toLowerCase()}>`);
        for (const e of t.querySelectorAll('*'))
          for (const a of e.attributes) if (/^on/i.test(a.name) || a.name === 'srcdoc') out.push(`${e.tagName}[${a.name}]`);
        for (const a of t.querySelectorAll('[href]'))
          if (!/^(https?:|mailto:)/i.test(a.getAttribute('href'))) out.push(`href=${a.getAttribute('href').slice(0, 60)}`);
        return out;
      }, ACTIVE);
      if (bad.length) throw new Error(`found ${bad.slice(0, 20).join(', ')}`);
    });
    // The checks below read the whole transcript as shown (innerText, layout), so every group of
    // entries has its content-visibility lifted first. A group out of sight is not rendered
    // (media/styles/transcript.css): innerText leaves it out and its links have no box. Scrolling
    // each group into view and waiting two frames was not enough on a loaded machine (stop 18's CI;
    // here, under two busy loops, "missing after: 24 (md link mixed-case javascript), …" and "no
    // target shown for: spoofed link text, …"). The scroll smoke checks the skipping itself.
    await frame.evaluate(() => {
      for (const group of document.querySelectorAll('#transcript .entry-group')) group.style.contentVisibility = 'visible';
    });
    await step('the text after every payload is shown', async () => {
      const shown = await frame.locator('#transcript').innerText();
      const missing = payloads.map((p, i) => (shown.includes(`AFTER-${i}`) ? undefined : `${i} (${p.name})`)).filter(Boolean);
      if (missing.length) throw new Error(`missing after: ${missing.join(', ')}`);
      for (const tail of ['level 59', 'deep quote', 'r149c39']) if (!shown.includes(tail)) throw new Error(`"${tail}" is not shown`);
    });
    // Sabotage (2 December): a diff's file link as plain textContent (no markers) printed
    //   step "every payload as a diff's path …" failed after 0.0 s: 2 problems: 46: a raw bidi or
    //   zero-width character in diff 0; 46: a raw bidi or zero-width character in diff 1
    // and a diff's row as innerHTML never got this far: the panel's document was replaced,
    //   step "54 hostile payloads as text, tool cards (their diffs too), …" failed after 90.8 s:
    //   locator.click: Timeout 90000ms exceeded … transcript (end): (n/a)
    await step("every payload as a diff's path and both sides: drawn inline, the text after each shown, no raw bidi character", async () => {
      const problems = await checkDiffs(frame, payloads.length);
      if (problems.length) throw new Error(`${problems.length} problems: ${problems.slice(0, 12).join('; ')}`);
    });
    await step('a link whose text reads as another address shows where it goes', async () => {
      const targets = await frame.locator('.entry.agent .md-link-target').allInnerTexts();
      const missing = payloads.filter((p) => p.spoof && !targets.some((t) => t.includes(p.spoof))).map((p) => p.name);
      if (missing.length) throw new Error(`no target shown for: ${missing.join(', ')} (shown: ${targets.join(' ')})`);
      await frame.locator('.entry.agent .md-link-target').first().scrollIntoViewIfNeeded();
    });
    // Sabotage (markdown.css without unicode-bidi: isolate on links and .md-link-target, and without
    // overflow-x on .markdown-body), this printed:
    //   step "a bidi override in link text …" failed after 0.1 s: A unicode-bidi normal;
    //   md-link-target unicode-bidi normal; the transcript scrolls sideways (1322 > 746)
    // and groupWarmer.ts taking every scroller for one that fits (a plain box) printed:
    //   … failed after 0.0 s: the transcript scrolls sideways (1112 > 746)
    await step('a bidi override in link text cannot reverse the target shown; deep nesting does not widen the transcript', async () => {
      const problems = await frame.evaluate(() => {
        const out = [];
        for (const e of document.querySelectorAll('.entry.agent a[href], .entry.agent .md-link-target')) {
          const style = window.getComputedStyle(e);
          if (style.unicodeBidi !== 'isolate') out.push(`${e.className || e.tagName} unicode-bidi ${style.unicodeBidi}`);
        }
        const scroller = document.querySelector('main.scroller');
        if (scroller.scrollWidth > scroller.clientWidth + 1) out.push(`the transcript scrolls sideways (${scroller.scrollWidth} > ${scroller.clientWidth})`);
        return [...new Set(out)];
      });
      if (problems.length) throw new Error(problems.join('; '));
    });
    await page.screenshot({ path: join(resultsDir, 'hostile-links.png') });
    // Sabotage (dom.ts's setAgentText as plain textContent), this printed:
    //   step "bidi and zero-width characters …" failed …: tool title: no marker (…); plan: no marker; …
    await step('bidi and zero-width characters in a tool title, a location, the plan and the permission answer show as markers, isolated', async () => {
      const problems = await frame.evaluate(() => {
        const out = [];
        const check = (what, selector) => {
          const e = document.querySelector(selector);
          if (!e) return out.push(`${what}: ${selector} not shown`);
          const markers = [...e.querySelectorAll('.invisible-char')].map((m) => m.textContent);
          if (!markers.length) out.push(`${what}: no marker (${JSON.stringify(e.textContent.slice(0, 80))})`);
          if (/[\u202A-\u202E\u2066-\u2069\u200B]/.test(e.textContent)) out.push(`${what}: a control character is still in the text`);
          const holder = e.closest('[dir]');
          if (!holder || window.getComputedStyle(holder).unicodeBidi !== 'isolate') out.push(`${what}: not isolated`);
          return markers;
        };
        check('tool title', '.entry.tool[data-id="hostile-bidi"] .tool-title');
        check('location', '.entry.tool[data-id="hostile-bidi"] .tool-location');
        const plan = [...document.querySelectorAll('.entry.plan .plan-text')].find((e) => e.querySelector('.invisible-char'));
        if (!plan) out.push('plan: no entry shows a marker');
        check('permission answer', '.entry.tool[data-id="hostile-permission"] .permission-answer');
        return out;
      });
      if (problems.length) throw new Error(problems.join('; '));
    });
    // The probes themselves: a blocked load must be reported, a marker must be found.
    await step('the probes work: a blocked image is reported, a marker is found', async () => {
      await frame.evaluate((src) => {
        const img = document.createElement('img');
        img.src = src;
        document.body.append(img);
        window.__reinsPwned = 'probe';
      }, hits.url('probe'));
      await frame.waitForFunction(() => window.__reinsCsp.length > 0, null, { timeout: 10_000 });
      const found = await markers(page);
      if (!found.some((f) => f.endsWith('probe'))) throw new Error(`the marker probe found ${found.join('; ') || 'nothing'}`);
      if (hits.hits.length) throw new Error(`the CSP let the probe image load: ${hits.hits.join(', ')}`);
    });
  } catch (err) {
    await page.screenshot({ path: join(resultsDir, 'hostile-failure.png') }).catch(() => {});
    const transcript = frame
      ? await frame
          .locator('#transcript')
          .innerText()
          .catch(() => '(n/a)')
      : '(no webview)';
    throw new Error(`${err?.message ?? err}\n\ntranscript (end):\n${transcript.slice(-1500)}`);
  } finally {
    await browser.close();
    if (ownServer) await server.stop();
    hits.close();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

runStandalone(import.meta.url, 'hostile-smoke', runHostileSmoke);
