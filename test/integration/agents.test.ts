// Agents ready to pick, in the real extension host (issue 9): a preset that is not installed
// says how to install it; a preset found on PATH starts with no settings written; a command
// that only the login shell knows is found and the log says where; the picker lists the
// presets with what is installed and the ACP Registry (served from 127.0.0.1), and adds a
// registry agent at its pinned version to the settings VS Code reads in this (remote) window;
// offline it lists the presets and logs one line.
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { events, readRecord } from '../fixtures/scriptedAgent/records';
import { api, extensionPath, logText, resetReins, send, setting } from './support';
import { shown, stubWindow, type Stubbed } from './uiStubs';
import { sleep, waitFor } from '../support/helpers';
import type { NoticeAction } from '../../src/shared/messages';

const scratch = mkdtempSync(path.join(tmpdir(), 'reins-it-agents-'));

/** An executable `name` in `dir` that runs the scripted agent (whatever arguments it gets). */
function fakeAgent(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const record = path.join(scratch, `${name}.jsonl`);
  const scenario = JSON.stringify({ prompts: [{ steps: [{ text: `${name} answers` }] }] });
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `#!/bin/sh\nELECTRON_RUN_AS_NODE=1 exec "${process.execPath}" "${path.join(extensionPath(), 'dist', 'scripted-agent.js')}" --scenario-json '${scenario}' --record "${record}"\n`,
  );
  chmodSync(file, 0o755);
  return record;
}

async function notices(): Promise<{ level: string; text: string; actions: string[]; buttons: NoticeAction[] }[]> {
  const t = (await api()).state()!.transcript;
  return t.flatMap((e) =>
    e.kind === 'notice' ? [{ level: e.level, text: e.text, actions: (e.actions ?? []).map((a) => a.action), buttons: e.actions ?? [] }] : [],
  );
}

/** Closes the conversation's editor tab: the conversation is out of sight (its session goes on). */
async function closeConversationTabs(): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('reins.panel'));
  await vscode.window.tabGroups.close(tabs);
}

const select = (name?: string) => vscode.commands.executeCommand<boolean>('reins.selectAgent', name);
const agentsSetting = () => vscode.workspace.getConfiguration('reins').inspect<Record<string, unknown>>('agents');

