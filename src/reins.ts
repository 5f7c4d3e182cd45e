// The window's Reins: one FolderSession per workspace folder, their panels, and which folder
// the commands act on. It owns their lives: folders removed from the workspace stop their
// turn (an exit path) and end their agent; deactivation does the same for all of them.
import * as vscode from 'vscode';
import { installAction, openAgentSettings } from './agents/prepare';
import { parallelTurnsPerFolder, resolveAgent } from './config';
import { FolderSession } from './folderSession';
import { PanelHost } from './panel/panelHost';
import { FolderGate } from './session/folderGate';
import type { AgentRuntime } from './session/agentRuntime';
import type { PanelAction } from './shared/messages';

/** How long deactivation waits for each running turn to confirm its stop before killing. */
export const DEACTIVATE_BUDGET_MS = 2000;

export class Reins implements vscode.Disposable {
  readonly gate = new FolderGate<AgentRuntime>(parallelTurnsPerFolder);
  private readonly sessions = new Map<string, FolderSession>();
  private readonly panels = new Map<string, PanelHost>();
  private lastFolder: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  /** Any session's status changed (status bar and context keys listen). */
  readonly onDidChange = this._onDidChange.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const folder of e.removed) void this.removeFolder(folder.uri.toString());
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        const folder = editor && vscode.workspace.getWorkspaceFolder(editor.document.uri);
        if (folder) this.lastFolder = folder.uri.toString();
      }),
    );
  }

  /** The session for `folder`, or for the folder the user works in now. */
  session(folder?: vscode.WorkspaceFolder): FolderSession | undefined {
    const target = folder ?? this.currentFolder();
    if (!target) return undefined;
    const key = target.uri.toString();
    let session = this.sessions.get(key);
    if (!session) {
      session = new FolderSession(target, this.context, this.log, this.gate);
      this.sessions.set(key, session);
      session.onDidChange(() => this._onDidChange.fire());
    }
    return session;
  }

  /** The existing session the commands act on, without creating one. */
  activeSession(): FolderSession | undefined {
    const folder = this.currentFolder();
    return folder ? this.sessions.get(folder.uri.toString()) : undefined;
  }

  allSessions(): FolderSession[] {
    return [...this.sessions.values()];
  }

  /** `restored`: a panel VS Code brought back after a window reload (panel/panelSerializer.ts) to adopt. */
  openPanel(folder?: vscode.WorkspaceFolder, restored?: vscode.WebviewPanel): PanelHost | undefined {
    const session = this.session(folder);
    if (!session) {
      void vscode.window.showInformationMessage('Reins needs a folder: open a folder to talk to an agent about it.', 'Open Folder').then(
        (c) => c && vscode.commands.executeCommand('workbench.action.files.openFolder'),
      );
      return undefined;
    }
    this.lastFolder = session.key;
    let host = this.panels.get(session.key);
    if (host) {
      restored?.dispose(); // one panel per folder
      host.reveal();
      return host;
    }
    const runAction = (action: PanelAction) => this.runAction(session, action);
    host = restored
      ? PanelHost.revive(restored, session, this.context.extensionUri, runAction)
      : PanelHost.create(session, this.context.extensionUri, runAction);
    this.panels.set(session.key, host);
    host.panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) {
        this.lastFolder = session.key;
        this._onDidChange.fire();
      }
    });
    host.onDidDispose(() => {
      this.panels.delete(session.key);
      this._onDidChange.fire();
    });
    this._onDidChange.fire();
    return host;
  }

  hasPanel(session: FolderSession): boolean {
    return this.panels.has(session.key);
  }

  private runAction(session: FolderSession, action: PanelAction): void {
    switch (action) {
      case 'openLog':
        return this.log.show(true);
      case 'checkAgain':
        return void session.checkAgain();
      case 'forceStop':
        return void session.forceStop();
      case 'endLeftovers':
        return void session.endLeftovers();
      case 'newSession':
        return void vscode.commands.executeCommand('reins.newSession');
      case 'selectAgent':
        return void vscode.commands.executeCommand('reins.selectAgent');
      case 'restartAgent':
        return void vscode.commands.executeCommand('reins.restartAgent');
      // The panel header's mode and model: the pickers, for this panel's folder.
      case 'setMode':
        return void vscode.commands.executeCommand('reins.setMode', session.folder.uri);
      case 'selectModel':
        return void vscode.commands.executeCommand('reins.selectModel', session.folder.uri);
      case 'signIn':
        return void session.signIn.choose();
      case 'openSettings':
        return void openAgentSettings();
      case 'installAgent':
      case 'copyInstall':
        return installAction(session.agentName, resolveAgent(this.context.extensionPath, session.agentName)?.entry.command, action);
    }
  }

  private currentFolder(): vscode.WorkspaceFolder | undefined {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length === 0) return undefined;
    if (folders.length === 1) return folders[0];
    const remembered = folders.find((f) => f.uri.toString() === this.lastFolder);
    if (remembered) return remembered;
    const editor = vscode.window.activeTextEditor;
    return (editor && vscode.workspace.getWorkspaceFolder(editor.document.uri)) ?? folders[0];
  }

  private async removeFolder(key: string): Promise<void> {
    const session = this.sessions.get(key);
    if (!session) return;
    // An exit path: the folder is gone, so its turn stops through the routine, then the agent ends.
    await session.shutdown('folder-removed', vscode.workspace.getConfiguration('reins').get<number>('settleTimeoutSeconds', 10) * 1000);
    this.panels.get(key)?.dispose();
    session.dispose();
    this.sessions.delete(key);
    this._onDidChange.fire();
  }

  /** Deactivation: every running turn stops with a short budget, then every agent tree ends. */
  async shutdown(): Promise<void> {
    await Promise.all(this.allSessions().map((s) => s.shutdown('deactivate', DEACTIVATE_BUDGET_MS).catch(() => undefined)));
  }

  dispose(): void {
    for (const panel of this.panels.values()) panel.dispose();
    for (const session of this.sessions.values()) session.dispose();
    for (const d of this.disposables) d.dispose();
    this._onDidChange.dispose();
  }
}
