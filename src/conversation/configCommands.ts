// Modes, models and the other session config options, as commands: `reins.setConfigOption`
// for keybindings, tasks and other extensions, and three pickers for the palette and the
// panel header (Set Mode…, Select Model…, Set Option…). The state and the checks are in
// runtime/sessionConfig.ts; the requests in runtime/sessionControls.ts.
import * as vscode from 'vscode';
import type { FolderConversation } from './folderConversation';
import type { Conversations } from './conversations';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { ConfigChoice } from '../runtime/sessionConfig';
import type { SetConfigResult } from '../runtime/sessionControls';

/** A folder argument (a Uri or its string form) → its conversation; none: the folder you work in. */
function conversationFor(reins: Conversations, folder: unknown): FolderConversation | undefined {
  const uri = folder instanceof vscode.Uri ? folder : typeof folder === 'string' ? vscode.Uri.parse(folder) : undefined;
  return reins.conversation(uri && vscode.workspace.getWorkspaceFolder(uri));
}

/** The folder's agent with a session, started if need be (the options exist only then). */
async function readyRuntime(s: FolderConversation | undefined): Promise<AgentRuntime | { error: string }> {
  if (!s) return { error: 'no workspace folder is open' };
  if (!vscode.workspace.isTrusted) return { error: 'Reins starts agents only in trusted workspaces' };
  const rt = await s.ensureAgent();
  if (!rt) return { error: `${s.agentName} could not be started` };
  return rt;
}

export function registerConfigCommands(reins: Conversations): vscode.Disposable[] {
  const set = async (configId: unknown, value: unknown, folder?: unknown): Promise<SetConfigResult> => {
    if (typeof configId !== 'string' || (typeof value !== 'string' && typeof value !== 'boolean')) {
      return { status: 'failed', error: 'reins.setConfigOption takes (configId: string, value: string | boolean)' };
    }
    const rt = await readyRuntime(conversationFor(reins, folder));
    if ('error' in rt) return { status: 'failed', error: rt.error };
    return rt.session.controls.set(configId, value);
  };

  /** One picker: the values of `configId`, the current one marked; the choice is set at once. */
  const pick = async (configId: string, what: string, folder?: unknown): Promise<SetConfigResult | undefined> => {
    const s = conversationFor(reins, folder);
    const rt = await readyRuntime(s);
    if ('error' in rt) {
      reins.say(s, 'error', `${capital(rt.error)}.`);
      return { status: 'failed', error: rt.error };
    }
    const config = rt.session.controls.config;
    const choices = config?.choices(configId) ?? [];
    if (choices.length === 0) {
      reins.say(s, 'info', `${rt.name} offers no ${what} choice.`);
      return { status: 'failed', error: `${rt.name} offers no ${what} choice` };
    }
    const option = config?.resolve(configId);
    const picked = await vscode.window.showQuickPick(toItems(choices), {
      title: `Reins: ${option?.name ?? what} for ${rt.name}`,
      placeHolder: `Now: ${choices.find((c) => c.current)?.name ?? 'unknown'}`,
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!picked || picked.choice === undefined) return undefined;
    return report(reins, s, rt, await rt.session.controls.set(option?.id ?? configId, picked.choice.value));
  };

  return [
    vscode.commands.registerCommand('reins.setConfigOption', (configId?: unknown, value?: unknown, folder?: unknown) =>
      configId === undefined ? pickOption(reins, pick) : set(configId, value, folder),
    ),
    vscode.commands.registerCommand('reins.setMode', (folder?: unknown) => pick('mode', 'mode', folder)),
    vscode.commands.registerCommand('reins.selectModel', (folder?: unknown) => pick('model', 'model', folder)),
    vscode.commands.registerCommand('reins.setOption', (folder?: unknown) => pickOption(reins, pick, folder)),
  ];
}

/** Set Option…: first the option (in the agent's order), then its value. */
async function pickOption(
  reins: Conversations,
  pick: (configId: string, what: string, folder?: unknown) => Promise<SetConfigResult | undefined>,
  folder?: unknown,
): Promise<SetConfigResult | undefined> {
  const s = conversationFor(reins, folder);
  const rt = await readyRuntime(s);
  if ('error' in rt) {
    reins.say(s, 'error', `${capital(rt.error)}.`);
    return { status: 'failed', error: rt.error };
  }
  const options = (rt.session.controls.config?.summaries() ?? []).filter((o) => o.settable);
  // Agents with only the older modes still have one option: the mode.
  if (options.length === 0 && rt.session.controls.config?.hasModes) return pick('mode', 'mode', folder);
  if (options.length === 0) {
    reins.say(s, 'info', `${rt.name} offers no session options.`);
    return { status: 'failed', error: `${rt.name} offers no session options` };
  }
  const chosen = await vscode.window.showQuickPick(
    options.map((o) => ({ label: o.name, description: o.currentName, detail: o.description, id: o.id })),
    { title: `Reins: session options of ${rt.name}`, matchOnDetail: true },
  );
  return chosen ? pick(chosen.id, chosen.label, folder) : undefined;
}

type ChoiceItem = vscode.QuickPickItem & { choice?: ConfigChoice };

/** Values as quick-pick items, under separators for grouped select options. */
function toItems(choices: ConfigChoice[]): ChoiceItem[] {
  const items: ChoiceItem[] = [];
  let group: string | undefined;
  for (const c of choices) {
    if (c.group !== undefined && c.group !== group) items.push({ label: c.group, kind: vscode.QuickPickItemKind.Separator });
    group = c.group;
    items.push({ label: `${c.current ? '$(check) ' : ''}${c.name}`, description: c.current ? 'current' : undefined, detail: c.description, choice: c });
  }
  return items;
}

/** A failure from the picker is said; the command's caller gets the result either way. */
function report(reins: Conversations, s: FolderConversation | undefined, rt: AgentRuntime, result: SetConfigResult): SetConfigResult {
  if (result.status === 'failed') reins.say(s, 'error', `${rt.name} did not change the option: ${result.error}`);
  return result;
}

/** "no workspace folder is open" as a sentence. */
function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
