// The first run. Until the user has an agent (a `reins.agents` entry, a
// `reins.defaultAgent`, or one chosen once in any window), the Reins view shows a welcome with
// *Choose an Agent* and *Try the Demo* instead of starting the demonstration agent unasked; and
// the first time a real agent starts, the conversation says in one line what Stop does, once.
import * as vscode from 'vscode';
import { pickAgent } from './agents/picker';
import { configuredAgents, DEMO_AGENT } from './config';
import type { WindowSessions } from './windowSessions';

/** The welcome: a tree view with no items, so that VS Code shows its `viewsWelcome` content. */
export const WELCOME_VIEW_ID = 'reins.welcome';
/** The context key the views' `when` read: the welcome shows, the conversation view hides. */
const FIRST_RUN_KEY = 'reins.firstRun';
const CHOSEN = 'reins.firstRun.agentChosen';
const STOP_EXPLAINED = 'reins.firstRun.stopExplained';
const WELCOME_SHOWN = 'reins.firstRun.welcomeShown';
/** The walkthrough (package.json contributes.walkthroughs), as VS Code names it. */
export const WALKTHROUGH_ID = 'reins-dev.reins#reins.firstRun';
/**
 * The welcome's "Get Started with Reins" link. Not a palette command (VS Code's "Welcome: Open
 * Walkthrough…" is): an activation event of its own in package.json.
 */
export const OPEN_WALKTHROUGH = 'reins.firstRun.openWalkthrough';
/** The README section the one line links to. */
export const STOP_README_URL = 'https://github.com/reins-dev/reins#what-reins-does-on-stop';

export class FirstRun {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;

  constructor(private readonly state: vscode.Memento) {}

  /** No agent yet: the view welcomes instead of starting the demonstration agent. */
  get needsAgent(): boolean {
    const defaultAgent = vscode.workspace.getConfiguration('reins').get<string>('defaultAgent');
    return Object.keys(configuredAgents()).length === 0 && !defaultAgent && !this.state.get<boolean>(CHOSEN, false);
  }

  /** An agent was chosen (the welcome, the picker, the demo): no welcome from now on, in any window. */
  async agentChosen(): Promise<void> {
    if (this.state.get<boolean>(CHOSEN, false)) return;
    await this.state.update(CHOSEN, true);
    this.update();
  }

  update(): void {
    void vscode.commands.executeCommand('setContext', FIRST_RUN_KEY, this.needsAgent);
    this._onDidChange.fire();
  }

  /**
   * Once per user, while there is no agent: the welcome brought into view. The secondary side
   * bar opens on VS Code's default container there (Chat, empty when its AI features are off),
   * so a new user would see at most a "Reins" tab; once shown, VS Code restores the Reins
   * container itself in later windows of the folder.
   */
  takeWelcomeReveal(): boolean {
    if (!this.needsAgent || this.state.get<boolean>(WELCOME_SHOWN, false)) return false;
    void this.state.update(WELCOME_SHOWN, true);
    return true;
  }

  /** Once per user: a real agent started here for the first time. */
  takeStopExplanation(): boolean {
    if (this.state.get<boolean>(STOP_EXPLAINED, false)) return false;
    void this.state.update(STOP_EXPLAINED, true);
    return true;
  }

  dispose(): void {
    this._onDidChange.dispose();
  }
}

export function registerFirstRun(reins: WindowSessions, firstRun: FirstRun): vscode.Disposable[] {
  firstRun.update();
  // Activated at startup (onStartupFinished) for this: a new user's first window shows the welcome unasked.
  if (vscode.workspace.workspaceFolders?.length && firstRun.takeWelcomeReveal()) {
    void vscode.commands.executeCommand(`${WELCOME_VIEW_ID}.focus`);
  }
  const explained = new WeakSet<object>();
  return [
    vscode.window.registerTreeDataProvider<never>(WELCOME_VIEW_ID, { getChildren: () => [], getTreeItem: (e) => e }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('reins.agents') || e.affectsConfiguration('reins.defaultAgent')) firstRun.update();
    }),
    vscode.commands.registerCommand('reins.tryDemo', async () => {
      await firstRun.agentChosen();
      const s = reins.session();
      if (!s) return false;
      reins.openPanel(s.folder);
      return s.agentName === DEMO_AGENT ? (await s.ensureAgent()) !== undefined : s.replaceAgent(DEMO_AGENT, 'switch');
    }),
    // VS Code hides every walkthrough step's picture while its editor is 950 px wide or less: at
    // 1400 px with the Explorer and the Reins view open it is about 730 px, so a new user saw none.
    // The primary side bar makes room (Ctrl+B brings it back); the Reins view stays beside the
    // walkthrough, where its buttons (Try the Demo, Choose an Agent) act.
    vscode.commands.registerCommand(OPEN_WALKTHROUGH, async () => {
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false);
    }),
    vscode.commands.registerCommand('reins.chooseAgent', async () => {
      const s = reins.session();
      if (!s) return false;
      const chosen = await pickAgent(s.agentName, reins.log, (...a) => s.say(...a));
      if (chosen === undefined) return false;
      // Kept as the default, so that the next window starts it too: no settings written by hand.
      if (chosen !== DEMO_AGENT) await vscode.workspace.getConfiguration('reins').update('defaultAgent', chosen, vscode.ConfigurationTarget.Global);
      await firstRun.agentChosen();
      reins.openPanel(s.folder);
      return s.replaceAgent(chosen, 'switch');
    }),
    // The first time a real agent is ready: what Stop does, in one line, with the README's section.
    reins.onDidChange(() => {
      for (const s of reins.allSessions()) {
        const rt = s.runtime;
        if (!rt || rt.phase !== 'ready' || s.status().demo || explained.has(rt)) continue;
        explained.add(rt);
        if (!firstRun.takeStopExplanation()) return;
        s.transcript.notice(
          'info',
          `On Stop, Reins cancels the turn and waits until ${s.agentName} is quiet (its answer, an idle signal or its exit), then says how it ended; nothing new starts in this folder before that.`,
          [{ action: 'aboutStop', label: 'How Stop Works' }],
        );
        return;
      }
    }),
  ];
}
