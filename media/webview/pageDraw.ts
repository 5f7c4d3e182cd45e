// A page of older entries drawn into the transcript a frame's budget at a time (transcript.ts
// applyPrepend says why): oldest entry first, each page's entries in groups of their own, right
// above the entries the panel held before it.
import type { TranscriptEntry } from '../../src/shared/messages';
import { el } from './dom';
import { GROUP_SIZE } from './transcriptGroups';

export class PageDraw {
  private next = 0;
  private group: HTMLElement | undefined;
  /** The ids of the entries drawn with a view of their own, in order. */
  readonly ids: string[] = [];

  constructor(
    private readonly entries: readonly TranscriptEntry[],
    /** How many of the conversation's entries are still before this page. */
    readonly earlier: number,
    private readonly root: HTMLElement,
    /** The first group held before the page came: the page goes above it. */
    private readonly above: Element | null,
  ) {}

  get done(): boolean {
    return this.next >= this.entries.length;
  }

  /**
   * Draws entries until `until` (at least one): `draw` makes an entry's element (undefined: it
   * has none of its own, a request shown inside its card); `newGroup` hears of each group made.
   */
  drawSome(until: number, draw: (entry: TranscriptEntry) => HTMLElement | undefined, newGroup: (group: HTMLElement) => void): void {
    while (!this.done && (this.next === 0 || performance.now() < until)) {
      const entry = this.entries[this.next++]!;
      const drawn = draw(entry);
      if (!drawn) continue;
      this.ids.push(entry.id);
      if (!this.group || this.group.childElementCount >= GROUP_SIZE) {
        this.group = el('div', 'entry-group');
        this.root.insertBefore(this.group, this.above);
        newGroup(this.group);
      }
      this.group.append(drawn);
    }
  }
}
