// The panel comes back after a window reload: VS Code keeps a `reins.panel` webview's state
// (the webview's own: draft, scroll position, and the folder it showed, which the host sends
// in its snapshot) and, with `onWebviewPanel:reins.panel` activation, hands the panel to this
// serializer. Reins adopts it for that folder; the transcript comes from the workspace's
// storage (sessionKeeper.ts) and the agent starts again, reopening the folder's session.
import * as vscode from 'vscode';
import type { Conversations } from './conversations';
import { PANEL_VIEW_TYPE } from '../panel/panelHost';

export function registerPanelSerializer(reins: Conversations): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
    deserializeWebviewPanel: (panel, state) => revivePanel(reins, panel, state),
  });
}

/** What VS Code calls for each Reins panel it restores (tests call it with a panel of their own). */
export function revivePanel(reins: Conversations, panel: vscode.WebviewPanel, state: unknown): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const key = typeof (state as { folder?: unknown } | undefined)?.folder === 'string' ? (state as { folder: string }).folder : undefined;
  // The folder it showed; a panel from before this state existed, or of a folder since removed, takes the current one.
  const folder = folders.find((f) => f.uri.toString() === key) ?? (folders.length > 0 ? undefined : null);
  if (folder === null) {
    panel.dispose(); // no folder open: nothing to show (the window's folder was closed)
    return Promise.resolve();
  }
  const host = reins.openPanel(folder, panel);
  // As Open Agent Panel does: the agent starts, and with it the folder's session reopens; once
  // the panel has shown the kept conversation. A replay started beside the new document kept the
  // extension host parsing it while the document waited for its snapshot (the 500-turn session's
  // reload: the first snapshot 1,030 ms after the document's start). A tab out of sight has no
  // document yet: its agent starts after AGENT_WAIT_MS all the same.
  if (host && vscode.workspace.isTrusted) {
    void Promise.race([host.firstSnapshot, new Promise((resolve) => setTimeout(resolve, AGENT_WAIT_MS))]).then(() => host.conversation.ensureAgent());
  }
  return Promise.resolve();
}

/** The longest a restored panel's agent waits for the panel's first snapshot. */
const AGENT_WAIT_MS = 1_500;
