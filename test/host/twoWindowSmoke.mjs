#!/usr/bin/env node
// Two windows on one checkout (issue 13, "One running turn per checkout, across windows"): two
// code-server instances, each with its own user data and so its own extension host, one opened
// on a git checkout's root (window A) and one on its subfolder `sub` (window B), driven through
// their real workbenches in Chromium. They share the user's lock directory
// (os.tmpdir()/reins-<uid>/checkout-locks) as any two windows do; the test reads only the lock of
// its own checkout (a fresh temporary one), so other runs on the machine do not disturb it.
//
// A's turn waits on a permission (it runs until the test answers it, so no timing decides the
// order). B's prompt then asks whether to wait, naming A's agent; the test answers "Wait and
// Send"; B's agent gets nothing until A's turn ends, and gets the prompt after it. Then A starts
// another turn, its extension host is killed (SIGKILL: no deactivate, the lock stays behind),
// and B's next prompt goes straight through: the dead window's lock is taken over.
//
// While B's prompt waits, B shows it: the prompt's text above the input box, the status "Waiting
// for alpha in another window", the Stop button. Stop (the button), Escape and "Reins: Stop Turn"
// each end the wait and give the text back to the input box, and the agent gets nothing. Then,
// over several rounds of A's turns, two prompts waiting in B reach B's agent in the order sent.
//
// Standalone: `node test/host/twoWindowSmoke.mjs` (needs dist/ built; npm run test:two-windows).
// Screenshots in test-results/.
//
// Runs in `npm run test:reliability` (about 100 s on a quiet machine). On 2026-12-02 it passed
// end to end at a load average of about 4; at 20 to 24 three runs never got past opening the
// panels (window A's host answered "command 'reins.openPanel' not found", so openPanel() runs it
// again; the Reins views stayed empty for minutes), so it is not in `npm test`.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { frameIn, launchBrowser, openWorkbench, runCommand, runStandalone, scriptedAgentEntry, startCodeServer, stepper, workbenchUrl } from './codeServer.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(repo, 'test-results');
const log = (m) => console.log(`[two-windows] ${m}`);
const step = stepper(log);
/** Rounds of two waiting prompts: the race they had went the wrong way in 4 runs of 5, so a few rounds catch it. */
const ORDER_ROUNDS = Number(process.env.REINS_TWO_WINDOW_ROUNDS ?? 5);

const entries = (record) =>
  existsSync(record)
    ? readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const prompts = (record) => entries(record).filter((e) => e.dir === 'in' && e.msg?.method === 'session/prompt');
/** The text of a session/prompt the agent got. */
const promptText = (entry) => (entry.msg.params?.prompt ?? []).map((b) => b.text ?? '').join('');
/** The agent's answers to session/prompt (a result with a stopReason). */
const promptAnswers = (record) => entries(record).filter((e) => e.dir === 'out' && e.msg?.result?.stopReason);

/** A turn that runs until its permission is answered; each turn's tool call an id of its own. */
const waitingTurn = (n) => ({
  steps: [
    { tool: { id: `edit-${n}`, title: 'Edit notes.md', kind: 'edit', status: 'pending' } },
    { permission: { toolCallId: `edit-${n}`, title: 'Edit notes.md' } },
    { toolUpdate: { id: `edit-${n}`, status: 'completed' } },
    { text: "Window A's turn is done." },
  ],
});

/** Polls `probe` until it returns a value (a non-empty array, if an array; the deadline only ends a hang, it asserts no time). */
async function until(what, probe, page, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (Array.isArray(value) ? value.length : value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await page.waitForTimeout(250);
  }
}

/**
 * "Reins: Open Agent Panel", again while the extension host has not registered it yet: the
 * palette lists it from the manifest at once, and under load (average 23) one of two hosts
 * answered "command 'reins.openPanel' not found" after the workbench was drawn.
 */
async function openPanel(page, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const notFound = page.locator('.monaco-dialog-box', { hasText: 'not found' });
  for (;;) {
    await runCommand(page, 'Reins: Open Agent Panel', timeoutMs);
    // Wait for the input in the view, or the "not found" dialog (then run the command again).
    for (;;) {
      if (await notFound.isVisible().catch(() => false)) break;
      if (await frameIn(page, '.part.auxiliarybar', '#prompt-input', 1_000).catch(() => undefined)) return;
      if (Date.now() > deadline) throw new Error(`the Reins panel did not open within ${timeoutMs / 1000} s`);
    }
    await notFound.locator('.monaco-button', { hasText: 'OK' }).click();
    await page.waitForTimeout(2_000);
  }
}

