// The window's conversations: one FolderConversation per workspace folder, their panels, and which folder
// the commands act on. It owns their lives: folders removed from the workspace stop their
// turn (an exit path) and end their agent; deactivation does the same for all of them.
// A conversation is shown in one place: an editor tab, or the window's one Reins view (which
// shows one folder at a time); `reins.openIn` says where a new one opens, and it can move.
import * as vscode from 'vscode';
import { notification } from '../ui/notify';
import { Answers, offersAction } from './answers';
import { installAction, openAgentSettings } from '../agents/prepare';
import { parallelTurnsPerFolder, runtimeSettings } from '../config';
import { resolveAgent } from '../agents/agentSettings';
import { FirstRun, STOP_README_URL } from './firstRun';
import { FolderConversation } from './folderConversation';
import { PanelHost } from '../panel/panelHost';
import { noteHtml, type Surface, type SurfaceKind } from '../panel/surface';
import { ReinsViewProvider } from '../panel/viewProvider';
import { FolderAdmission } from '../admission/folderAdmission';
import { CheckoutLocks } from '../admission/checkoutLock';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { CarriedState, NoticeAction, NoticeLevel, PanelAction } from '../shared/messages';

export const NEEDS_FOLDER = 'Reins needs a folder: open a folder to talk to an agent about it.';

/** How long deactivation waits for each running turn to confirm its stop before killing. */
const DEACTIVATE_BUDGET_MS = 2000;

/** Where a conversation opens when it is not shown anywhere yet (`reins.openIn`). */
function openIn(): SurfaceKind {
  return vscode.workspace.getConfiguration('reins').get<string>('openIn') === 'editor' ? 'editor' : 'view';
}

