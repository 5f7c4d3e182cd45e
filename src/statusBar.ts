// The status bar item: idle, running, stopping, stop unverified. Derived from the active
// folder's session each time something changes; clicking runs what helps in that state.
import * as vscode from 'vscode';
import type { Reins } from './reins';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('reins.status', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly reins: Reins) {
    this.item.name = 'Reins';
    this.subscription = reins.onDidChange(() => this.update());
    this.update();
    this.item.show();
  }

  update(): void {
    const session = this.reins.activeSession();
    const status = session?.status();
    const item = this.item;
    item.backgroundColor = undefined;
    switch (status?.turn) {
      case 'running':
      case 'sending':
        item.text = `$(loading~spin) ${status.agentName}: working`;
        item.tooltip = `Reins: a turn is running in ${status.folderName}. Click to stop it.`;
        item.command = 'reins.stop';
        break;
      case 'stopping':
        item.text = `$(loading~spin) ${status.agentName}: stopping…`;
        item.tooltip = `Reins: waiting for ${status.agentName} to confirm the stop. Click to show the log.`;
        item.command = 'reins.showLog';
        break;
      case 'unverified':
        item.text = `$(warning) ${status.agentName}: stop unverified`;
        item.tooltip = `Reins: ${status.agentName} did not confirm the stop; no new work starts in ${status.folderName}. Click to force stop it.`;
        item.command = 'reins.forceStop';
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        break;
      default:
        item.text = status ? `$(comment-discussion) ${status.agentName}` : '$(comment-discussion) Reins';
        item.tooltip = 'Reins: open the agent panel';
        item.command = 'reins.openPanel';
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
