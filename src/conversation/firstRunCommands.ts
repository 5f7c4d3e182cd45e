// The first run's commands: Try the Demo, Choose an Agent, the welcome view; and what Stop does,
// said once when the first real agent is ready.
import * as vscode from 'vscode';
import { pickAgent } from '../agents/picker';
import { DEMO_AGENT } from '../agents/catalog';
import type { Conversations } from './conversations';
import { FirstRun, WELCOME_VIEW_ID, OPEN_WALKTHROUGH, WALKTHROUGH_ID } from './firstRun';

export function registerFirstRun(reins: Conversations, firstRun: FirstRun): vscode.Disposable[] {
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
      const s = reins.conversation();
      if (!s) return false;
      reins.openPanel(s.folder);
      return s.agentName === DEMO_AGENT ? (await s.ensureAgent()) !== undefined : s.replaceAgent(DEMO_AGENT, 'switch');
    }),
    // VS Code hides every walkthrough step's picture while its editor is 950 px wide or less: at
    // 1400 px with the Explorer and the Reins view open it is about 750 px, so a new user saw none.
    // The primary side bar makes room (Ctrl+B brings it back); the Reins view stays beside the
    // walkthrough, where its buttons (Try the Demo, Choose an Agent) act.
    vscode.commands.registerCommand(OPEN_WALKTHROUGH, async () => {
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false);
    }),
    vscode.commands.registerCommand('reins.chooseAgent', async () => {
      const s = reins.conversation();
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
      for (const s of reins.allConversations()) {
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