export async function runTwoWindowSmoke({ extensionDevelopmentPath = repo, timeoutMs = 240_000 } = {}) {
  mkdirSync(resultsDir, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'reins-two-windows-'));
  // The checkout: the fixture workspace, a subfolder, `git init` (the lock is keyed by the git top level).
  const checkout = join(scratch, 'checkout');
  cpSync(join(repo, 'test/fixtures/workspace'), checkout, { recursive: true });
  const sub = join(checkout, 'sub');
  mkdirSync(sub, { recursive: true });
  writeFileSync(join(sub, 'index.js'), '// the subfolder window B opens\n');
  execFileSync('git', ['init', '-q'], { cwd: checkout });
  // Where both windows keep the checkout locks (checkoutLock.ts: defaultLockDir), and the key of ours.
  const lockDir = join(tmpdir(), `reins-${process.getuid()}`, 'checkout-locks');
  const root = realpathSync(checkout);
  /** This checkout's lock records present now (one file, or none). */
  const locks = () => {
    const dir = existsSync(lockDir) ? lockDir : undefined;
    if (!dir) return [];
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => {
        try {
          return JSON.parse(readFileSync(join(dir, f), 'utf8'));
        } catch {
          return undefined; // written over just now: read again
        }
      })
      .filter((l) => l?.root === root);
  };

  const windows = {};
  for (const [name, folder, agent, scenario] of [
    ['A', checkout, 'alpha', { prompts: Array.from({ length: ORDER_ROUNDS + 2 }, (_, i) => waitingTurn(i + 1)) }],
    ['B', sub, 'beta', { prompts: [{ steps: [{ text: "Window B's answer." }] }] }],
  ]) {
    const record = join(scratch, `${name}.jsonl`);
    const scenarioFile = join(scratch, `${name}.scenario.json`);
    writeFileSync(scenarioFile, JSON.stringify(scenario));
    mkdirSync(join(folder, '.vscode'), { recursive: true });
    writeFileSync(
      join(folder, '.vscode', 'settings.json'),
      JSON.stringify({
        'reins.agents': {
          [agent]: scriptedAgentEntry(extensionDevelopmentPath, { scenarioFile, record }),
        },
        'reins.defaultAgent': agent,
        'reins.openIn': 'sideBar',
      }),
    );
    windows[name] = { name, folder, agent, record };
  }
  const { A, B } = windows;

  const browser = await launchBrowser();
  try {
    await step('two code-servers started (two extension hosts), one lock directory', async () => {
      const [a, b] = await Promise.all([A, B].map((w) => startCodeServer({ folder: w.folder })));
      A.server = a;
      B.server = b;
    });
    A.page = browser.page;
    B.page = await browser.context.newPage();
    await step('both workbenches drawn, their panels open', () =>
      Promise.all(
        [A, B].map(async (w) => {
          await openWorkbench(w.page, workbenchUrl(w.server, { folder: w.folder, extensionDevelopmentPath }));
          await w.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: timeoutMs });
          await openPanel(w.page, timeoutMs);
          w.frame = await frameIn(w.page, '.part.auxiliarybar', '#prompt-input', timeoutMs);
          await w.frame.waitForFunction(() => !document.querySelector('#prompt-input')?.readOnly, null, { timeout: timeoutMs });
        }),
      ),
    );
    const type = async (w, text) => {
      const input = w.frame.locator('#prompt-input');
      await input.click();
      await input.pressSequentially(text, { delay: 5 });
      await input.press('Enter');
    };
    const permission = (w) => w.frame.locator('.entry.tool .entry.permission.nested button[data-option-id]').first();

    await step("window A: a turn that waits on its permission; A's extension host holds the lock", async () => {
      await type(A, 'A: edit the notes');
      await permission(A).waitFor({ timeout: timeoutMs });
      const [held] = await until('the lock file', async () => locks().filter((l) => l.agent === A.agent), A.page, timeoutMs);
      A.hostPid = held.pid;
      log(`lock held by pid ${held.pid} (${held.agent}, ${held.folder})`);
    });

    // Sabotage (folderConversation.ts sending without takeCheckout), this printed, one step earlier:
    //   FAILED: step "window A: a turn that waits on its permission; A's extension host holds the
    //   lock" failed after 244.1 s: timed out after 240 s waiting for the lock file
    const dialog = B.page.locator('.monaco-dialog-box');
    await step("window B (the subfolder): its prompt asks to wait, naming A's agent", async () => {
      await type(B, 'B: hello');
      const text = await until(
        'the question in window B',
        async () => {
          if (prompts(B.record).length) throw new Error(`window B's agent got the prompt while A's turn ran; B's dialog: none`);
          return (await dialog.isVisible().catch(() => false)) && (await dialog.innerText());
        },
        B.page,
        timeoutMs,
      );
      log(`B asked: ${text.replace(/\s+/g, ' ')}`);
      if (!text.includes(A.agent) || !text.includes('another window')) throw new Error(`the question does not name ${A.agent} in another window: ${text}`);
      await B.page.screenshot({ path: join(resultsDir, 'two-windows-b-asks.png') });
      await dialog.locator('.monaco-button', { hasText: 'Wait and Send' }).click();
      await B.frame
        .locator('.entry.notice', { hasText: `Waiting for ${A.agent}` })
        .first()
        .waitFor({ timeout: timeoutMs });
      if (prompts(B.record).length) throw new Error("window B's agent got the prompt while A's turn ran");
    });

    /** What B's panel shows now: the waiting prompts, the status line, the Stop button, the input box. */
    const shownInB = () =>
      B.frame.evaluate(() => ({
        waiting: [...document.querySelectorAll('#checkout-wait:not([hidden]) .queued-text')].map((e) => e.textContent),
        status: document.querySelector('#working:not([hidden])')?.textContent ?? '',
        stop: !!document.querySelector('#stop:not([hidden])'),
        input: document.querySelector('#prompt-input')?.value ?? '',
      }));
    /** B shows `texts` waiting for A, with the status and Stop, and an empty input box. */
    const showsWaiting = async (texts, shot) => {
      const want = JSON.stringify(texts);
      const shown = await until(
        `window B to show ${want} waiting`,
        async () => {
          const now = await shownInB();
          return JSON.stringify(now.waiting) === want && now.stop && now.status.includes(`Waiting for ${A.agent} in another window`) && now;
        },
        B.page,
        30_000,
      ).catch(async (err) => {
        throw new Error(`${err.message}; B shows ${JSON.stringify(await shownInB())}`);
      });
      if (shown.input.trim()) throw new Error(`the input box still holds "${shown.input}" while the prompt waits`);
      if (shot) await B.page.screenshot({ path: join(resultsDir, shot) });
    };
    /** Enter on the text in B's box, "Wait and Send": it waits again. */
    const waitAgain = async (text) => {
      await B.frame.locator('#prompt-input').press('Enter');
      await dialog.locator('.monaco-button', { hasText: 'Wait and Send' }).click({ timeout: timeoutMs });
      await showsWaiting([text]);
    };
    /** The wait ended by `how`: the text back in the box, nothing waiting, no Stop, nothing sent to B's agent. */
    const givenBack = async (how, text, shot) => {
      await until(
        `${how} to give "${text}" back`,
        async () => {
          const now = await shownInB();
          return now.input === text && now.waiting.length === 0 && !now.stop;
        },
        B.page,
        30_000,
      ).catch(async (err) => {
        throw new Error(`${err.message}; B shows ${JSON.stringify(await shownInB())}`);
      });
      if (prompts(B.record).length) throw new Error(`window B's agent got the prompt after ${how} ended the wait`);
      if (shot) await B.page.screenshot({ path: join(resultsDir, shot) });
    };

    // Sabotage (panelStatus.ts: canStop without the line, so no Stop button), this printed:
    //   FAILED: step "window B shows its prompt waiting: its text, the status, Stop" failed after
    //   30.2 s: timed out after 30 s waiting for window B to show ["B: hello"] waiting; B shows
    //   {"waiting":["B: hello"],"status":"Waiting for alpha in another window","stop":false,"input":""}
    await step('window B shows its prompt waiting: its text, the status, Stop', () => showsWaiting(['B: hello'], 'two-windows-b-waiting.png'));

    // Sabotage (FolderConversation.stop not stopping the line), this printed:
    //   FAILED: step "Stop (the button) ends the wait and gives the text back" failed after
    //   30.3 s: timed out after 30 s waiting for the Stop button to give "B: hello" back; B shows
    //   {"waiting":["B: hello"],"status":"Waiting for alpha in another window","stop":true,"input":""}
    await step('Stop (the button) ends the wait and gives the text back', async () => {
      await B.frame.locator('#stop').click();
      await givenBack('the Stop button', 'B: hello', 'two-windows-b-stopped-wait.png');
      if (!(await B.frame.locator('.entry.notice', { hasText: `Stopped waiting for ${A.agent} in another window` }).count()))
        throw new Error('no notice says the wait was stopped');
    });

    await step('Escape ends the wait and gives the text back', async () => {
      await waitAgain('B: hello');
      await B.frame.locator('#prompt-input').press('Escape');
      await givenBack('Escape', 'B: hello');
    });

    // Sabotage (commands.ts: reins.turnActive false while a prompt waits, as before), this printed:
    //   FAILED: step "Reins: Stop Turn (the palette, then Ctrl+Alt+Escape) ends the wait and gives the text back" failed after
    //   30.6 s: command "Reins: Stop Turn" not in the palette
    await step('Reins: Stop Turn (the palette, then Ctrl+Alt+Escape) ends the wait and gives the text back', async () => {
      await waitAgain('B: hello');
      await runCommand(B.page, 'Reins: Stop Turn', 30_000).catch(() => {
        throw new Error('command "Reins: Stop Turn" not in the palette');
      });
      await givenBack('Reins: Stop Turn', 'B: hello');
      await waitAgain('B: hello');
      await B.page.keyboard.press('Control+Alt+Escape');
      await givenBack('Ctrl+Alt+Escape', 'B: hello');
      await waitAgain('B: hello'); // waiting again for the next step: A's turn ends, then it goes
    });

    // Sabotage (checkoutAdmission.ts releasing on the first state change, so at the prompt's start), this
    // printed, at that earlier step: FAILED: step "window A: a turn that waits on its permission; A's
    // extension host holds the lock" failed after 242.0 s: timed out after 240 s waiting for the lock file
    await step("A's turn ends; only then B's prompt goes", async () => {
      if (prompts(B.record).length) throw new Error("window B's agent got the prompt while A's turn ran");
      await permission(A).click();
      const [bPrompt] = await until("B's prompt at its agent", async () => prompts(B.record), B.page, timeoutMs);
      const [aAnswer] = promptAnswers(A.record);
      if (!aAnswer) throw new Error("B's prompt went before A's turn was answered");
      if (!(bPrompt.t > aAnswer.t)) throw new Error(`B's prompt (${bPrompt.t}) went before A's turn ended (${aAnswer.t})`);
      await B.frame.locator('.entry.agent', { hasText: "Window B's answer." }).first().waitFor({ timeout: timeoutMs });
      await until('the lock let go after B settled', async () => locks().length === 0, B.page, timeoutMs);
    });

    // Sabotage (the code before the line: each waiting prompt polling the lock by itself, the second
    // asked again; run with these rounds, the steps about the waiting state left out), this printed:
    //   FAILED: step "round 1 of 8: two prompts waiting in B go in the order sent" failed after 6.1 s:
    //   B's agent got ["B: second of round 1","B: first of round 1"], want [first, second]
    // (an earlier run of 3 rounds passed: the race is one of timing, hence several rounds). With
    // only the line's `going` guard removed it passed: the head also waits for its folder's turn.
    for (let round = 1; round <= ORDER_ROUNDS; round++) {
      await step(`round ${round} of ${ORDER_ROUNDS}: two prompts waiting in B go in the order sent`, async () => {
        const [aBefore, bBefore] = [prompts(A.record).length, prompts(B.record).length];
        await type(A, `A: round ${round}`);
        await permission(A).waitFor({ timeout: timeoutMs });
        await until('the lock held by A', async () => locks().some((l) => l.agent === A.agent), A.page, timeoutMs);
        const [first, second] = [`B: first of round ${round}`, `B: second of round ${round}`];
        await type(B, first);
        await dialog.locator('.monaco-button', { hasText: 'Wait and Send' }).click({ timeout: timeoutMs });
        await showsWaiting([first]);
        // The second joins the line: no question (it was answered for the line), after the first.
        await type(B, second);
        await showsWaiting([first, second], round === 1 ? 'two-windows-b-two-waiting.png' : undefined);
        if (prompts(B.record).length !== bBefore) throw new Error("window B's agent got a prompt while A's turn ran");
        await permission(A).click();
        const got = await until(
          "both of B's prompts at its agent",
          async () => {
            const now = prompts(B.record).slice(bBefore);
            return now.length >= 2 && now;
          },
          B.page,
          timeoutMs,
        );
        const order = got.map(promptText);
        if (JSON.stringify(order) !== JSON.stringify([first, second])) throw new Error(`B's agent got ${JSON.stringify(order)}, want [first, second]`);
        if (prompts(A.record).length !== aBefore + 1) throw new Error(`A's agent got ${prompts(A.record).length - aBefore} prompts this round`);
        await B.frame.locator('.entry.user', { hasText: second }).first().waitFor({ timeout: timeoutMs });
        const refused = await B.frame.locator('.entry.notice', { hasText: 'already running' }).count();
        if (refused) throw new Error('a waiting prompt was refused: "a turn is already running"');
        await until('the lock let go after B settled', async () => locks().length === 0, B.page, timeoutMs);
      });
    }

    // Sabotage (checkoutLock.ts trusting every holder: liveOwner always true), this printed:
    //   FAILED: step "A's extension host killed mid-turn: B takes the dead window's lock over"
    //   failed after 3.8 s: window B asked about a dead window's turn: Cancel Wait and Send alpha …
    await step("A's extension host killed mid-turn: B takes the dead window's lock over", async () => {
      const aBefore = prompts(A.record).length;
      await type(A, 'A: edit the notes again');
      await until("A's next prompt at its agent", async () => prompts(A.record).length === aBefore + 1, A.page, timeoutMs);
      await until('the lock held by A again', async () => locks().some((l) => l.agent === A.agent && l.pid === A.hostPid), A.page, timeoutMs);
      process.kill(A.hostPid, 'SIGKILL');
      await until("A's extension host gone", async () => !existsSync(`/proc/${A.hostPid}`), A.page, timeoutMs);
      const left = locks();
      if (!left.some((l) => l.pid === A.hostPid)) throw new Error(`the dead window's lock is not there to take over: ${JSON.stringify(left)}`);
      const before = prompts(B.record).length;
      await type(B, 'B: after A died');
      await until(
        "B's second prompt at its agent",
        async () => {
          if (await dialog.isVisible().catch(() => false))
            throw new Error(`window B asked about a dead window's turn: ${(await dialog.innerText()).replace(/\s+/g, ' ')}`);
          return prompts(B.record).length > before;
        },
        B.page,
        timeoutMs,
      );
      await B.frame.locator('.entry.agent', { hasText: "Window B's answer." }).nth(1).waitFor({ timeout: timeoutMs });
      await B.page.screenshot({ path: join(resultsDir, 'two-windows-b-after-takeover.png') });
    });
  } catch (err) {
    for (const w of [A, B]) await w.page?.screenshot({ path: join(resultsDir, `two-windows-failure-${w.name}.png`) }).catch(() => {});
    const transcripts = [];
    for (const w of [A, B]) {
      const text = w.frame
        ? await w.frame
            .locator('#transcript')
            .innerText({ timeout: 5_000 })
            .catch(() => '(n/a)')
        : '(no webview)';
      transcripts.push(`window ${w.name}:\n${text.slice(-800)}`);
    }
    throw new Error(`${err?.message ?? err}\n\n${transcripts.join('\n\n')}`);
  } finally {
    await browser.close();
    await Promise.all([A, B].map((w) => w.server?.stop()));
    rmSync(scratch, { recursive: true, force: true });
  }
}

runStandalone(import.meta.url, 'two-windows', runTwoWindowSmoke);
