// The agent panel: one folder's conversation in a webview, an editor tab or the Reins view
// (surface.ts: this file does not care which). It sets the page (panelHtml.ts: a strict CSP, one
// nonce, local resources only), waits for the webview's `ready` before posting, batches streamed
// text, and turns webview messages into calls on the PanelConversation. Closing the panel
// while a turn runs is an exit path: it stops the turn. Moving it (tab ⇄ view) is not.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { whenBusySetting } from '../config';
import { assertNever, type CarriedState, type GivenBack, type HostToWebview, type PanelAction, type WebviewToHost } from '../shared/messages';
import { checkLink } from './linkCheck';
import { Outbox } from './outbox';
import { editorSurface, type Surface } from './surface';
import { handleEditorRequest } from './panelRequests';
import { answerElicitation } from './elicitationAnswer';
import { checkWebviewMessage, MAX_TEXT } from './webviewInput';
import { TranscriptSender } from './transcriptSender';
import { renderHtml } from './panelHtml';
import { PageSnapshots } from './pageSnapshot';
import type { PanelConversation } from './panelConversation';

export const PANEL_VIEW_TYPE = 'reins.panel';
/** This extension host's id: a webview that saw a queue under another (a reload took it) gives that text back. */
const HOST_ID = randomBytes(8).toString('hex');

