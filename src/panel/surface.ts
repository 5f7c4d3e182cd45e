// Where a conversation is shown: an editor tab (WebviewPanel) or the Reins view in the side bar
// (WebviewView). PanelHost talks to either through this one shape, so nothing that posts to
// "the panel" knows or cares which of the two it is.
import * as vscode from 'vscode';

export type SurfaceKind = 'editor' | 'view';

export interface Surface {
  readonly kind: SurfaceKind;
  readonly webview: vscode.Webview;
  readonly visible: boolean;
  /** Shown or hidden: a hidden webview's document is discarded, and posts `ready` again when shown. */
  readonly onDidChangeVisibility: vscode.Event<void>;
  /** Became the active editor / the focused view: the commands act on its folder from then on. */
  readonly onDidBecomeActive: vscode.Event<void>;
  /** The user closed it (the tab closed, the view removed). */
  readonly onDidDispose: vscode.Event<void>;
  /** The tab's title, or the view's description (beside the container's title). */
  setTitle(title: string): void;
  reveal(preserveFocus: boolean): void;
  /**
   * Let go of it without closing what the user sees as "the panel": a tab is closed, the view
   * stays (it is the window's one Reins view; the next conversation moves in).
   */
  release(): void;
}

export function editorSurface(panel: vscode.WebviewPanel): Surface {
  const visibility = new vscode.EventEmitter<void>();
  const active = new vscode.EventEmitter<void>();
  const sub = panel.onDidChangeViewState((e) => {
    visibility.fire();
    if (e.webviewPanel.active) active.fire();
  });
  panel.onDidDispose(() => {
    sub.dispose();
    visibility.dispose();
    active.dispose();
  });
  return {
    kind: 'editor',
    webview: panel.webview,
    get visible() {
      return panel.visible;
    },
    onDidChangeVisibility: visibility.event,
    onDidBecomeActive: active.event,
    onDidDispose: panel.onDidDispose,
    setTitle: (title) => {
      panel.title = title;
    },
    reveal: (preserveFocus) => panel.reveal(undefined, preserveFocus),
    release: () => {
      panel.dispose();
    },
  };
}

export function viewSurface(view: vscode.WebviewView): Surface {
  const visibility = new vscode.EventEmitter<void>();
  const active = new vscode.EventEmitter<void>();
  const sub = view.onDidChangeVisibility(() => {
    visibility.fire();
    if (view.visible) active.fire();
  });
  view.onDidDispose(() => {
    sub.dispose();
    visibility.dispose();
    active.dispose();
  });
  return {
    kind: 'view',
    webview: view.webview,
    get visible() {
      return view.visible;
    },
    onDidChangeVisibility: visibility.event,
    onDidBecomeActive: active.event,
    onDidDispose: view.onDidDispose,
    // The container's title says "Reins"; the description names the agent and the folder.
    setTitle: (title) => {
      view.description = title.replace(/^Reins: /, '');
    },
    reveal: (preserveFocus) => view.show(preserveFocus),
    // The conversation went to a tab: the view says where, instead of showing a document no one updates.
    release: () => {
      view.description = undefined;
      view.webview.html = MOVED_HTML;
    },
  };
}

/** A line of text in the view where no conversation is (no script, nothing from the agent). */
export function noteHtml(text: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"></head>
<body style="font-family: var(--vscode-font-family); color: var(--vscode-descriptionForeground); padding: 0 12px">
<p id="note">${text}</p>
</body></html>`;
}

const MOVED_HTML = noteHtml('The conversation is open in an editor tab. <em>Reins: Move Conversation to Side Bar</em> brings it back here.');
