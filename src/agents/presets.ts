// The agents Reins knows by name, so that picking one needs no JSON: how each is started, how it
// is installed, and whether npm distributes it (then `npx` can run it uninstalled). What Reins
// knows of each one's behaviour is the one table in runtime/knownAgents.ts (a row names its
// preset). A `reins.agents` entry of the same name overrides a preset (see catalog.ts). No
// `vscode` here: the picker, the launcher and the unit tests share it.
import type { QuirkSettings } from '../runtime/quirks';

export interface Preset {
  /** The key, as in `reins.agents`. */
  name: string;
  /** What the picker shows. */
  title: string;
  command: string;
  args: string[];
  /** Distributed on npm: the arguments after `npx` that run it uninstalled (before `args`). */
  npx?: string[];
  /** The npm package(s), for the picker's "runs through npx (npm …)". */
  npmPackage?: string;
  /** A shell command line that installs it (shown, copied, or run in a terminal). */
  install: string;
  homepage: string;
  /** Quirks Reins should apply (those it recognises for every agent need no entry). */
  quirks?: QuirkSettings;
  /** What it needs besides its package, for the picker (what it does around a cancel is its row in runtime/knownAgents.ts). */
  requirement?: string;
}

export const PRESETS: readonly Preset[] = [
  {
    name: 'goose',
    title: 'goose',
    command: 'goose',
    args: ['acp'],
    install: 'curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | bash',
    homepage: 'https://block.github.io/goose/',
    // goose's busy rejection and idle signal are recognised for every agent already; named
    // here so that the preset says what it relies on.
    quirks: { busyErrorPattern: 'active run', idleSignalMetaPath: 'goose.activeRunId' },
  },
  {
    name: 'opencode',
    title: 'OpenCode',
    command: 'opencode',
    args: ['acp'],
    npx: ['-y', 'opencode-ai'],
    npmPackage: 'opencode-ai',
    install: 'npm install -g opencode-ai',
    homepage: 'https://opencode.ai',
  },
  {
    name: 'claude',
    title: 'Claude Code (claude-agent-acp)',
    command: 'claude-agent-acp',
    args: [],
    npx: ['-y', '@agentclientprotocol/claude-agent-acp'],
    npmPackage: '@agentclientprotocol/claude-agent-acp',
    install: 'npm install -g @agentclientprotocol/claude-agent-acp',
    homepage: 'https://github.com/agentclientprotocol/claude-agent-acp',
    // The package moved from @zed-industries (last 0.23.1) to @agentclientprotocol. 0.23 answering
    // one turn behind is its row in runtime/knownAgents.ts, which outOfStep.ts reads by agentInfo
    // and version: no setting here (0.101, in step, keeps 'none').
  },
  {
    name: 'codex',
    title: 'Codex (codex-acp)',
    command: 'codex-acp',
    args: [],
    npx: ['-y', '@agentclientprotocol/codex-acp'],
    npmPackage: '@agentclientprotocol/codex-acp',
    install: 'npm install -g @agentclientprotocol/codex-acp',
    homepage: 'https://github.com/agentclientprotocol/codex-acp',
  },
  {
    name: 'gemini',
    title: 'Gemini CLI',
    command: 'gemini',
    args: ['--acp'],
    npx: ['-y', '@google/gemini-cli'],
    npmPackage: '@google/gemini-cli',
    install: 'npm install -g @google/gemini-cli',
    homepage: 'https://github.com/google-gemini/gemini-cli',
  },
  {
    name: 'qwen',
    title: 'Qwen Code',
    command: 'qwen',
    args: ['--acp'],
    npx: ['-y', '@qwen-code/qwen-code'],
    npmPackage: '@qwen-code/qwen-code',
    install: 'npm install -g @qwen-code/qwen-code',
    homepage: 'https://github.com/QwenLM/qwen-code',
  },
  {
    name: 'copilot',
    title: 'GitHub Copilot CLI',
    command: 'copilot',
    args: ['--acp'],
    npx: ['-y', '@github/copilot'],
    npmPackage: '@github/copilot',
    install: 'npm install -g @github/copilot',
    homepage: 'https://github.com/github/copilot-cli',
    requirement: 'needs a GitHub account with Copilot',
  },
  {
    name: 'pi',
    title: 'pi (pi-acp)',
    command: 'pi-acp',
    args: [],
    // pi-acp runs `pi` as its child: both packages go on the npx PATH.
    npx: ['-y', '--package', 'pi-acp', '--package', '@earendil-works/pi-coding-agent', 'pi-acp'],
    npmPackage: 'pi-acp',
    install: 'npm install -g pi-acp @earendil-works/pi-coding-agent',
    homepage: 'https://www.npmjs.com/package/pi-acp',
    requirement: 'needs Node 22.19 or later',
  },
];

export function presetNamed(name: string): Preset | undefined {
  return PRESETS.find((p) => p.name === name);
}

/**
 * The preset an agent entry is an instance of: by name, else by its command's base name (a
 * custom `"mygemini": { "command": "gemini" }` still gets gemini's install hint).
 */
export function presetFor(name: string, command?: string): Preset | undefined {
  const byName = presetNamed(name);
  if (byName) return byName;
  if (!command) return undefined;
  const base = command
    .split(/[\\/]/)
    .pop()
    ?.replace(/\.(cmd|exe)$/i, '');
  return PRESETS.find((p) => p.command === base);
}
