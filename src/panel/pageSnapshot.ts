// The snapshot written into a panel's page (panelHtml.ts): a new document draws the conversation
// at once, and its `ready` names that snapshot instead of asking for one through an extension
// host that may be busy. After a window reload every other extension starts in the same host:
// in the long bench's panel of its own, the snapshot asked for came 0.7–1.1 s after the
// document's start. Pure: no `vscode`.
import type { HostToWebview } from '../shared/messages';

export interface PageSnapshot {
  id: string;
  message: Extract<HostToWebview, { type: 'snapshot' }>;
}

/**
 * JSON for a data block in the page: every `<` escaped, so that no text in it (an agent's
 * `</script>`) can end the block or open a comment; JSON.parse reads \u003c back as `<`.
 */
export function dataBlock(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** Whether a document that says `ready` has what it must show: one panel's page and what happened since it was written. */
export class PageSnapshots {
  private id: string | undefined;
  private stale = false;

  /** A page was set: with a snapshot (its id) or without. */
  written(id: string | undefined): void {
    this.id = id;
    this.stale = false;
  }

  /** The page has a snapshot in it (a new document of it would draw that first). */
  get inPage(): boolean {
    return this.id !== undefined;
  }

  /** Something happened that no document was sent (none was ready). */
  missed(): void {
    this.stale = true;
  }

  /**
   * A document said `ready`, naming the page's snapshot it drew (`first`): true when that is the
   * page's and nothing happened since, so it needs no other. What comes after goes to that
   * document, which another document of the same page would not have: that one asks.
   */
  ready(first: string | undefined): boolean {
    const current = first !== undefined && first === this.id && !this.stale;
    this.stale = true;
    return current;
  }
}
