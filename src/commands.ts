// Command ids → calls on the active folder's conversation, and the context keys that hide the
// commands that have nothing to act on. The commands are also an API: `reins.sendPrompt`
// resolves with the turn's result, `reins.stop` with the stop's outcome (see the README).
import * as vscode from 'vscode';
import { pickAgent } from './agents/picker';
import { whenBusyOf, type SendOptions, type SendResult, type StopResult, type UndoResult } from './api';
import { nothingToStop } from './conversation/results';
import { parsePromptArgument } from './acp/promptContent';
import { registerConfigCommands } from './conversation/configCommands';
import { WELCOME_VIEW_ID } from './conversation/firstRun';
import type { Conversations } from './conversation/conversations';

/** The workspace folder a command argument names, if any. */
function folderOf(arg: unknown): vscode.WorkspaceFolder | undefined {
  const uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.parse(arg) : undefined;
  return uri && vscode.workspace.getWorkspaceFolder(uri);
}

export function registerCommands(reins: Conversations): vscode.Disposable[] {
  const conversation = () => reins.conversation();
  return [
    vscode.commands.registerCommand('reins.openPanel', async (folder?: unknown) => {
      const s = reins.conversation(folderOf(folder));
      // No agent yet: the welcome (Choose an Agent, Try the Demo), not the demonstration agent unasked.
      if (s && reins.firstRun.needsAgent && !reins.hasPanel(s)) return vscode.commands.executeCommand(`${WELCOME_VIEW_ID}.focus`);
      reins.openPanel(s?.folder);
      // Opening the panel starts the folder's agent, so that it is ready by the first prompt.
      if (s && vscode.workspace.isTrusted) void s.ensureAgent();
    }),
    // The conversation between the Reins view and an editor tab (view and editor title actions).
    vscode.commands.registerCommand('reins.moveToEditor', () => {
      const s = reins.viewConversation() ?? conversation();
      if (s) reins.move(s, 'editor');
    }),
    vscode.commands.registerCommand('reins.moveToSideBar', () => {
      const s = conversation();
      if (s) reins.move(s, 'view');
    }),
    vscode.commands.registerCommand('reins.sendPrompt', async (text?: unknown, options?: SendOptions): Promise<SendResult> => {
      const s = reins.conversation(folderOf(options?.folder));
      if (!s) return { status: 'not-sent', reason: 'no workspace folder is open' };
      // A string, or { text, files? }: file URIs attached as the agent's promptCapabilities allow.
      const input = parsePromptArgument(text);
      if (input && 'error' in input) return { status: 'not-sent', reason: input.error };
      let prompt = input?.text;
      if (prompt === undefined) {
        prompt = await vscode.window.showInputBox({
          title: `Reins: prompt ${s.agentName}`,
          prompt: `Sent to ${s.agentName} in ${s.folder.name}`,
          ignoreFocusOut: true,
        });
        if (!prompt) return { status: 'not-sent', reason: 'cancelled' };
      }
      if (!reins.hasPanel(s)) reins.openPanel(s.folder);
      // While a turn runs: ask (default), stop it and send ("send now"), or keep the text.
      return s.send(prompt, whenBusyOf(options?.whenBusy), input?.files);
    }),
    vscode.commands.registerCommand('reins.stop', async (): Promise<StopResult> => {
      const s = reins.activeConversation();
      if (!s) return nothingToStop('user');
      return s.stop('user');
    }),
    vscode.commands.registerCommand('reins.forceStop', () => reins.activeConversation()?.forceStop()),
    vscode.commands.registerCommand('reins.checkAgain', () => reins.activeConversation()?.checkAgain()),
    vscode.commands.registerCommand('reins.endLeftovers', () => reins.activeConversation()?.endLeftovers()),
    // Undo This Turn's Changes: the last prompt's checkpoint, shown as diffs, restored on confirmation.
    vscode.commands.registerCommand('reins.undoTurn', async (folder?: unknown): Promise<UndoResult> => {
      const s = reins.conversation(folderOf(folder));
      if (!s) return { status: 'nothing', reason: 'no workspace folder is open' };
      return s.undoTurn();
    }),
    vscode.commands.registerCommand('reins.newSession', async () => {
      const s = conversation();
      if (!s) return false;
      if (!reins.hasPanel(s)) reins.openPanel(s.folder);
      return s.newSession();
    }),
    vscode.commands.registerCommand('reins.selectAgent', async (name?: unknown) => {
      const s = conversation();
      if (!s) return false;
      let chosen = typeof name === 'string' ? name : undefined;
      if (chosen === undefined) {
        // Presets (installed or not), configured agents and the ACP Registry: agents/picker.ts.
        chosen = await pickAgent(s.agentName, reins.log, (...a) => s.say(...a));
        if (chosen === undefined) return false;
      }
      await reins.firstRun.agentChosen();
      if (!reins.hasPanel(s)) reins.openPanel(s.folder);
      return s.replaceAgent(chosen, 'switch');
    }),
    vscode.commands.registerCommand('reins.restartAgent', async () => {
      const s = conversation();
      if (!s) return false;
      return s.replaceAgent(undefined, 'restart');
    }),
    vscode.commands.registerCommand('reins.showLog', () => reins.log.show()),
    // Modes, models and the other session options: reins.setConfigOption and its pickers.
    ...registerConfigCommands(reins),
  ];
}

const contextValues = new Map<string, unknown>();

/** Keep the `when` clauses true to the active conversation's state (setting only what changed). */
export function updateContextKeys(reins: Conversations): void {
  const s = reins.activeConversation();
  const status = s?.status();
  const phase = s?.runtime?.phase;
  const set = (key: string, value: unknown) => {
    if (contextValues.get(key) === value) return;
    contextValues.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  };
  set('reins.turnActive', status?.canStop === true); // canStop is the turn machine's turnActive
  set('reins.stopping', status?.turn === 'stopping');
  set('reins.stopUnverified', status?.turn === 'unverified');
  set('reins.agentRunning', phase === 'ready' || phase === 'starting');
  set('reins.hasSession', s !== undefined);
  const config = s?.runtime?.session.controls.config;
  set('reins.hasModes', config?.hasModes === true);
  set('reins.hasModels', config?.hasModels === true);
  set('reins.hasConfigOptions', config?.hasOptions === true);
}
