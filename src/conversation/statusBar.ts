// The status bar item: idle, running, stopping, stop unverified. Derived from the active
// folder's conversation each time something changes; clicking runs what helps in that state.
//
// One clear busy state: while the conversation is in sight, its panel is where the
// eye is (Send has become Stop, one line says what is happening), so the item does not say
// "working" or "stopping" too; it does once the conversation is hidden or closed, where it is
// the only sign that a turn runs. A stop that is not confirmed is shown either way: nothing new
// starts in the folder until the user acts.
import * as vscode from 'vscode';
import { revealInvisibleText } from '../shared/invisibleChars';
import { escapeIcons } from '../util/text';
import type { Conversations } from './conversations';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('reins.status', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly reins: Conversations) {
    this.item.name = 'Reins';
    this.subscription = reins.onDidChange(() => this.update());
    this.update();
    this.item.show();
  }

  update(): void {
    const conversation = this.reins.activeConversation();
    const status = conversation?.status();
    const item = this.item;
    item.backgroundColor = undefined;
    const inSight = conversation !== undefined && this.reins.isInSight(conversation);
    const holder = status?.turn === 'idle' ? status.checkoutWait?.holder : undefined;
    if (status && holder !== undefined && !inSight) {
      // Out of sight, the only sign that a prompt waits for another window; a click ends the wait.
      item.text = `$(watch) ${shown(status.agentName)}: waiting for ${shown(holder)}`;
      item.tooltip = `Reins: your prompt waits for ${holder} in another window to finish its turn in this checkout. Click to stop waiting (the prompt goes back to the input box).`;
      item.command = 'reins.stop';
      return;
    }
    switch (status?.turn) {
      case 'running':
      case 'sending':
        if (inSight) return this.showIdle(status.agentName);
        if (status.waitingOn !== undefined) {
          // Not working: the agent waits for the user's answer, in the conversation.
          item.text = `$(bell-dot) ${shown(status.agentName)}: waiting for you`;
          const asks = status.waitingOn === 'permission' ? 'asks for permission' : 'asks you a question';
          item.tooltip = `Reins: ${status.agentName} ${asks} in ${status.folderName}. Click to answer it.`;
          item.command = 'reins.openPanel';
          break;
        }
        item.text = `$(loading~spin) ${shown(status.agentName)}: working`;
        item.tooltip = `Reins: a turn is running in ${status.folderName}. Click to stop it.`;
        item.command = 'reins.stop';
        break;
      case 'stopping':
        if (inSight) return this.showIdle(status.agentName);
        item.text = `$(loading~spin) ${shown(status.agentName)}: stopping…`;
        item.tooltip = `Reins: waiting for ${status.agentName} to confirm the stop. Click to show the log.`;
        item.command = 'reins.showLog';
        break;
      case 'unverified':
        item.text = `$(warning) ${shown(status.agentName)}: stop unverified`;
        item.tooltip = `Reins: ${status.agentName} did not confirm the stop; no new work starts in ${status.folderName}. Click to force stop it.`;
        item.command = 'reins.forceStop';
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        break;
      default:
        this.showIdle(status?.agentName);
    }
  }

  /** The agent's name (or Reins), opening the conversation: no busy sign. */
  private showIdle(agentName: string | undefined): void {
    this.item.text = agentName ? `$(comment-discussion) ${shown(agentName)}` : '$(comment-discussion) Reins';
    this.item.tooltip = 'Reins: open the agent panel';
    this.item.command = 'reins.openPanel';
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}

/**
 * The agent's name as the status bar shows it: a settings key (a cloned folder's settings may
 * set it), so `$(…)` in it is text, not an icon, and its bidi and zero-width characters are
 * markers, as in the panel.
 */
function shown(agentName: string): string {
  return escapeIcons(revealInvisibleText(agentName));
}
