// What a webview is sent of the transcript: the newest page in a snapshot, then each op of the
// entries it holds (transcriptPages.ts). While a session/load replays the conversation (after a
// reload, for an agent that offers load but not resume), nothing: the webview keeps what it shows,
// and at the replay's end gets one snapshot of the newest page, marked so that it keeps the
// reader's place. Posting the replay op by op sent a 200,000-update session to the webview
// update by update, after an empty snapshot that took the reader to the end. A webview that
// starts while the replay runs (the window reloaded: its agent replays the session as the panel
// comes back) gets the page there was before the replay, so it shows the conversation and the
// reader's place at once instead of after the whole replay (4.6 s for a 100-turn session in
// the long bench). Pure: no `vscode`.
import type { Transcript, TranscriptOp } from '../runtime/transcript';
import type { HostToWebview, PanelStatus, TranscriptEntry } from '../shared/messages';
import { FIRST_PAGE_CHARS, FIRST_PAGE_ENTRIES, pageStart, ShownPages } from './transcriptPages';

type Source = Pick<Transcript, 'length' | 'slice' | 'indexOf' | 'replaying'>;

/** A snapshot's transcript part. `replaying`: a replay runs, its end comes in a snapshot of its own. */
export interface NewestPage {
  entries: TranscriptEntry[];
  earlier: number;
  replaying?: true;
}

export class TranscriptSender {
  /** Which of the transcript's entries the webview holds: it gets them in pages, newest first. */
  private readonly pages = new ShownPages();
  /** While a replay runs: the newest page as it was before it, what a new document is shown meanwhile. */
  private held: NewestPage | undefined;

  /** `post`: to the webview (dropped before its `ready`); `status`: what a snapshot carries. */
  constructor(
    private readonly transcript: Source,
    private readonly post: (message: HostToWebview) => void,
    private readonly status: () => PanelStatus,
  ) {}

  /** For the snapshot a `ready` gets: the newest page only, the webview asks for the rest. */
  newestPage(): NewestPage {
    // The page before the replay: the webview asks for nothing before it (the replay's end replaces it).
    if (this.transcript.replaying && this.held) return { entries: this.held.entries, earlier: 0 };
    const from = pageStart((i) => this.transcript.slice(i, i + 1)[0]!, this.transcript.length, FIRST_PAGE_CHARS, FIRST_PAGE_ENTRIES, true);
    this.pages.shownFrom(from);
    const page: NewestPage = { entries: this.transcript.slice(from), earlier: from };
    return this.transcript.replaying ? { ...page, replaying: true } : page;
  }

  /** The page before the webview's first entry (`before`); undefined when there is none. */
  earlierPage(before: string): Extract<HostToWebview, { type: 'earlier' }> | undefined {
    const end = this.transcript.indexOf(before);
    if (end <= 0) return undefined;
    const from = this.pageBefore(end);
    this.pages.shownFrom(from);
    return { type: 'earlier', before, entries: this.transcript.slice(from, end), earlier: from };
  }

  /**
   * The webview let go of the entries before `first`: their ops are no longer posted (they come
   * again in pages). Only ever forward: a `dropped` of a document a snapshot has since replaced
   * names an entry the webview held 120 and more from the end, before the snapshot's first page
   * (20 at most), or one no longer in the transcript; either way nothing changes.
   */
  dropped(first: string): void {
    const index = this.transcript.indexOf(first);
    if (index > this.pages.from) this.pages.shownFrom(index);
  }

  onOp(op: TranscriptOp): void {
    // The replay's end sends it whole (replayEnded).
    if (this.transcript.replaying) return;
    if (op.type === 'reset') {
      this.pages.shownFrom(0);
      this.post({ type: 'snapshot', status: this.status(), entries: [] });
      return;
    }
    // An entry the webview does not hold yet: the page that brings it carries it as it is then.
    if (this.pages.from > 0 && !this.pages.holds(this.transcript.indexOf(op.type === 'append' || op.type === 'output' ? op.id : op.entry.id))) return;
    this.post(op);
  }

  /** A replay begins (before the transcript is cleared for it): what there is now is kept to show meanwhile. */
  replayStarted(): void {
    // A whole page, not a first one: nothing older can come until the replay ends, and the reader's place must be in it.
    const from = this.pageBefore(this.transcript.length);
    this.held = this.transcript.length > 0 ? { entries: this.transcript.slice(from), earlier: from } : undefined;
  }

  /** A replay ended: `post`, its newest page in one snapshot, at the place the reader had (false: no webview to send it to). */
  replayEnded(post = true): void {
    this.held = undefined;
    if (!post) return;
    const { entries, earlier } = this.newestPage();
    this.post({ type: 'snapshot', status: this.status(), entries, earlier, keepPlace: true });
  }

  private pageBefore(end: number): number {
    return pageStart((i) => this.transcript.slice(i, i + 1)[0]!, end);
  }
}
