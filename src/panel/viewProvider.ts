// The Reins view: a webview view in the Reins view container (the secondary side bar where VS
// Code supports it, see the README). There is one per window; it shows one folder's
// conversation at a time (Conversations decides which, conversations.ts). VS Code resolves it when it is first
// shown, also after a window reload, with the webview state the last document saved (its
// folder, draft and scroll position), as the panel serializer does for a tab.
import * as vscode from 'vscode';
import { viewSurface, type Surface } from './surface';

const VIEW_ID = 'reins.view';

export class ReinsViewProvider implements vscode.WebviewViewProvider {
  private surface: Surface | undefined;

  /** `onResolve`: the view is there (first shown, or again after the user removed it). */
  constructor(private readonly onResolve: (surface: Surface, state: unknown) => void) {}

  resolveWebviewView(view: vscode.WebviewView, context: vscode.WebviewViewResolveContext): void {
    const surface = viewSurface(view);
    this.surface = surface;
    view.onDidDispose(() => {
      if (this.surface === surface) this.surface = undefined;
    });
    this.onResolve(surface, context.state);
  }

  /** The view, if VS Code resolved it and the user has not removed it. */
  get current(): Surface | undefined {
    return this.surface;
  }

  /** Opens the view container and shows the view; VS Code resolves it first if it never was. */
  show(): Thenable<unknown> {
    return vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  }

  register(): vscode.Disposable {
    // Not retained when hidden: the webview keeps its draft and scroll position in its state
    // and gets a snapshot when shown again, as the tab does.
    return vscode.window.registerWebviewViewProvider(VIEW_ID, this);
  }
}
