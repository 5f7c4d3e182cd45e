// The agent panel: a WebviewPanel showing one folder's conversation. It builds the HTML
// (strict CSP, a nonce for our one script, local resources only), waits for the webview's
// `ready` before posting, batches streamed text, and turns webview messages into calls on
// the FolderSession. Closing the panel while a turn runs is an exit path: it stops the turn.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { FolderSession } from '../folderSession';
import type { TranscriptOp } from '../session/transcript';
import { assertNever, type HostToWebview, type PanelAction, type WebviewToHost } from '../shared/messages';
import { Outbox } from './outbox';

export const PANEL_VIEW_TYPE = 'reins.panel';

export class PanelHost implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  /** Batches and snapshots what is posted (see outbox.ts). */
  private readonly outbox: Outbox;
  private ticker: NodeJS.Timeout | undefined;
  private readonly _onDidDispose = new vscode.EventEmitter<void>();
  readonly onDidDispose = this._onDidDispose.event;
  private disposed = false;
  /** The user closed the panel: VS Code disposed it already. */
  private panelGone = false;

  static create(session: FolderSession, extensionUri: vscode.Uri, runAction: (action: PanelAction) => void): PanelHost {
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPE,
      panelTitle(session),
      // Beside the file being edited; where nothing is open, in the editor area itself rather
      // than beside an empty group.
      { viewColumn: vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active, preserveFocus: false },
      {
        ...webviewOptions(extensionUri),
        enableFindWidget: true,
      },
    );
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.svg');
    return new PanelHost(panel, session, extensionUri, runAction);
  }

  /**
   * A panel VS Code restored after a window reload (panelSerializer.ts): its webview options
   * are set again and it gets a fresh document; the webview's own state (draft, scroll
   * position) comes back with it, the transcript with the next snapshot.
   */
  static revive(panel: vscode.WebviewPanel, session: FolderSession, extensionUri: vscode.Uri, runAction: (action: PanelAction) => void): PanelHost {
    panel.webview.options = webviewOptions(extensionUri);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.svg');
    panel.title = panelTitle(session);
    return new PanelHost(panel, session, extensionUri, runAction);
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    readonly session: FolderSession,
    extensionUri: vscode.Uri,
    private readonly runAction: (action: PanelAction) => void,
  ) {
    panel.webview.html = renderHtml(panel.webview, extensionUri);
    this.outbox = new Outbox((message) => void panel.webview.postMessage(message));
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: WebviewToHost) => this.onMessage(m)),
      panel.onDidDispose(() => this.onPanelClosed()),
      panel.onDidChangeViewState(() => {
        // A hidden webview is torn down; it posts `ready` again when shown.
        if (!panel.visible) this.ready = false;
      }),
      session.onDidChange(() => this.onStatusChange()),
      session.transcript.onOp((op) => this.onTranscriptOp(op)),
      session.onRestoreInput((text) => {
        if (this.ready) {
          this.post({ type: 'restoreInput', text });
          session.inputDelivered();
        }
      }),
      session.onNeedsAttention(() => panel.reveal(undefined, true)),
    );
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
    if (this.ready) this.post({ type: 'focusInput' });
  }

  private onMessage(m: WebviewToHost): void {
    if (!m || typeof m !== 'object' || typeof (m as { type?: unknown }).type !== 'string') return;
    switch (m.type) {
      case 'ready': {
        this.ready = true;
        this.outbox.clear(); // the snapshot supersedes anything queued for the old document
        const input = this.session.takePendingInput();
        // `folder`: the webview keeps it in its state, so that a reload brings it back to this folder.
        this.post({ type: 'snapshot', status: this.session.status(), entries: this.session.transcript.entries, input, folder: this.session.key });
        return;
      }
      case 'send':
        if (typeof m.text === 'string') void this.session.send(m.text, 'stopAndSend'); // Enter while a turn runs means "send now"
        return;
      case 'stop':
        void this.session.stop('user');
        return;
      case 'permission':
        if (typeof m.requestId === 'string' && typeof m.optionId === 'string') {
          this.session.runtime?.respondPermission(m.requestId, m.optionId);
        }
        return;
      case 'action':
        this.runAction(m.action);
        return;
      default:
        assertNever(m);
    }
  }

  private onStatusChange(): void {
    this.panel.title = panelTitle(this.session);
    this.post({ type: 'status', status: this.session.status() });
    // While stopping, the status says how long ago the cancel went out: refresh it.
    const stopping = this.session.runtime?.turn.phase === 'stopping';
    if (stopping && !this.ticker) {
      this.ticker = setInterval(() => this.post({ type: 'status', status: this.session.status() }), 500);
    } else if (!stopping && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  private onTranscriptOp(op: TranscriptOp): void {
    if (op.type === 'reset') {
      if (this.ready) this.post({ type: 'snapshot', status: this.session.status(), entries: [] });
      return;
    }
    this.post(op);
  }

  private post(message: HostToWebview): void {
    if (!this.ready || this.disposed) return; // the snapshot on `ready` carries everything
    this.outbox.post(message);
  }

  private onPanelClosed(): void {
    // An exit path: the panel that shows the turn is gone, so the turn stops (one routine).
    const phase = this.session.runtime?.turn.phase;
    if (phase === 'running' || phase === 'waiting') void this.session.stop('panel-closed');
    this.panelGone = true;
    this.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.outbox.clear();
    clearInterval(this.ticker);
    this._onDidDispose.fire();
    this._onDidDispose.dispose();
    for (const d of this.disposables) d.dispose();
    if (!this.panelGone) this.panel.dispose();
  }
}

/** Scripts on; only our own built files (the webview bundle and the stylesheet). */
function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')] };
}

function panelTitle(session: FolderSession): string {
  const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  // The session's title, once the agent gave one (session_info_update).
  const title = session.runtime?.phase === 'ready' ? session.runtime.sessionConfig?.sessionTitle : undefined;
  return `Reins: ${session.agentName}${multi ? ` — ${session.folder.name}` : ''}${title ? `: ${title}` : ''}`;
}

function renderHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const styles = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'styles.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${styles}">
<title>Reins</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
