#!/usr/bin/env node
// Scroll smoke (issue 10): follow-to-bottom (media/webview/scroll.ts) over a long transcript in
// the real panel, where entries out of sight are not rendered (content-visibility, their height
// an estimate until first shown: media/styles/transcript.css). A scripted agent plays a few
// hundred turns; the panel must follow the end while they come, open at the end when it is
// opened again (its newest page; media/webview/pageWindow.ts), bring every older page in as the
// reader goes to the top, keep the user's place while an answer streams
// below it (with "Scroll to latest" offered), follow again from that button, and follow again
// once the user scrolls back down to the end; a snapshot drawn before highlight.js arrived gets its
// code blocks highlighted; a replay's late snapshot (keepPlace) leaves the reader at their place,
// not near the end (injected into the panel). Its closed groups are readied in idle time
// (media/webview/groupWarmer.ts): what fits the panel is no sideways scroller, a line too wide
// keeps one, and a narrower panel gives one back to what no longer fits. Select all takes in the
// text of groups out of sight.
//
// Passed standalone on 2026-12-02 (about 30 s after the workbench). Sabotage (scroll.ts's old rule,
// `following = atBottom()` on every scroll event), this printed:
//   step "400 turns play in; the panel follows the end" failed after 2.6 s: after the long turn:
//   117386 px from the end, jump button shown (… the last scroll events, top/height: 560/1650 jump)
// (with content-visibility on each entry instead of on groups, the rule `following = atBottom()` only
// on a scroll up failed the same step: "24919/26176, 24726/26253 jump", the browser's scroll
// anchoring moving the view up while entries below it grew).
//
// Scroll anchoring is off while the panel follows the end and on for a reader who scrolled up
// (scroll.ts, session 9). Sabotage (the `.scroller.following` rule removed), this printed:
//   step ""Scroll to latest" follows the end again until the answer ends" failed after 2.1 s:
//   scroll anchoring is auto while following: every frame of a streaming answer looks for an anchor …
//
// Standalone: `node test/host/scrollSmoke.mjs` (needs dist/ built); run.mjs calls runScrollSmoke().
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findWebviewFrame, openPanelSteps, runCommand, runStandalone, stepper, workbenchUrl } from './codeServer.mjs';
import { inSmokeBrowser } from './smokeBrowser.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(repo, 'test-results');
const log = (m) => console.log(`[scroll-smoke] ${m}`);
const step = stepper(log);
const TURNS = 400;
/** scroll.ts's SLACK_PX: this near the end counts as at the end. */
const SLACK_PX = 24;

/** One turn as an agent replays it: the question, an answer with a code block, a tool card every other turn. */
function turn(i) {
  const steps = [
    { update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `Question ${i}: what does part ${i} do?` } } },
    {
      text: `Answer ${i}: part ${i} splits a line into slices.\n\n\`\`\`ts\nexport function part${i}(line: string): string[] {\n  return line.match(/.{1,${40 + (i % 40)}}/g) ?? [];\n}\n\`\`\`\n`,
      chunk: 1_000_000,
    },
  ];
  if (i % 2 === 0) steps.push({ tool: { id: `read-${i}`, title: `Read src/part${i}.ts`, kind: 'read', status: 'completed' } });
  if (i === 5) steps.push({ text: `A line wider than any panel:\n\n\`\`\`ts\nconst ${WIDE_LINE} = '${'x'.repeat(400)}';\n\`\`\`\n`, chunk: 1_000_000 });
  if (i === 9) steps.push({ text: `A line that fits a wide panel only:\n\n\`\`\`ts\nconst ${MEDIUM_LINE} = '${'y'.repeat(50)}';\n\`\`\`\n`, chunk: 1_000_000 });
  return steps;
}
/** Markers of the two code blocks whose scrollers the smoke checks (groupWarmer.ts). */
const WIDE_LINE = 'wideLine';
const MEDIUM_LINE = 'mediumLine';