export class PanelHost<C extends PanelConversation = PanelConversation> implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  /** The snapshot written into the page, and whether a document that says `ready` has what it must show. */
  private readonly page = new PageSnapshots();
  /** Batches and snapshots what is posted (see outbox.ts). */
  private readonly outbox: Outbox;
  /** What of the transcript the webview gets: pages, ops, a load's replay in one snapshot (transcriptSender.ts). */
  private readonly sender: TranscriptSender;
  private ticker: NodeJS.Timeout | undefined;
  private readonly _onDidDispose = new vscode.EventEmitter<void>();
  readonly onDidDispose = this._onDidDispose.event;
  private disposed = false;
  /** The user closed the panel: VS Code disposed it already. */
  private panelGone = false;
  private sentFirst: () => void = () => undefined;
  /** Resolves once this panel's document has had its first snapshot (panelSerializer.ts waits for it). */
  readonly firstSnapshot = new Promise<void>((resolve) => (this.sentFirst = resolve));

  /** A new editor tab. `carried`: the draft and scroll position of the place it moved from. */
  static create<C extends PanelConversation>(
    conversation: C,
    extensionUri: vscode.Uri,
    runAction: (action: PanelAction, arg?: string) => void,
    carried?: CarriedState,
  ): PanelHost<C> {
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPE,
      panelTitle(conversation),
      // Beside the file being edited; where nothing is open, in the editor area itself rather
      // than beside an empty group.
      { viewColumn: vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active, preserveFocus: false },
      {
        ...webviewOptions(extensionUri),
        enableFindWidget: true,
      },
    );
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.svg');
    return new PanelHost(editorSurface(panel), conversation, extensionUri, runAction, carried);
  }

  /**
   * A panel VS Code restored after a window reload (panelSerializer.ts): its webview options
   * are set again and it gets a fresh document; the webview's own state (draft, scroll
   * position) comes back with it, the transcript with the next snapshot.
   */
  static revive<C extends PanelConversation>(
    panel: vscode.WebviewPanel,
    conversation: C,
    extensionUri: vscode.Uri,
    runAction: (action: PanelAction, arg?: string) => void,
  ): PanelHost<C> {
    panel.webview.options = webviewOptions(extensionUri);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.svg');
    return new PanelHost(editorSurface(panel), conversation, extensionUri, runAction);
  }

  /** The Reins view (viewProvider.ts), given this folder's conversation. */
  static inView<C extends PanelConversation>(
    surface: Surface,
    conversation: C,
    extensionUri: vscode.Uri,
    runAction: (action: PanelAction, arg?: string) => void,
    carried?: CarriedState,
  ): PanelHost<C> {
    surface.webview.options = webviewOptions(extensionUri);
    return new PanelHost(surface, conversation, extensionUri, runAction, carried);
  }

  /** What the webview last said about its draft and scroll position: carried along on a move. */
  private uiState: CarriedState | undefined;

  private constructor(
    readonly surface: Surface,
    readonly conversation: C,
    private readonly extensionUri: vscode.Uri,
    private readonly runAction: (action: PanelAction, arg?: string) => void,
    /** Given to the first snapshot: the new document takes the draft and scroll of the old place. */
    private carried?: CarriedState,
  ) {
    this.uiState = carried;
    const webview = surface.webview;
    this.outbox = new Outbox((message) => void webview.postMessage(message));
    this.sender = new TranscriptSender(
      conversation.transcript,
      (message) => this.post(message),
      () => this.conversation.status(),
    );
    this.setTitle();
    this.disposables.push(
      webview.onDidReceiveMessage((raw: unknown) => this.onRaw(raw)),
      surface.onDidDispose(() => this.onPanelClosed()),
      surface.onDidChangeVisibility(() => {
        // A hidden webview is torn down; it posts `ready` again when shown.
        if (surface.visible) return;
        this.ready = false;
        // Its next document would draw the page's snapshot, from before, until a new one came.
        if (this.page.inPage) this.setPage(false);
      }),
      conversation.onDidChange(() => this.onStatusChange()),
      conversation.transcript.onOp((op) => this.sender.onOp(op)),
      conversation.transcript.onReplay((on) => {
        if (!this.ready) this.page.missed();
        if (on) return this.sender.replayStarted();
        if (this.ready) this.outbox.clear(); // the snapshot supersedes what was queued before the replay
        this.sender.replayEnded(this.ready);
      }),
      conversation.input.onReturn((given) => {
        if (this.ready) {
          this.post({ type: 'restoreInput', ...given });
          conversation.input.delivered();
        }
      }),
      conversation.onNeedsAttention(() => surface.reveal(true)),
      // reins.whenBusy changed: Enter while busy follows it at once.
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('reins.whenBusy') && this.onStatusChange()),
    );
    // A document out of sight is not made yet: it asks for its snapshot when shown. A move
    // (`carried`) has its snapshot on `ready`, which takes the carried draft and place.
    this.setPage(surface.visible && !carried);
  }

  /** Sets the page; `withSnapshot`: the conversation as it is now written into it (pageSnapshot.ts). */
  private setPage(withSnapshot: boolean): void {
    const webview = this.surface.webview;
    const first = withSnapshot ? { id: randomBytes(8).toString('hex'), message: this.snapshot() } : undefined;
    this.page.written(first?.id);
    webview.html = renderHtml(webview, this.extensionUri, first);
  }

  /**
   * The whole state for a new document: the newest page only (the webview asks for the rest,
   * transcriptPages.ts); `folder`: the webview keeps it in its state, so that a reload brings it
   * back to this folder.
   */
  private snapshot(extra?: { input?: GivenBack; carried?: CarriedState; keepPlace?: true }): Extract<HostToWebview, { type: 'snapshot' }> {
    return { type: 'snapshot', status: this.conversation.status(), ...this.sender.newestPage(), ...extra, folder: this.conversation.key, host: HOST_ID };
  }

  get kind(): Surface['kind'] {
    return this.surface.kind;
  }

  /** The draft and scroll position to carry to the conversation's next place. */
  get carriedState(): CarriedState | undefined {
    return this.uiState;
  }

  reveal(): void {
    this.surface.reveal(false);
    if (this.ready) this.post({ type: 'focusInput' });
  }

  /** Find in Conversation's choice: posted once this document is ready (after its snapshot, if it gets one). */
  private toShow: { id: string; query: string } | undefined;

  /** Shows entry `id` in the panel, `query` marked in it (the webview brings its page in if it must). */
  showEntry(id: string, query: string): void {
    this.surface.reveal(false);
    this.toShow = { id, query };
    this.postShow();
  }

  private postShow(): void {
    if (!this.ready || !this.toShow) return;
    this.post({ type: 'showEntry', ...this.toShow });
    this.toShow = undefined;
  }

  private setTitle(): void {
    this.surface.setTitle(panelTitle(this.conversation));
  }

  /** Every message from the webview is checked before use (webviewInput.ts); a bad one is logged, never thrown. */
  private onRaw(raw: unknown): void {
    const checked = checkWebviewMessage(raw);
    if (checked.ok) return this.onMessage(checked.message);
    this.conversation.log.warn(`Panel message refused: ${checked.reason}`);
    if (checked.text !== undefined)
      this.conversation.returnInput(
        checked.text,
        `Your prompt is ${checked.text.length.toLocaleString('en')} characters; the limit is ${MAX_TEXT.toLocaleString('en')}. It was not sent; it is back in the input box.`,
      );
  }

  private onMessage(m: WebviewToHost): void {
    switch (m.type) {
      case 'ready': {
        // The snapshot written into this document's page, and nothing since: it has everything.
        const current = this.page.ready(m.first);
        this.ready = true;
        this.outbox.clear(); // the snapshot supersedes anything queued for the old document
        const input = this.conversation.input.take();
        const carried = this.carried;
        this.carried = undefined;
        // After a page's snapshot, this one replaces the same conversation in the same document:
        // the reader stays at the place that one settled (a reload's, from the webview state),
        // which a plain snapshot would take to the end (the reload smoke: "scrolled to 1928 of 1928").
        const keepPlace = m.first !== undefined ? ({ keepPlace: true } as const) : {};
        if (!current || input || carried) this.post(this.snapshot({ input, carried, ...keepPlace }));
        this.sentFirst();
        this.postShow();
        return;
      }
      case 'earlier': {
        // The page before the webview's first entry; none before a snapshot reached it (ready above).
        const page = this.sender.earlierPage(m.before);
        if (page) this.post(page);
        return;
      }
      case 'dropped':
        this.sender.dropped(m.first);
        return;
      case 'uiState':
        this.uiState = { draft: m.draft, scroll: m.scroll };
        return;
      case 'send':
        // Enter while a turn runs: what the user chose in the panel, else reins.whenBusy (`ask`: the question, as a modal).
        void this.conversation.send(m.text, m.whenBusy ?? whenBusySetting(), m.files?.length ? m.files : undefined);
        return;
      case 'editQueued':
        // False: it went out (or back to the box) meanwhile, or the new text is empty.
        if (!this.conversation.runtime?.turns.waiting.edit(m.id, m.text))
          this.conversation.log.info(`Panel: queued prompt #${m.id} not edited: it is no longer queued`);
        return;
      case 'removeQueued':
        this.conversation.runtime?.turns.waiting.remove(m.id); // not sent; its sendPrompt (if any) answers not-sent
        return;
      case 'stop':
        void this.conversation.stop('user');
        return;
      case 'permission':
        this.conversation.runtime?.turns.respondPermission(m.requestId, m.optionId);
        return;
      case 'elicitation':
        answerElicitation(this.conversation, m);
        return;
      case 'action':
        this.runAction(m.action, m.arg);
        return;
      case 'openDiff':
      case 'openFullOutput':
      case 'openLocation':
      case 'searchFiles':
        handleEditorRequest(m, this.conversation, (reply) => this.post(reply), this.conversation.log);
        return;
      case 'openLink': {
        // Agent text is untrusted: the link is checked again here, and VS Code's openExternal
        // asks before opening a domain the user has not trusted.
        const link = checkLink(m.href);
        if (link.ok) void vscode.env.openExternal(vscode.Uri.parse(link.url, true));
        else this.conversation.log.warn(`Link from the panel not opened (${link.reason}): ${String(m.href).slice(0, 200)}`);
        return;
      }
      default:
        assertNever(m);
    }
  }

  private onStatusChange(): void {
    this.setTitle();
    this.post({ type: 'status', status: this.conversation.status() });
    // While stopping, the status says how long ago the cancel went out: refresh it.
    const stopping = this.conversation.runtime?.turns.turn.phase === 'stopping';
    if (stopping && !this.ticker) {
      this.ticker = setInterval(() => this.post({ type: 'status', status: this.conversation.status() }), 500);
    } else if (!stopping && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  private post(message: HostToWebview): void {
    if (!this.ready) this.page.missed();
    if (!this.ready || this.disposed) return; // the snapshot on `ready` carries everything
    this.outbox.post(message);
  }

  private onPanelClosed(): void {
    // An exit path: the panel that shows the turn is gone, so the turn stops (one routine).
    const phase = this.conversation.runtime?.turns.turn.phase;
    // What the agent asks outside a turn (request-scoped) has nobody left to answer it either: after
    // the stop, whose routine answers what waits before its session/cancel.
    const unanswered = () => this.conversation.runtime?.turns.elicitations.cancelAll();
    if (phase === 'running' || phase === 'waiting') void this.conversation.stop('panel-closed').finally(unanswered);
    else unanswered();
    this.panelGone = true;
    this.dispose();
  }

  /** Ends this host; the turn goes on. A tab is closed, the view is left for the next conversation. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.outbox.clear();
    clearInterval(this.ticker);
    this._onDidDispose.fire();
    this._onDidDispose.dispose();
    // Our listeners first: the tab closing below is a move or a shutdown, not the user's close.
    for (const d of this.disposables) d.dispose();
    if (!this.panelGone) this.surface.release();
  }
}

/** Scripts on; only our own built files (the webview bundle and the stylesheet). */
function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')] };
}

function panelTitle(conversation: PanelConversation): string {
  const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  // The session's title, once the agent gave one (session_info_update).
  const title = conversation.runtime?.phase === 'ready' ? conversation.runtime.session.controls.config?.sessionTitle : undefined;
  return `Reins: ${conversation.agentName}${multi ? ` — ${conversation.folder.name}` : ''}${title ? `: ${title}` : ''}`;
}
