// What a folder session does before it spawns an agent (the editor half of launch.ts): the
// stored sign-in values, the command found the way the user's shell finds it, and, when it is
// found nowhere, a message with *Open Settings* and the preset's install command (copy it, or
// run it in a terminal).
import * as vscode from 'vscode';
import { showErrorMessage, showInformationMessage } from '../notify';
import { agentSecrets } from '../auth/secrets';
import type { ResolvedAgent } from '../config';
import type { Transcript } from '../session/transcript';
import type { PanelAction } from '../shared/messages';
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
export function notInstalledText(agentName: string, failure: { message: string; preset?: Preset }): string {
  const hint = failure.preset
    ? ` Install it with \`${failure.preset.install}\` (${failure.preset.homepage}), or set its command in reins.agents.`
    : ' Set its command (an absolute path works) in reins.agents.';
  return `${agentName} is not installed: ${failure.message}${hint}`;
}

/** Tell the user in the panel and a notification; the buttons run what fixes it. */
export function reportNotInstalled(agentName: string, failure: { message: string; preset?: Preset }, transcript: Transcript): string {
  const text = notInstalledText(agentName, failure);
  const actions: { action: PanelAction; label: string }[] = [{ action: 'openSettings', label: 'Open Settings' }];
  if (failure.preset) actions.push({ action: 'installAgent', label: 'Run Install in Terminal' }, { action: 'copyInstall', label: 'Copy Install Command' });
  transcript.notice('error', text, actions);
  const buttons = failure.preset ? ['Open Settings', 'Run Install in Terminal', 'Copy Install Command'] : ['Open Settings'];
  void showErrorMessage(`Reins: ${text}`, ...buttons).then((choice) => {
    if (choice === 'Open Settings') void openAgentSettings();
    else if (choice === 'Run Install in Terminal' && failure.preset) runInstall(failure.preset);
    else if (choice === 'Copy Install Command' && failure.preset) void copyInstall(failure.preset);
  });
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

/** The panel's install buttons, for the folder's current agent. */
export function installAction(agentName: string, command: string | undefined, action: 'installAgent' | 'copyInstall'): void {
  const preset = presetFor(agentName, command);
  if (!preset) return;
  if (action === 'installAgent') runInstall(preset);
  else void copyInstall(preset);
}

export async function copyInstall(preset: Preset): Promise<void> {
  await vscode.env.clipboard.writeText(preset.install);
  void showInformationMessage(`Copied: ${preset.install}`);
}