export class Conversations implements vscode.Disposable {
  readonly admission = new FolderAdmission<AgentRuntime>(parallelTurnsPerFolder);
  /** The gate across windows: one running turn per checkout on this machine (admission/checkoutLock.ts). */
  readonly locks = new CheckoutLocks();
  private readonly conversations = new Map<string, FolderConversation>();
  /** Each folder's conversation, wherever it is shown (tab or view). */
  private readonly panels = new Map<string, PanelHost<FolderConversation>>();
  /** The draft and scroll of a conversation the view let go of (it showed another folder meanwhile). */
  private readonly parked = new Map<string, CarriedState>();
  /** The folder the view is to show once VS Code resolves it, and what it carries there. */
  private forView: { key: string; carried?: CarriedState } | undefined;
  private lastFolder: string | undefined;
  readonly firstRun: FirstRun;
  readonly view = new ReinsViewProvider((surface, state) => this.onViewResolved(surface, state));
  private readonly disposables: vscode.Disposable[] = [];
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  /** Any conversation's status changed (status bar and context keys listen). */
  readonly onDidChange = this._onDidChange.event;
  /** What is said with no conversation to say it in (no folder open): a notification (answers.ts). */
  private readonly windowAnswers = new Answers({ inSight: () => false, notify: notification, act: (a) => this.runWindowAction(a.action) });

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {
    this.firstRun = new FirstRun(context.globalState);
    this.disposables.push(
      this.firstRun,
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const folder of e.removed) void this.removeFolder(folder.uri.toString());
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        const folder = editor && vscode.workspace.getWorkspaceFolder(editor.document.uri);
        if (folder) this.lastFolder = folder.uri.toString();
      }),
    );
  }

  /** The conversation for `folder`, or for the folder the user works in now. */
  conversation(folder?: vscode.WorkspaceFolder): FolderConversation | undefined {
    const target = folder ?? this.currentFolder();
    if (!target) return undefined;
    const key = target.uri.toString();
    let conversation = this.conversations.get(key);
    if (!conversation) {
      const made: FolderConversation = (conversation = new FolderConversation(target, this.context, this.log, this.admission, this.locks, {
        inSight: () => this.isInSight(made),
        act: (a) => this.runAction(made, a.action, a.arg),
      }));
      this.conversations.set(key, conversation);
      conversation.onDidChange(() => this._onDidChange.fire());
    }
    return conversation;
  }

  /** The existing conversation the commands act on, without creating one. */
  activeConversation(): FolderConversation | undefined {
    const folder = this.currentFolder();
    return folder ? this.conversations.get(folder.uri.toString()) : undefined;
  }

  allConversations(): FolderConversation[] {
    return [...this.conversations.values()];
  }

  /**
   * Shows the folder's conversation where it is, else where `reins.openIn` says. `restored`: a
   * tab VS Code brought back after a window reload (conversation/panelSerializer.ts) to adopt. Returns
   * undefined without a folder, or while the view is still being resolved (the conversation starts
   * the same: use `conversation()`).
   */
  openPanel(folder?: vscode.WorkspaceFolder, restored?: vscode.WebviewPanel): PanelHost<FolderConversation> | undefined {
    const conversation = this.conversation(folder);
    if (!conversation) {
      this.say(undefined, 'info', NEEDS_FOLDER, [{ action: 'openFolder', label: 'Open Folder' }]);
      return undefined;
    }
    this.lastFolder = conversation.key;
    const host = this.panels.get(conversation.key);
    if (host) {
      restored?.dispose(); // one panel per folder
      host.reveal();
      return host;
    }
    if (restored) return this.adopt(PanelHost.revive(restored, conversation, this.context.extensionUri, this.actionsFor(conversation)));
    return openIn() === 'editor' ? this.openInEditor(conversation) : this.openInView(conversation);
  }

  hasPanel(conversation: FolderConversation): boolean {
    return this.panels.has(conversation.key);
  }

  /** The conversation's panel (tab or view), if it has one now. */
  panelOf(conversation: FolderConversation): PanelHost<FolderConversation> | undefined {
    return this.panels.get(conversation.key);
  }

  /**
   * Tells the user about `session`'s conversation (answers.ts: there while it is in sight, else a
   * notification too); with no session (no folder open), a notification.
   */
  say(conversation: FolderConversation | undefined, level: NoticeLevel, text: string, actions?: NoticeAction[]): void {
    if (conversation) conversation.say(level, text, actions);
    else this.windowAnswers.say(level, text, actions);
  }

  /** The folder's conversation is on screen (its tab or view visible). */
  isInSight(conversation: FolderConversation): boolean {
    return this.panels.get(conversation.key)?.surface.visible === true;
  }

  /**
   * Moves the conversation between the editor tab and the Reins view, with its draft and scroll
   * position (the transcript is the host's). The turn goes on: a move is not a close.
   */
  move(conversation: FolderConversation, to: SurfaceKind): PanelHost<FolderConversation> | undefined {
    const host = this.panels.get(conversation.key);
    if (host?.kind === to) {
      host.reveal();
      return host;
    }
    const carried = host?.carriedState ?? this.parked.get(conversation.key);
    if (host) {
      this.panels.delete(conversation.key);
      host.dispose();
    }
    return to === 'editor' ? this.openInEditor(conversation, carried) : this.openInView(conversation, carried);
  }

  /** The folder the Reins view shows now. */
  viewConversation(): FolderConversation | undefined {
    for (const host of this.panels.values()) if (host.kind === 'view') return host.conversation;
    return undefined;
  }

  private openInEditor(conversation: FolderConversation, carried?: CarriedState): PanelHost<FolderConversation> {
    this.parked.delete(conversation.key);
    return this.adopt(PanelHost.create(conversation, this.context.extensionUri, this.actionsFor(conversation), carried));
  }

  private openInView(conversation: FolderConversation, carried?: CarriedState): PanelHost<FolderConversation> | undefined {
    const surface = this.view.current;
    if (!surface) {
      // VS Code resolves the view when it is shown: onViewResolved() puts the conversation there.
      this.forView = { key: conversation.key, carried };
      void this.view.show();
      return undefined;
    }
    const host = this.showInView(surface, conversation, carried);
    surface.reveal(false);
    return host;
  }

  private showInView(surface: Surface, conversation: FolderConversation, carried?: CarriedState): PanelHost<FolderConversation> {
    const shown = this.viewConversation();
    if (shown) {
      // The view shows one folder at a time: the other folder's draft and scroll wait for its return.
      const other = this.panels.get(shown.key)!;
      if (other.carriedState) this.parked.set(shown.key, other.carriedState);
      this.panels.delete(shown.key);
      other.dispose();
    }
    const state = carried ?? this.parked.get(conversation.key);
    this.parked.delete(conversation.key);
    return this.adopt(PanelHost.inView(surface, conversation, this.context.extensionUri, this.actionsFor(conversation), state));
  }

  /** VS Code resolved the view (first shown, or after a window reload with the folder it showed). */
  private onViewResolved(surface: Surface, state: unknown): void {
    const wanted = this.forView;
    this.forView = undefined;
    const saved = typeof (state as { folder?: unknown } | undefined)?.folder === 'string' ? (state as { folder: string }).folder : undefined;
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (!wanted && !saved && openIn() === 'editor') {
      // Shown (VS Code opens the secondary side bar at startup), not asked for: conversations open in tabs here.
      surface.webview.html = noteHtml(
        'Conversations open in editor tabs here (the <em>reins.openIn</em> setting). <em>Reins: Move Conversation to Side Bar</em> brings one here.',
      );
      return;
    }
    const folder = folders.find((f) => f.uri.toString() === (wanted?.key ?? saved)) ?? this.currentFolder();
    if (!folder) return; // no folder open: the view stays empty (the welcome says what to do)
    const conversation = this.conversation(folder)!;
    const existing = this.panels.get(conversation.key);
    // Its conversation is in a tab already (moved, or opened there): the view shows nothing else.
    if (existing && existing.kind === 'editor' && !wanted) return;
    if (existing?.kind === 'editor') {
      this.panels.delete(conversation.key);
      existing.dispose();
    }
    this.showInView(surface, conversation, wanted?.carried);
    // As Open Agent Panel does: the agent starts, and with it the folder's session reopens;
    // not on a first run, where the view welcomes instead of starting the demonstration agent.
    if (vscode.workspace.isTrusted && !this.firstRun.needsAgent) void conversation.ensureAgent();
  }

  private adopt(host: PanelHost<FolderConversation>): PanelHost<FolderConversation> {
    const conversation = host.conversation;
    this.lastFolder = conversation.key;
    this.panels.set(conversation.key, host);
    // The view outlives this host (it shows the next conversation): the listener ends with the host.
    const active = host.surface.onDidBecomeActive(() => {
      this.lastFolder = conversation.key;
      this._onDidChange.fire();
    });
    // Shown or hidden: the status bar carries the busy state only while the conversation is not in sight.
    const visibility = host.surface.onDidChangeVisibility(() => this._onDidChange.fire());
    host.onDidDispose(() => {
      active.dispose();
      visibility.dispose();
      if (this.panels.get(conversation.key) === host) this.panels.delete(conversation.key);
      this._onDidChange.fire();
    });
    this._onDidChange.fire();
    return host;
  }

  private actionsFor(conversation: FolderConversation): (action: PanelAction, arg?: string) => void {
    return (action, arg) => this.runAction(conversation, action, arg);
  }

  /** The actions that need no conversation (also a notification's buttons when no folder is open). */
  private runWindowAction(action: PanelAction, arg?: string): void {
    switch (action) {
      case 'openLog':
        return this.log.show(true);
      case 'openFolder':
        return void vscode.commands.executeCommand('workbench.action.files.openFolder');
      case 'manageTrust':
        return void vscode.commands.executeCommand('workbench.trust.manage');
      case 'openSettings':
        return void (arg === undefined ? openAgentSettings() : vscode.commands.executeCommand('workbench.action.openSettings', arg));
      default:
        this.log.warn(`${action}: no conversation to act on`);
    }
  }

  /**
   * A notice's button, the header's, or a notification's. An argument comes from the webview too,
   * so an action with one runs only when a notice of this conversation offers exactly that button
   * (the webview cannot make the install button run another agent's install command).
   */
  private runAction(conversation: FolderConversation, action: PanelAction, arg?: string): void {
    if (arg !== undefined && !offersAction(conversation.transcript.entries, action, arg)) {
      this.log.warn(`Panel action ${action} (${arg.slice(0, 100)}) refused: no notice offers it`);
      return;
    }
    switch (action) {
      case 'openLog':
      case 'openFolder':
      case 'manageTrust':
      case 'openSettings':
        return this.runWindowAction(action, arg);
      case 'aboutStop':
        return void vscode.env.openExternal(vscode.Uri.parse(STOP_README_URL));
      case 'checkAgain':
        return void conversation.checkAgain();
      case 'forceStop':
        return void conversation.forceStop();
      case 'endLeftovers':
        return void conversation.endLeftovers();
      case 'undoTurn':
        return void conversation.undoTurn();
      case 'newSession':
        return void vscode.commands.executeCommand('reins.newSession');
      case 'selectAgent':
        return void vscode.commands.executeCommand('reins.selectAgent');
      case 'restartAgent':
        // The user's restart: the automatic restarts after a crash may be used again.
        conversation.keeper.crashes.reset();
        return void vscode.commands.executeCommand('reins.restartAgent');
      // The panel header's mode and model: the pickers, for this panel's folder.
      case 'setMode':
        return void vscode.commands.executeCommand('reins.setMode', conversation.folder.uri);
      case 'selectModel':
        return void vscode.commands.executeCommand('reins.selectModel', conversation.folder.uri);
      case 'signIn':
        return void conversation.signIn.choose(arg);
      case 'installAgent':
      case 'copyInstall': {
        const name = arg ?? conversation.agentName;
        return installAction(name, resolveAgent(this.context.extensionPath, name)?.entry.command, action, (...a) => conversation.say(...a));
      }
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
    const conversation = this.conversations.get(key);
    if (!conversation) return;
    // An exit path: the folder is gone, so its turn stops through the routine, then the agent ends.
    await conversation.shutdown('folder-removed', runtimeSettings().settleTimeoutMs);
    this.panels.get(key)?.dispose();
    conversation.dispose();
    this.conversations.delete(key);
    this._onDidChange.fire();
  }

  /** Deactivation: every running turn stops with a short budget, then every agent tree ends. */
  async shutdown(): Promise<void> {
    await Promise.all(this.allConversations().map((s) => s.shutdown('deactivate', DEACTIVATE_BUDGET_MS).catch(() => undefined)));
  }

  dispose(): void {
    // After every stop of the shutdown: the checkouts this window held are free for the others.
    this.locks.releaseAll();
    for (const panel of this.panels.values()) panel.dispose();
    for (const conversation of this.conversations.values()) conversation.dispose();
    for (const d of this.disposables) d.dispose();
    this._onDidChange.dispose();
  }
}