/** The code block holding `marker`, and every answer's body: plain boxes (`fits`) or sideways scrollers. */
const scrollers = (frame) =>
  frame.evaluate(
    ([wide, medium]) => {
      const info = (marker) => {
        const pre = [...document.querySelectorAll('#transcript .code-block pre')].find((p) => p.textContent.includes(marker));
        return (
          pre && {
            fits: pre.classList.contains('fits'),
            overflowX: window.getComputedStyle(pre).overflowX,
            wider: pre.scrollWidth > pre.clientWidth,
            width: pre.clientWidth,
          }
        );
      };
      return { wide: info(wide), medium: info(medium), plainBodies: document.querySelectorAll('#transcript .markdown-body.fits').length };
    },
    [WIDE_LINE, MEDIUM_LINE],
  );
const SLOW = Array.from({ length: 120 }, (_, i) => `Slow line ${i}.\n\n`).join('');

function scenario() {
  return {
    name: 'long-scroll',
    prompts: [
      { steps: Array.from({ length: TURNS }, (_, i) => turn(i)).flat() },
      // An answer that grows for about 10 s: the user scrolls up while it streams.
      { steps: [{ text: SLOW, chunk: 16, intervalMs: 40 }] },
    ],
  };
}

/** Where the scroller stands: its distance from the end, and whether "Scroll to latest" shows. */
const position = (frame) =>
  frame.evaluate(() => {
    const s = document.querySelector('main.scroller');
    // anchor: the browser's scroll anchoring, off while following (scroll.ts), on for a reader.
    return {
      top: s.scrollTop,
      fromEnd: s.scrollHeight - s.scrollTop - s.clientHeight,
      jump: !document.querySelector('.jump-to-latest').hidden,
      anchor: window.getComputedStyle(s).overflowAnchor,
    };
  });

/** At the end with the jump button hidden, over `frames` animation frames in a row (entries first laid out move the end). */
async function atEndFor(frame, frames, what) {
  const seen = await frame.evaluate(
    (n) =>
      new Promise((done) => {
        const s = document.querySelector('main.scroller');
        const out = [];
        const tick = () => {
          out.push({ fromEnd: s.scrollHeight - s.scrollTop - s.clientHeight, jump: !document.querySelector('.jump-to-latest').hidden });
          if (out.length >= n) done(out);
          else window.requestAnimationFrame(tick);
        };
        window.requestAnimationFrame(tick);
      }),
    frames,
  );
  const bad = seen.find((p) => p.fromEnd > SLACK_PX || p.jump);
  if (bad) {
    const scrolls = await frame.evaluate(() => window.__scrolls ?? []);
    throw new Error(
      `${what}: ${bad.fromEnd.toFixed(0)} px from the end, jump button ${bad.jump ? 'shown' : 'hidden'} (frames: ${JSON.stringify(seen.slice(-3))}; the last scroll events, top/height: ${scrolls.join(', ')})`,
    );
  }
}

async function waitTurnEnd(frame, timeoutMs) {
  await frame.locator('#stop').waitFor({ state: 'hidden', timeout: timeoutMs });
}