function serveFixture(): Promise<{ server: Server; url: string }> {
  const body = readFileSync(path.join(extensionPath(), 'test', 'fixtures', 'registry', 'registry.json'), 'utf8');
  return new Promise((resolve) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/registry/v1/latest/registry.json` }),
    );
  });
}

/** The picker Reins creates, captured as it is made (the real QuickPick, driven by commands). */
function capturePicker(): { ui: Stubbed; picker: () => vscode.QuickPick<vscode.QuickPickItem> | undefined } {
  let captured: vscode.QuickPick<vscode.QuickPickItem> | undefined;
  const ui = stubWindow({
    createQuickPick: (_args, original) => {
      captured = original() as vscode.QuickPick<vscode.QuickPickItem>;
      // A picker closes when focus leaves it, and something in the workbench took the focus during
      // these tests twice in CI (a webview of an earlier test finishing its load is the likely one):
      // the picker hid under the test ("seen": ["hidden"] when a focus move is forced here) and the
      // retry row could not be chosen. What these tests check does not depend on where focus is.
      captured.ignoreFocusOut = true;
      return captured;
    },
    showInformationMessage: () => Promise.resolve(undefined),
    showErrorMessage: () => Promise.resolve(undefined),
    showWarningMessage: () => Promise.resolve(undefined),
  });
  return { ui, picker: () => captured };
}

/** The Machine settings file of this code-server (a remote window reads reins.agents there). */
function machineSettings(logUri: vscode.Uri): string | undefined {
  for (let dir = logUri.fsPath; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'Machine', 'settings.json');
    if (existsSync(file)) return file;
  }
  return undefined;
}

describe('agents ready to pick (issue 9)', function () {
  this.timeout(60_000);
  let ui: Stubbed | undefined;
  const savedEnv = { PATH: process.env.PATH, SHELL: process.env.SHELL };
  afterEach(async () => {
    ui?.restore();
    ui = undefined;
    process.env.PATH = savedEnv.PATH;
    process.env.SHELL = savedEnv.SHELL;
    await setting('registryUrl', undefined);
    await resetReins();
  });

  // Sabotage (prepareLaunch launching a command found nowhere): "The input did not match the
  // regular expression … Input: 'goose could not start: `goose acp` command not found: goose'" —
  // no install hint, no Open Settings.
  // Sabotage (answerRoute notifying while the conversation is in sight, as before): "AssertionError
  // [ERR_ASSERTION]: in sight: said in the conversation, not in a notification + [ [ 'Reins: goose is
  // not installed: …', 'Open Settings', 'Run Install in Terminal', 'Copy Install Command' ] ] - []".
  // Sabotage (never a notification): "Error: timed out after 10000 ms waiting for the notification".
  // (goose is not installed on these machines.)
  it('a preset that is not installed says so in the conversation, with its install command and Open Settings; a notification only out of sight', async () => {
    ui = stubWindow({ showErrorMessage: () => Promise.resolve(undefined) });
    assert.equal(await select('goose'), false);
    assert.equal((await api()).state()!.inSight, true, 'Select Agent shows the conversation');
    const n = (await notices()).find((x) => /^goose (is not installed|could not start)/.test(x.text));
    assert.match(
      n?.text ?? JSON.stringify(await notices()),
      /^goose is not installed: `goose` was not found on the extension host's PATH or through your login shell \(.+\)\. Install it with `curl -fsSL https:\/\/github\.com\/block\/goose\/releases\/download\/stable\/download_cli\.sh \| bash` \(https:\/\/block\.github\.io\/goose\/\), or set its command in reins\.agents\.$/,
    );
    assert.deepEqual(n!.buttons, [
      { action: 'openSettings', label: 'Open Settings' },
      { action: 'installAgent', label: 'Run Install in Terminal', arg: 'goose' },
      { action: 'copyInstall', label: 'Copy Install Command', arg: 'goose' },
    ]);
    assert.deepEqual(shown(ui, 'showErrorMessage', /goose is not installed/), [], 'in sight: said in the conversation, not in a notification');
    const result = await send('hello');
    assert.equal(result.status, 'failed');
    assert.match((result as { error: string }).error, /^goose is not installed/);

    // Out of sight (its tab closed), Restart Agent: the notification says it, with the same buttons.
    await closeConversationTabs();
    await waitFor('the conversation out of sight', async () => !(await api()).state()!.inSight);
    await vscode.commands.executeCommand('reins.restartAgent');
    await waitFor('the notification', () => shown(ui!, 'showErrorMessage', /goose is not installed/).length > 0);
    assert.deepEqual(
      shown(ui, 'showErrorMessage', /goose is not installed/).map((args) => args.slice(1)),
      [['Open Settings', 'Run Install in Terminal', 'Copy Install Command']],
    );
  });

  // Sabotage (resolveAgent looking at reins.agents only): "AssertionError: could not select" —
  // qwen was no agent without an entry.
  it('a preset found on PATH starts by name, with nothing written to reins.agents', async () => {
    const bin = path.join(scratch, 'path-bin');
    const record = fakeAgent(bin, 'qwen');
    process.env.PATH = `${bin}${path.delimiter}${process.env.PATH}`;
    const before = JSON.stringify(agentsSetting());
    assert.equal(await select('qwen'), true, 'could not select');
    const state = (await api()).state()!;
    assert.equal(state.agent, 'qwen');
    assert.equal(state.agentPhase, 'ready');
    assert.equal(events(readRecord(record), 'started').length, 1);
    assert.equal(JSON.stringify(agentsSetting()), before, 'no JSON written');
    assert.deepEqual(await send('hi'), { status: 'completed', stopReason: 'end_turn' });
  });

  // Sabotage (CommandFinder.loginShell returning undefined): "false !== true" for the select —
  // the command "was not found on the extension host's PATH".
  it('a command only the login shell knows (nvm, Homebrew) is found through it, and the log says which path', async () => {
    const loginBin = path.join(scratch, 'login-bin');
    const name = `reins-it-nvm-agent-${process.pid}`;
    fakeAgent(loginBin, name);
    const shell = path.join(scratch, 'fake-login-shell');
    // What a login shell does for nvm: its start-up files put another folder on PATH.
    writeFileSync(shell, `#!/bin/sh\necho "motd: welcome"\nfor a; do s="$a"; done\nPATH="${loginBin}:$PATH" exec /bin/sh -c "$s"\n`);
    chmodSync(shell, 0o755);
    process.env.SHELL = shell;
    const agents = { ...(vscode.workspace.getConfiguration('reins').get<Record<string, unknown>>('agents') ?? {}), 'nvm-installed': { command: name } };
    await setting('agents', agents);
    assert.equal(await select('nvm-installed'), true);
    assert.equal((await api()).state()!.agentPhase, 'ready');
    const line = `agent nvm-installed: \`${name}\` is not on the extension host's PATH; using ${path.join(loginBin, name)}, found through the login shell (${shell})`;
    await waitFor('the log line', async () => (await logText()).includes(line));
  });

  // Sabotage (writeAgentEntry writing the merged value): "the workspace's agent was copied into
  // the user's settings + { command: '/bin/true' }". Sabotage (target always Workspace):
  // "+ undefined - { args: […], command: 'uvx' }" for globalValue.hermes.
  it('the picker lists presets with what is installed and the registry; a registry agent is added at its pinned version where VS Code reads it', async () => {
    const { server, url } = await serveFixture();
    const cap = capturePicker();
    ui = cap.ui;
    const config = () => vscode.workspace.getConfiguration('reins');
    await config().update('agents', { 'ws-only': { command: '/bin/true' } }, vscode.ConfigurationTarget.Workspace);
    try {
      await setting('registryUrl', url);
      const picking = select();
      await waitFor(
        'the picker with the registry and what is installed',
        () => {
          const qp = cap.picker();
          return !!qp && !qp.busy && qp.items.some((i) => /Hermes/.test(i.label)) && !qp.items.some((i) => /checking…/.test(i.description ?? ''));
        },
        20_000,
      );
      const qp = cap.picker()!;
      const item = (label: string) => qp.items.find((i) => i.label === label || i.label.endsWith(` ${label}`));
      assert.match(item('goose')?.description ?? '', /^goose · not installed$/);
      assert.equal(item('goose')?.detail, 'Install: curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | bash');
      assert.equal(item('goose')?.buttons?.length, 2, 'copy it, or run it in a terminal');
      assert.match(item('claude')?.description ?? '', /runs through npx \(npm @zed-industries\/claude-agent-acp\)|installed: /);
      assert.equal(item('Codex')?.description, '1.4.0 · npx · ACP Registry');
      assert.match(item('Zeta')?.detail ?? '', /binary only/);
      assert.ok(!qp.items.some((i) => /Sneaky/.test(i.label)), 'entries that do not validate are left out');

      // The extension host sends the highlight on a timer: accept once the workbench echoes it.
      const highlighted = new Promise<void>((resolve) => qp.onDidChangeActive((a) => a[0]?.label === item('Hermes')!.label && resolve()));
      qp.activeItems = [item('Hermes')!];
      await highlighted;
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await picking; // uvx is not installed here: the switch fails after the entry is written
      const written = { command: 'uvx', args: ['--from', 'hermes-agent[acp]==0.9.2', 'hermes-acp'] };
      const inspected = agentsSetting()!;
      assert.deepEqual(inspected.globalValue?.hermes, written, JSON.stringify({ notices: await notices(), agent: (await api()).state()?.agent }));
      assert.equal(inspected.globalValue?.['ws-only'], undefined, "the workspace's agent was copied into the user's settings");
      assert.deepEqual(config().get<Record<string, unknown>>('agents')?.hermes, written, 'VS Code reads it in this window');
      const where = vscode.env.remoteName ? `Remote [${vscode.env.remoteName}] settings` : 'User settings';
      // Said in the conversation; a notification too only if it is out of sight (answers.ts).
      const added = `Added Hermes 0.9.2 to reins.agents in the ${where}.`;
      assert.ok(
        (await notices()).some((x) => x.text === added),
        JSON.stringify(await notices()),
      );
      assert.deepEqual(
        shown(ui, 'showInformationMessage', /Added Hermes/).map((args) => args[0]),
        (await api()).state()!.inSight ? [] : [`Reins: ${added}`],
      );
      if (vscode.env.remoteName) {
        // code-server is a remote window: machine-overridable settings live in Machine/settings.json.
        const file = machineSettings((await api()).logUri);
        assert.ok(file && readFileSync(file, 'utf8').includes('hermes-agent[acp]==0.9.2'), `Machine settings: ${file}`);
      }
    } finally {
      server.close();
      await config().update('agents', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  // Sabotage (loadRegistry showing an error message instead of the log line): "timed out after
  // 10000 ms waiting for the log line" (and the notification assertion below).
  // Sabotage (no failure cache): "AssertionError: 2 lines" — asked and logged again on each open.
  // Sabotage (pickerItems ignoring the failure, as before): "AssertionError: the row saying the registry
  // could not be reached, and why" — offline, the registry vanished from the list without a word.
  it('offline, the picker lists the presets and the demo, a row says the registry could not be reached and why (choosing it asks again), and the log says why in one line', async () => {
    const cap = capturePicker();
    ui = cap.ui;
    const url = `http://127.0.0.1:1/reins-offline-${Date.now()}.json`;
    await setting('registryUrl', url);
    const picking = select();
    await waitFor('the picker to finish loading', () => !!cap.picker() && !cap.picker()!.busy, 20_000);
    const qp = cap.picker()!;
    assert.ok(qp.items.some((i) => i.label.endsWith('gemini')) && qp.items.some((i) => i.label.endsWith('Demo (offline, scripted)')));
    assert.ok(!qp.items.some((i) => /ACP Registry/.test(i.description ?? '')), 'no registry agents');
    const row = qp.items.find((i) => /The ACP Registry could not be reached/.test(i.label));
    assert.ok(row && row.detail?.startsWith(`${url}: `), `the row saying the registry could not be reached, and why: ${JSON.stringify(qp.items.slice(-3))}`);
    qp.hide();
    assert.equal(await picking, false);
    await waitFor('the log line', async () => (await logText()).includes(`ACP registry not reachable (${url}`));
    // Opened again while still offline: not asked again, not logged again; the row still says why.
    const first = cap.picker();
    const again = select();
    await waitFor('the second picker', () => cap.picker() !== first && !!cap.picker() && !cap.picker()!.busy, 20_000);
    const second = cap.picker()!;
    assert.ok(
      second.items.some((i) => /The ACP Registry could not be reached/.test(i.label)),
      'the row, from the remembered failure',
    );
    await sleep(500); // the log file is written asynchronously
    const lines = (await logText()).split(`ACP registry not reachable (${url}`).length - 1;
    assert.equal(lines, 1, `${lines} lines`);
    // Choosing the row asks again (the user's retry is not cached away) and keeps the list open.
    // The row is chosen as a user would, by typing until it is the only one, not by setting
    // activeItems: the window does not always echo a highlight set from the extension (in one run
    // of 15 the host's activeItems held the row and no onDidChangeActive came: "Timeout of 60000ms
    // exceeded" at the wait for it), while a focus the window moves itself is always reported.
    const retry = second.items.find((i) => /The ACP Registry could not be reached/.test(i.label))!;
    let highlighted = false;
    // What the window told the host meanwhile, for the failure message (CI saw no highlight once).
    const seen: string[] = [];
    second.onDidHide(() => seen.push('hidden'));
    second.onDidChangeActive((a) => {
      seen.push(`active: ${a.map((i) => i.label).join(' | ')}`);
      highlighted ||= a.length === 1 && a[0]?.label === retry.label;
    });
    second.value = 'The ACP Registry could not be reached';
    await waitFor('the typed text to leave the registry row alone in the list, highlighted', () => highlighted, 10_000).catch((error: unknown) => {
      const host = { value: second.value, active: second.activeItems.map((i) => i.label), items: second.items.length, seen };
      throw new Error(`${String(error)}; the picker as the host sees it: ${JSON.stringify(host)}`);
    });
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await waitFor('asked again', async () => (await logText()).split(`ACP registry not reachable (${url}`).length - 1 === 2, 20_000);
    assert.equal(cap.picker(), second, 'the same list, still open');
    second.hide();
    assert.equal(await again, false);
    const notes = [...(ui.calls.showErrorMessage ?? []), ...(ui.calls.showWarningMessage ?? [])];
    assert.deepEqual(notes, [], `a notification was shown: ${JSON.stringify(notes)}`);
  });
});
