// The first run. Until the user has an agent (a `reins.agents` entry, a
// `reins.defaultAgent`, or one chosen once in any window), the Reins view shows a welcome with
// *Choose an Agent* and *Try the Demo* instead of starting the demonstration agent unasked; and
// the first time a real agent starts, the conversation says in one line what Stop does, once.
import * as vscode from 'vscode';
import { configuredAgents } from '../agents/agentSettings';
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
