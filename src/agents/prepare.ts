// What a folder conversation does before it spawns an agent (the editor half of launch.ts): the
// stored sign-in values, the command found the way the user's shell finds it, and, when it is
// found nowhere, a message with *Open Settings* and the preset's install command (copy it, or
// run it in a terminal).
import * as vscode from 'vscode';
import { agentSecrets } from './secrets';
import type { ResolvedAgent } from './agentSettings';
import type { NoticeAction, NoticeLevel } from '../shared/messages';
import { commandFinder } from './findCommand';
import { prepareLaunch, type PreparedLaunch } from './launch';
import { presetFor, type Preset } from './presets';

export async function launchFor(
  agent: ResolvedAgent,
  folder: vscode.WorkspaceFolder,
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): Promise<PreparedLaunch> {
  const signInEnv = agent.demo ? {} : await agentSecrets(context).get(agent.name);
  const preset = agent.demo ? undefined : presetFor(agent.name, agent.entry.command);
  return prepareLaunch({ name: agent.name, entry: agent.entry, preset }, folder.uri.fsPath, signInEnv, commandFinder, log);
}

/** The sentence for a command found nowhere, with the install hint when Reins knows one. */
function notInstalledText(agentName: string, failure: { message: string; preset?: Preset }): string {
  const hint = failure.preset
    ? ` Install it with \`${failure.preset.install}\` (${failure.preset.homepage}), or set its command in reins.agents.`
    : ' Set its command (an absolute path works) in reins.agents.';
  return `${agentName} is not installed: ${failure.message}${hint}`;
}

/** What tells the user (answers.ts: the conversation while it is in sight, else a notification too). */
export type Say = (level: NoticeLevel, text: string, actions?: NoticeAction[]) => void;

/** The buttons that install `agentName`'s preset: run the command in a terminal, or copy it. */
export function installActions(agentName: string): NoticeAction[] {
  return [
    { action: 'installAgent', label: 'Run Install in Terminal', arg: agentName },
    { action: 'copyInstall', label: 'Copy Install Command', arg: agentName },
  ];
}

/** Tell the user (answers.ts decides where); the buttons run what fixes it. */
export function reportNotInstalled(agentName: string, failure: { message: string; preset?: Preset }, say: Say): string {
  const text = notInstalledText(agentName, failure);
  say('error', text, [{ action: 'openSettings', label: 'Open Settings' }, ...(failure.preset ? installActions(agentName) : [])]);
  return text;
}

export function openAgentSettings(): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', 'reins.agents');
}

/** The install command, run in a terminal the user watches (it may ask for a password). */
export function runInstall(preset: Preset): vscode.Terminal {
  const terminal = vscode.window.createTerminal({ name: `Reins: install ${preset.title}` });
  terminal.show();
  terminal.sendText(preset.install, true);
  return terminal;
}

/** The install buttons, for `agentName` (its preset by name, else by its command). */
export function installAction(agentName: string, command: string | undefined, action: 'installAgent' | 'copyInstall', say: Say): void {
  const preset = presetFor(agentName, command);
  if (!preset) return;
  if (action === 'installAgent') runInstall(preset);
  else void copyInstall(preset, say);
}

export async function copyInstall(preset: Preset, say: Say): Promise<void> {
  await vscode.env.clipboard.writeText(preset.install);
  say('info', `Copied to the clipboard: ${preset.install}`);
}
