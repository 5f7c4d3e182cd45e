// Up and Down walk the prompts sent earlier, as in a shell: Up with the caret at the start of
// the box goes back, Down with the caret at the end comes forward, and past the newest the
// draft that was being typed comes back. Pure: the composer hands it the box's text and caret.

/** Prompts kept (in the webview's state, so they survive the panel being hidden). */
const MAX_HISTORY = 100;

export class PromptHistory {
  /** Oldest first. */
  private items: string[];
  /** Position while walking: `items.length` is the draft. */
  private at: number;
  private draft = '';

  constructor(items: readonly string[] = []) {
    this.items = items.slice(-MAX_HISTORY);
    this.at = this.items.length;
  }

  get list(): readonly string[] {
    return this.items;
  }

  /** A prompt was sent: it becomes the newest (once, even when sent twice in a row); the walk ends. */
  add(text: string): void {
    if (text.trim() && this.items[this.items.length - 1] !== text) this.items = [...this.items, text].slice(-MAX_HISTORY);
    this.at = this.items.length;
    this.draft = '';
  }

  /**
   * The text for Up (`-1`) or Down (`+1`), given the box's text and caret; undefined: the key is
   * the textarea's own (the caret is not at the start or end, or there is nowhere to go).
   */
  walk(direction: -1 | 1, text: string, caret: { start: number; end: number }): string | undefined {
    if (caret.start !== caret.end) return undefined;
    if (direction < 0 ? caret.start !== 0 : caret.end !== text.length) return undefined;
    const next = this.at + direction;
    if (next < 0 || next > this.items.length) return undefined;
    if (this.at === this.items.length) this.draft = text; // leaving the draft: keep it
    this.at = next;
    return next === this.items.length ? this.draft : this.items[next];
  }
}