/** `server` (from startCodeServer) is reused if given; otherwise one is started and stopped. */
export async function runScrollSmoke({ server, extensionDevelopmentPath = repo, timeoutMs = 120_000 } = {}) {
  mkdirSync(resultsDir, { recursive: true });
  rmSync(join(resultsDir, 'scroll-failure.png'), { force: true });
  const workspace = mkdtempSync(join(tmpdir(), 'reins-scroll-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), workspace, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'reins-scroll-'));
  writeFileSync(join(scratch, 'scenario.json'), JSON.stringify(scenario()));
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({
      'reins.agents': {
        long: { command: process.execPath, args: [join(extensionDevelopmentPath, 'dist', 'scripted-agent.js'), '--scenario', join(scratch, 'scenario.json')] },
      },
      'reins.defaultAgent': 'long',
      'reins.openIn': 'editor',
    }),
  );
  await inSmokeBrowser({ name: 'scroll', server, folder: workspace, remove: [scratch, workspace] }, async (page, server) => {
    let frame;
    frame = await openPanelSteps(step, page, workbenchUrl(server, { folder: workspace, extensionDevelopmentPath }), timeoutMs);

    // The scroll events' story, printed when a step fails: where each left the view.
    const recordScrolls = () =>
      frame.evaluate(() => {
        const s = document.querySelector('main.scroller');
        const seen = (window.__scrolls = []);
        s.addEventListener('scroll', () => {
          seen.push(`${Math.round(s.scrollTop)}/${s.scrollHeight}${document.querySelector('.jump-to-latest').hidden ? '' : ' jump'}`);
          if (seen.length > 30) seen.shift();
        });
      });
    await recordScrolls();
    let entries = 0;
    await step(`${TURNS} turns play in; the panel follows the end`, async () => {
      const input = frame.locator('#prompt-input');
      await input.click();
      await input.pressSequentially('long', { delay: 10 });
      await input.press('Enter');
      await frame.locator('.entry.agent', { hasText: `Answer ${TURNS - 1}:` }).waitFor({ timeout: timeoutMs });
      await waitTurnEnd(frame, timeoutMs);
      entries = await frame.locator('#transcript .entry-group > .entry').count();
      const style = await frame.evaluate(() => window.getComputedStyle(document.querySelector('#transcript .entry-group')).contentVisibility);
      log(`${entries} entries; the first group's content-visibility: ${style}`);
      await atEndFor(frame, 30, 'after the long turn');
    });

    await step('closed and opened again: the panel opens at the end of the long conversation', async () => {
      await runCommand(page, 'View: Close All Editors', timeoutMs);
      await page.waitForTimeout(1_000);
      await runCommand(page, 'Reins: Open Agent Panel', timeoutMs);
      frame = await findWebviewFrame(page, '#prompt-input', timeoutMs);
      await recordScrolls();
      await frame.locator('.entry.agent', { hasText: `Answer ${TURNS - 1}:` }).waitFor({ timeout: timeoutMs });
      await atEndFor(frame, 60, 'after opening');
      // The snapshot is drawn before highlight.js, the webview's second bundle, arrives after the
      // first paint: its code blocks are drawn plain, then highlighted (media/webview/highlight.ts).
      // Sabotage (highlight.ts without highlightDrawn() once the bundle came), this printed:
      //   step "closed and opened again: …" failed after 3.7 s: the newest answer's code block is
      //   not highlighted: <code class="language-ts">export function part399(line: string): …
      const newest = `(() => { const all = document.querySelectorAll('#transcript .entry.agent .code-block pre code'); return all[all.length - 1]; })()`;
      const highlighted = await frame
        .waitForFunction(`${newest}?.classList.contains('hljs')`, null, { timeout: 10_000 })
        .then(() => true)
        .catch(() => false);
      if (!highlighted) throw new Error(`the newest answer's code block is not highlighted: ${await frame.evaluate(`${newest}?.outerHTML.slice(0, 120)`)}`);
    });

    // The steps below want the whole conversation in the panel: a reader at the top holds it.
    await step('scrolled to the top: the older pages come until the panel holds every entry', async () => {
      const held = () => frame.evaluate(() => document.querySelectorAll('#transcript .entry-group > .entry').length);
      const first = await held();
      const deadline = Date.now() + timeoutMs;
      let n = first;
      while (n < entries) {
        if (Date.now() > deadline) throw new Error(`${n} of ${entries} entries held ${timeoutMs / 1000} s after going to the top`);
        await frame.evaluate(() => (document.querySelector('main.scroller').scrollTop = 0));
        await page.waitForTimeout(100);
        n = await held();
      }
      log(`opened holding ${first} of ${entries} entries; all of them at the top`);
    });

    // Sabotage (2 December), transcript.ts without rewarm() on a change of width, this printed:
    //   step "closed groups readied in idle time: …" failed after 30.3 s: narrowed, the code block
    //   that fit before does not scroll: {"wide":{…},"medium":{"fits":true,"overflowX":"visible",
    //   "wider":true,"width":188},"plainBodies":399}
    await step(
      'closed groups readied in idle time: answers and short code made plain boxes, a line wider than the panel keeps its scroller; narrowed, a line that no longer fits scrolls again',
      async () => {
        const waitFor = async (what, ok) => {
          let last;
          for (const deadline = Date.now() + 30_000; Date.now() < deadline; await page.waitForTimeout(250))
            if (ok((last = await scrollers(frame)))) return last;
          throw new Error(`${what}: ${JSON.stringify(last)}`);
        };
        const wideFits = await waitFor('the short code block never became a plain box', (s) => s.medium?.fits);
        const { wide, medium, plainBodies } = wideFits;
        if (wide.fits || wide.overflowX !== 'auto' || !wide.wider) throw new Error(`the 400-character line lost its scroller: ${JSON.stringify(wide)}`);
        if (medium.overflowX !== 'visible' || medium.wider) throw new Error(`the short code block: ${JSON.stringify(medium)}`);
        if (plainBodies < 100) throw new Error(`only ${plainBodies} answers' bodies are plain boxes`);
        log(`wide panel: ${JSON.stringify(wideFits)}`);
        await page.setViewportSize({ width: 700, height: 900 });
        const narrow = await waitFor(
          'narrowed, the code block that fit before does not scroll',
          (s) => !s.medium?.fits && s.medium?.overflowX === 'auto' && s.medium?.wider && s.plainBodies >= 100,
        );
        log(`narrow panel: ${JSON.stringify(narrow)}`);
        await page.setViewportSize({ width: 1400, height: 900 });
        await waitFor('wide again, the code block is a plain box again', (s) => s.medium?.fits);
      },
    );

    // Sabotage (2 December: the groups out of sight `content-visibility: hidden`, as windowing would
    // leave them out), this printed: step "select all and copy: …" failed after 0.0 s: answers 0,
    // 1, 200 are not in the selection (181 characters).
    await step('select all and copy: the text of groups out of sight is in the selection (the copy command of the webview)', async () => {
      const copied = await frame.evaluate(() => {
        const selection = window.getSelection();
        selection.selectAllChildren(document.querySelector('#transcript'));
        const text = selection.toString();
        selection.removeAllRanges();
        return text;
      });
      const missing = [0, 1, 200, 399].filter((i) => !copied.includes(`Answer ${i}: part ${i} splits`));
      if (missing.length) throw new Error(`answers ${missing.join(', ')} are not in the selection (${copied.length} characters)`);
      log(`selected: ${copied.length} characters`);
    });

    await step('scrolled up by the wheel while an answer streams: the place is kept, "Scroll to latest" offered', async () => {
      const input = frame.locator('#prompt-input');
      await input.click();
      await input.pressSequentially('slow', { delay: 10 });
      await input.press('Enter');
      await frame.locator('.entry.agent', { hasText: 'Slow line 3.' }).waitFor({ timeout: timeoutMs });
      await frame.locator('#transcript').hover();
      for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -400);
      await page.waitForTimeout(500);
      const before = await position(frame);
      await page.waitForTimeout(2_000); // the answer grows meanwhile
      const after = await position(frame);
      log(`scrolled up: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
      if (!before.jump || !after.jump) throw new Error(`"Scroll to latest" not offered (${JSON.stringify({ before, after })})`);
      if (Math.abs(after.top - before.top) > 2) throw new Error(`the place moved from ${before.top} to ${after.top} while the answer streamed`);
      if (after.fromEnd <= before.fromEnd) throw new Error(`the answer did not grow below the reader (${before.fromEnd} → ${after.fromEnd} px from the end)`);
      if (after.anchor !== 'auto')
        throw new Error(`scroll anchoring is ${after.anchor} for a reader who scrolled up: entries above laid out anew would move their place`);
    });

    await step('"Scroll to latest" follows the end again until the answer ends', async () => {
      await frame.locator('.jump-to-latest').click();
      await waitTurnEnd(frame, timeoutMs);
      await frame.locator('.entry.agent', { hasText: 'Slow line 119.' }).waitFor({ timeout: 10_000 });
      await atEndFor(frame, 30, 'after the streamed answer');
      const { anchor } = await position(frame);
      if (anchor !== 'none')
        throw new Error(`scroll anchoring is ${anchor} while following: every frame of a streaming answer looks for an anchor it does not need`);
    });

    await step('to the top of the conversation and back down to its end by the wheel: following again', async () => {
      await frame.evaluate(() => {
        document.querySelector('main.scroller').scrollTop = 0;
      });
      await page.waitForTimeout(300);
      if (!(await position(frame)).jump) throw new Error('"Scroll to latest" not offered at the top');
      await frame.locator('#transcript').hover();
      // Entries laid out for the first time on the way down change the end: wheel until it is reached.
      for (let i = 0; i < 60 && (await position(frame)).fromEnd > 0; i++) await page.mouse.wheel(0, 20_000);
      await page.waitForTimeout(500);
      await atEndFor(frame, 30, 'back at the end');
    });

    // Last: the panel is left holding made-up entries. The race of a reload with an agent that
    // loads: the first snapshot settles at a place its page cannot show, the older pages asked
    // for go unanswered (the replay cleared the transcript they were asked of), and the replay's
    // snapshot (keepPlace) comes while the place is still on its way. Sabotage (scrollPlace.ts
    // keptPlace() giving the place on its way whole, with its fraction, and followRule.ts taking a
    // replay's end as carried: the code before the fix), this printed:
    //   step "a replay's snapshot (keepPlace) while the place is still on its way: …" failed after
    //   1.3 s: left 76 px from the end of 7591, want 1500
    await step("a replay's snapshot (keepPlace) while the place is still on its way: the reader is left at that place", async () => {
      const FROM_END = 1500;
      const place = await frame.evaluate(async (fromEnd) => {
        const status = {
          agentName: 'long',
          demo: false,
          folderName: 'ws',
          agent: 'ready',
          turn: 'idle',
          canSend: true,
          canStop: false,
          queued: [],
          canSteer: false,
          permissionPending: false,
          whenBusy: 'ask',
        };
        const agent = (id, lines) => ({ kind: 'agent', id, markdown: Array.from({ length: lines }, (_, i) => `Kept line ${i} of ${id}.`).join('\n\n') });
        const frames = (n) =>
          new Promise((done) => {
            const tick = () => (--n <= 0 ? done() : window.requestAnimationFrame(tick));
            window.requestAnimationFrame(tick);
          });
        const s = document.querySelector('main.scroller');
        const postIn = (data) => window.dispatchEvent(new MessageEvent('message', { data }));
        // A place of a long document (its fraction near its end) that a page of one short answer cannot show; its older pages never come.
        postIn({
          type: 'snapshot',
          status,
          entries: [agent('kept-short', 1)],
          earlier: 500,
          carried: { draft: '', scroll: { top: 150_000, following: false, fraction: 0.99, fromEnd } },
        });
        await frames(20);
        const before = s.scrollHeight - s.clientHeight;
        postIn({ type: 'snapshot', status, entries: Array.from({ length: 60 }, (_, i) => agent(`kept-${i}`, 8)), earlier: 40, keepPlace: true });
        await frames(60);
        const max = s.scrollHeight - s.clientHeight;
        return { before, max, fromEnd: max - s.scrollTop };
      }, FROM_END);
      log(`the late snapshot: ${JSON.stringify(place)}`);
      if (place.before >= FROM_END) throw new Error(`the first page reaches the place (${place.before} px): nothing was on its way`);
      if (Math.abs(place.fromEnd - FROM_END) > 200) throw new Error(`left ${place.fromEnd.toFixed(0)} px from the end of ${place.max}, want ${FROM_END}`);
    });
  });
}

runStandalone(import.meta.url, 'scroll-smoke', runScrollSmoke);
