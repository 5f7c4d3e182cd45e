// The presets, how reins.agents overrides them by name, whether each can start here (installed,
// npx, missing), and what the picker says about each: pure functions, a fake PATH.
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { availability, catalog, findAgent, mergeEntry } from '../../src/agents/catalog';
import { CommandFinder } from '../../src/agents/findCommand';
import { prepareLaunch } from '../../src/agents/launch';
import { agentItem, availabilityText, DEMO_LABEL, pickerItems } from '../../src/agents/pickerItems';
import { PRESETS, presetFor, presetNamed } from '../../src/agents/presets';
import { MemoryLogger } from '../../src/util/logger';
import { nth } from '../support/helpers';

function binDir(names: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-presets-'));
  mkdirSync(path.join(dir, 'bin'));
  for (const n of names) {
    writeFileSync(path.join(dir, 'bin', n), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(dir, 'bin', n), 0o755);
  }
  return path.join(dir, 'bin');
}

/** A finder that sees only `dir`, and whose login shell does not exist (so it finds nothing). */
function finderOn(dir: string): CommandFinder {
  return new CommandFinder({ env: () => ({ PATH: dir, SHELL: '/nonexistent/shell' }), timeoutMs: 2000 });
}

describe('agent presets', () => {
  it('has the eight preset agents, each with its command, install hint and homepage', () => {
    assert.deepEqual(
      PRESETS.map((p) => [p.name, [p.command, ...p.args].join(' ')]),
      [
        ['goose', 'goose acp'],
        ['opencode', 'opencode acp'],
        ['claude', 'claude-agent-acp'],
        ['codex', 'codex-acp'],
        ['gemini', 'gemini --acp'],
        ['qwen', 'qwen --acp'],
        ['copilot', 'copilot --acp'],
        ['pi', 'pi-acp'],
      ],
    );
    for (const p of PRESETS) {
      assert.ok(p.install.length > 0 && /^https:\/\//.test(p.homepage), p.name);
      // An npx line must not let npx ask on the agent's stdin (the ACP stream).
      if (p.npx) assert.equal(p.npx[0], '-y', p.name);
    }
    assert.deepEqual(
      PRESETS.filter((p) => p.npmPackage).map((p) => p.npmPackage),
      [
        'opencode-ai',
        '@agentclientprotocol/claude-agent-acp',
        '@agentclientprotocol/codex-acp',
        '@google/gemini-cli',
        '@qwen-code/qwen-code',
        '@github/copilot',
        'pi-acp',
      ],
    );
    assert.equal(presetNamed('goose')?.npx, undefined, 'goose is not on npm');
    assert.deepEqual(presetNamed('goose')?.quirks, { busyErrorPattern: 'active run', idleSignalMetaPath: 'goose.activeRunId' });
  });

  it('finds the preset of a custom entry by its command', () => {
    assert.equal(presetFor('mygemini', '/opt/bin/gemini')?.name, 'gemini');
    assert.equal(presetFor('mine', '/opt/my-agent')?.name, undefined);
    assert.equal(presetFor('claude')?.name, 'claude');
  });

  // Sabotage (mergeEntry returning the configured entry as is): "Expected values to be strictly
  // deep-equal" — { command: '/opt/gemini' } without args [] (and the command-less entry lost
  // the preset's program).
  it('reins.agents overrides a preset by name: its command replaces the launch, without one it keeps the program', () => {
    const gemini = presetNamed('gemini')!;
    assert.deepEqual(mergeEntry(gemini, undefined), { command: 'gemini', args: ['--acp'] });
    assert.deepEqual(mergeEntry(gemini, { command: '/opt/gemini' }), { command: '/opt/gemini', args: [] });
    assert.deepEqual(mergeEntry(gemini, { env: { GEMINI_API_KEY: 'k' } }), { command: 'gemini', args: ['--acp'], env: { GEMINI_API_KEY: 'k' } });
    assert.deepEqual(mergeEntry(presetNamed('goose'), { args: ['acp', '--with-builtin', 'developer'] })?.idleSignalMetaPath, 'goose.activeRunId');
    assert.equal(mergeEntry(undefined, { args: ['x'] }), undefined, 'no command, nothing to inherit');
  });

  it('lists presets first, then configured agents that are not presets', () => {
    const list = catalog({ mine: { command: '/opt/mine' }, claude: { command: 'npx', args: ['-y', '@zed-industries/claude-agent-acp@0.23.1'] } });
    assert.deepEqual(
      list.map((a) => `${a.name}${a.configured ? '*' : ''}`),
      ['goose', 'opencode', 'claude*', 'codex', 'gemini', 'qwen', 'copilot', 'pi', 'mine*'],
    );
    assert.equal(findAgent({}, 'qwen')?.entry.command, 'qwen', 'a preset resolves with no settings');
    assert.equal(findAgent({}, 'nope'), undefined);
  });

  // Sabotage (npxFallback ignoring whether the command was overridden): "a configured path that
  // is not there: + 'npx' - 'missing'" — an overridden command must not turn into npx.
  it('installed, runs through npx, or missing — npx only for a preset’s own command', async () => {
    const dir = binDir(['goose', 'npx']);
    const finder = finderOn(dir);
    const agents = catalog({ mygem: { command: '/nonexistent/gemini' }, gemini2: { command: 'gemini-not-here' } });
    const av = await availability(agents, finder);
    assert.equal(av.get('goose')?.kind, 'installed');
    assert.equal(av.get('claude')?.kind, 'npx');
    assert.equal(av.get('gemini')?.kind, 'npx');
    assert.equal(av.get('mygem')?.kind, 'missing', 'a configured path that is not there');
    assert.equal(av.get('gemini2')?.kind, 'missing');
    const noNpx = await availability(catalog({}), finderOn(binDir([])));
    assert.equal(noNpx.get('claude')?.kind, 'missing');
  });

  it('the picker says where an agent is, that npx runs it, or how to install it', async () => {
    const dir = binDir(['goose', 'npx']);
    const agents = catalog({});
    const av = await availability(agents, finderOn(dir));
    const goose = agentItem(nth(agents, 0), av.get('goose'), 'goose');
    assert.equal(goose.current, true);
    assert.match(goose.description, /^goose · installed: .*\/goose$/);
    const claude = agentItem(
      agents.find((a) => a.name === 'claude')!,
      av.get('claude'),
      'goose',
    );
    assert.match(claude.description, /runs through npx \(npm @agentclientprotocol\/claude-agent-acp\), downloaded on first use/);
    assert.equal(claude.install, undefined, 'runnable: no install step needed');
    const none = await availability(agents, finderOn(binDir([])));
    const qwen = agentItem(
      agents.find((a) => a.name === 'qwen')!,
      none.get('qwen'),
      'goose',
    );
    assert.equal(qwen.install, 'npm install -g @qwen-code/qwen-code');
    assert.equal(qwen.detail, 'Install: npm install -g @qwen-code/qwen-code');
    assert.match(
      availabilityText({ kind: 'installed', found: { path: '/x/bin/gemini', via: 'login-shell', shell: '/bin/zsh' } }),
      /found through your login shell/,
    );
    const items = pickerItems(agents, none, 'demo', undefined);
    assert.deepEqual(
      items.filter((i) => i.kind === 'separator').map((i) => i.label),
      ['Built in', 'Presets'],
    );
    assert.ok(items.some((i) => i.kind === 'agent' && i.name === 'demo' && i.current));
    // npx runs it: the install command is offered to skip the download, nothing about quirks.
    assert.equal(claude.detail, 'Install to skip the download: npm install -g @agentclientprotocol/claude-agent-acp');
  });

  // Sabotage (pickerItems without its demo row, as when a user could not get back to the demo):
  // "AssertionError [ERR_ASSERTION]: the demo is offered while goose runs". Sabotage (the demo's row
  // back after the seven presets, below what a quick pick shows without scrolling, where users
  // did not find it): "AssertionError [ERR_ASSERTION]: before the presets".
  it('the demo is offered whatever agent runs, as a clearly labelled row of its own', () => {
    const agents = catalog({ mine: { command: '/bin/true' } });
    for (const current of ['goose', 'mine', 'demo']) {
      const items = pickerItems(agents, undefined, current, undefined);
      const demo = items.find((i) => i.kind === 'agent' && i.name === 'demo');
      assert.ok(demo, `the demo is offered while ${current} runs`);
      assert.equal(demo.label, DEMO_LABEL);
      assert.equal(DEMO_LABEL, 'Demo (offline, scripted)');
      assert.deepEqual(items[items.indexOf(demo) - 1], { kind: 'separator', label: 'Built in' }, 'under a separator of its own');
      // Among the first rows (a quick pick shows about eight): before the presets, after the user's own agents.
      assert.ok(items.indexOf(demo) < items.findIndex((i) => i.kind === 'separator' && i.label === 'Presets'), 'before the presets');
      assert.equal(demo.kind === 'agent' && demo.current, current === 'demo');
    }
  });

  // Sabotage (pickerItems ignoring a failed registry, as before): "AssertionError [ERR_ASSERTION]:
  // the row that says the registry is missing" — offline, the registry vanished without a word.
  it('offline, a row says the ACP Registry could not be reached, and why; online its agents; switched off, nothing', () => {
    const agents = catalog({});
    const failed = pickerItems(agents, undefined, 'demo', { failed: 'https://cdn.example/registry.json: fetch failed: getaddrinfo ENOTFOUND cdn.example' });
    const row = failed.find((i) => i.kind === 'registryRetry');
    assert.ok(row, 'the row that says the registry is missing');
    assert.equal(row.label, 'The ACP Registry could not be reached');
    assert.match(row.description, /try again/);
    assert.equal(row.detail, 'https://cdn.example/registry.json: fetch failed: getaddrinfo ENOTFOUND cdn.example');
    assert.deepEqual(failed.at(-2), { kind: 'separator', label: 'ACP Registry' });
    assert.ok(!pickerItems(agents, undefined, 'demo', undefined).some((i) => i.kind === 'registryRetry' || /Registry/.test(i.label)), 'switched off: no row');
    const online = pickerItems(agents, undefined, 'demo', { agents: [] });
    assert.ok(!online.some((i) => i.kind === 'registryRetry'));
  });

  // A name is a settings key (a cloned folder's may set one) and a command line may hold `$(date)`:
  // VS Code's quick pick would draw each `$(…)` as an icon. Sabotage (agentItem without
  // escapeIcons): "+ '$(zap) x' - '\\$(zap) x'".
  it("the picker shows $(…) in an agent's name and command line as text", () => {
    const agent = nth(
      catalog({ '$(zap) x': { command: 'sh', args: ['-c', 'echo $(date)'] } }).filter((a) => a.configured),
      0,
    );
    const item = agentItem(agent, { kind: 'missing' }, 'goose');
    assert.equal(item.name, '$(zap) x', 'the name itself is kept for choosing it');
    assert.equal(item.label, '\\$(zap) x');
    assert.ok(item.detail?.includes('echo \\$(date)'), item.detail);
  });

  // Sabotage (withDirOnPath returning env as is): "+ undefined" for PATH — an nvm script's
  // `#!/usr/bin/env node` would not find its node.
  it('a command found through the login shell runs with its own folder first on PATH', async () => {
    const loginBin = binDir(['gemini']);
    const shell = path.join(path.dirname(loginBin), 'fake-shell');
    writeFileSync(shell, `#!/bin/sh\nfor a; do s="$a"; done\nPATH="${loginBin}:$PATH" exec /bin/sh -c "$s"\n`);
    chmodSync(shell, 0o755);
    const finder = new CommandFinder({ env: () => ({ PATH: '/usr/bin:/bin', SHELL: shell }), timeoutMs: 5000 });
    const log = new MemoryLogger();
    const prepared = await prepareLaunch(findAgent({}, 'gemini')!, '/work', {}, finder, log);
    assert.ok(prepared.ok);
    assert.equal(prepared.launch.command, path.join(loginBin, 'gemini'));
    assert.equal(prepared.launch.env?.PATH?.split(path.delimiter)[0], loginBin);
    assert.ok(
      log.lines.some((l) => l.includes(`using ${path.join(loginBin, 'gemini')}, found through the login shell (${shell})`)),
      log.lines.join('\n'),
    );
  });

  it('prepares a launch: PATH as is, npx with the preset package first, missing with the install hint', async () => {
    const dir = binDir(['npx']);
    const log = new MemoryLogger();
    const gemini = findAgent({}, 'gemini')!;
    const viaNpx = await prepareLaunch(gemini, '/work', { GEMINI_API_KEY: 'secret-value' }, finderOn(dir), log);
    assert.ok(viaNpx.ok);
    assert.equal(viaNpx.launch.command, path.join(dir, 'npx'));
    assert.deepEqual(viaNpx.launch.args, ['-y', '@google/gemini-cli', '--acp']);
    assert.deepEqual(viaNpx.launch.env, { GEMINI_API_KEY: 'secret-value' });
    assert.ok(!log.lines.join('\n').includes('secret-value'), 'values are never logged');
    const goose = await prepareLaunch(findAgent({}, 'goose')!, '/work', {}, finderOn(dir), log);
    assert.ok(!goose.ok);
    assert.equal(goose.preset?.install, presetNamed('goose')!.install);
    assert.match(goose.message, /`goose` was not found on the extension host's PATH/);
  });
});
