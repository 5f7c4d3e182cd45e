// The session commands: `reins.listSessions`, `reins.loadSession(sessionId)`,
// `reins.deleteSession(sessionId)` (plain data, for keybindings, tasks and tests; see the
// README) and *Reins: Open Session…*, the picker over them. The work is the folder's
// SessionKeeper's (sessionKeeper.ts); loading settles the running turn first, as New Session does.
import * as vscode from 'vscode';
import type { DeleteSessionResult, LoadSessionResult } from '../api';
import type { FolderConversation } from './folderConversation';
import { NEEDS_FOLDER, type Conversations } from './conversations';
import { describeWhen, type ListedSession } from '../runtime/sessionList';

/** The workspace folder an `options.folder` argument names (a Uri or its string form), if any. */
function folderOf(options: unknown): vscode.WorkspaceFolder | undefined {
  const arg = (options as { folder?: unknown } | undefined)?.folder;
  const uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.parse(arg) : undefined;
  return uri && vscode.workspace.getWorkspaceFolder(uri);
}

export function registerSessionCommands(reins: Conversations): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('reins.listSessions', async (options?: unknown): Promise<ListedSession[]> => {
      const s = reins.conversation(folderOf(options));
      return s ? s.keeper.listSessions() : [];
    }),
    vscode.commands.registerCommand('reins.loadSession', async (sessionId?: unknown, options?: unknown): Promise<LoadSessionResult> => {
      if (typeof sessionId !== 'string' || sessionId === '') return { status: 'failed', error: 'reins.loadSession needs a session id (a string)' };
      const s = reins.conversation(folderOf(options));
      if (!s) return { status: 'failed', error: 'no workspace folder is open' };
      if (!reins.hasPanel(s)) reins.openPanel(s.folder);
      return s.keeper.loadSession(sessionId);
    }),
    vscode.commands.registerCommand('reins.deleteSession', async (sessionId?: unknown, options?: unknown): Promise<DeleteSessionResult> => {
      if (typeof sessionId !== 'string' || sessionId === '') return { status: 'failed', error: 'reins.deleteSession needs a session id (a string)' };
      const s = reins.conversation(folderOf(options));
      return s ? s.keeper.deleteSession(sessionId) : { status: 'failed', error: 'no workspace folder is open' };
    }),
    vscode.commands.registerCommand('reins.openSession', () => pickSession(reins)),
  ];
}

interface Item extends vscode.QuickPickItem {
  sessionId?: string;
  isNew?: boolean;
}

const deleteButton = (tooltip: string): vscode.QuickInputButton => ({ iconPath: new vscode.ThemeIcon('trash'), tooltip });

/** *Reins: Open Session…*: the folder's sessions, newest first; delete (where offered) by the item's button. */
async function pickSession(reins: Conversations): Promise<void> {
  const s = reins.conversation();
  if (!s) {
    reins.say(undefined, 'info', NEEDS_FOLDER, [{ action: 'openFolder', label: 'Open Folder' }]);
    return;
  }
  if (!reins.hasPanel(s)) reins.openPanel(s.folder);
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = `Reins: sessions in ${s.folder.name}`;
  qp.placeholder = `Asking ${s.agentName} for its sessions…`;
  qp.matchOnDetail = true;
  qp.busy = true;
  qp.onDidHide(() => qp.dispose());
  qp.show();
  let sessions: ListedSession[];
  try {
    sessions = await s.keeper.listSessions();
  } catch (error) {
    qp.hide();
    s.say('error', `${s.agentName} could not list its sessions: ${(error as Error)?.message ?? String(error)}`, [{ action: 'openLog', label: 'Open Log' }]);
    return;
  }
  qp.busy = false;
  qp.items = items(s, sessions);
  qp.placeholder = placeholder(s, sessions.length);
  qp.onDidTriggerItemButton(async ({ item }) => {
    if (!item.sessionId) return;
    const result = await s.keeper.deleteSession(item.sessionId);
    if (result.status === 'failed') s.say('warning', `Not deleted: ${result.error}`);
    else qp.items = qp.items.filter((i) => i.sessionId !== item.sessionId);
  });
  qp.onDidAccept(async () => {
    const item = qp.selectedItems[0];
    qp.hide();
    if (!item) return;
    if (item.isNew) return void vscode.commands.executeCommand('reins.newSession');
    if (!item.sessionId || item.sessionId === s.runtime?.session.id) return;
    const result = await vscode.commands.executeCommand<LoadSessionResult>('reins.loadSession', item.sessionId, { folder: s.folder.uri });
    if (result?.status === 'failed' && !result.refused) s.say('warning', `Could not open the session: ${result.error}`);
  });
}

function items(s: FolderConversation, sessions: ListedSession[]): Item[] {
  const rt = s.runtime;
  const caps = rt?.session.switch.caps;
  const current = rt?.session.id;
  // Agents without session/delete: only Reins' own list can lose an entry (it is only a memory).
  const removable = caps?.delete ? 'Delete this session' : caps && !caps.list ? 'Remove from this list' : undefined;
  return [
    { label: '$(add) New Session', isNew: true, alwaysShow: true },
    ...sessions.map((x) => ({
      label: x.title ?? 'Untitled session',
      description: [x.sessionId === current ? 'current' : undefined, describeWhen(x.updatedAt)].filter(Boolean).join(' · '),
      detail: x.sessionId,
      sessionId: x.sessionId,
      buttons: removable && x.sessionId !== current ? [deleteButton(removable)] : [],
    })),
  ];
}

function placeholder(s: FolderConversation, count: number): string {
  const caps = s.runtime?.session.switch.caps;
  if (caps && !caps.load && !caps.resume) return `${s.agentName} cannot open earlier sessions: only a new one`;
  return count === 0 ? 'No earlier sessions' : `Open a session of ${s.agentName} (its turn, if one runs, is stopped first)`;
}
