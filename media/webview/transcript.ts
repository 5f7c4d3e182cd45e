// The list of entries in `#transcript`, in groups of GROUP_SIZE: one view per entry id, in arrival order.
// What the host posts (upserts, streamed appends, a turn's end) waits for the next animation
// frame and is applied there in the order it came, with the streamed text drawn in the same
// frame: the DOM changes at most once per frame, however many messages a frame brings (a
// long answer may take several frames: its view says so).
// The answer of a turn is announced to screen readers once, when the turn ends; links
// open through the host (transcriptClicks.ts). Of a long conversation the panel holds the end and
// what the reader scrolled to (earlierPages.ts, pageWindow.ts); Find in Conversation's choice is
// brought in page by page when it is older (show()).
import type { TranscriptEntry, TurnPhase } from '../../src/shared/messages';
import { AnswerAnnouncer } from './answerAnnouncer';
import { EarlierPages } from './earlierPages';
import { dropFirstGroup, heldGroups, lastGroup, rewarm } from './transcriptGroups';
import { FrameFlush } from './frameFlush';
import { GroupWarmer, unfit, warmGroup } from './groupWarmer';
import { TypingPause } from './typingPause';
import { listenForClicks } from './transcriptClicks';
import { markLate } from './lateLabel';
import { PageDraw } from './pageDraw';
import { showEntry } from './showEntry';
import { createEntryView, type EntryView, type RenderContext } from './render/index';

/**
 * A snapshot's entries are drawn whole before its first paint, as far as this goes (newest
 * first: the reader is at the end); a long answer drawn a budget a frame showed its start and
 * grew below the reader for frames after. The page is small (transcriptPages.ts FIRST_PAGE_CHARS).
 */
const SNAPSHOT_DRAW_MS = 50;
/** A page of older entries is drawn this long a frame (applyPrepend), the rest in the frames after. */
const PAGE_DRAW_MS = 8;

export class TranscriptView {
  /** One view per entry id, in the transcript's order (announce() reads it so). */
  private views = new Map<string, EntryView>();
  /** The transcript's older entries, asked for a page at a time (earlierPages.ts). */
  private readonly earlier: EarlierPages;
  /** The first entry this panel holds: the next older page ends before it. */
  private firstId: string | undefined;
  /**
   * Entries the panel let go (earlierPages.ts): what the host sent of them before it heard is
   * dropped, since they come back whole in the page that brings them again.
   */
  private readonly letGo = new Set<string>();
  /** Permission requests shown inside a tool card: request id → that card's view. */
  private readonly nestedIn = new Map<string, EntryView>();
  private readonly dirty = new Set<EntryView>();
  /** The snapshot's views still being drawn (a long answer takes several frames). */
  private fromSnapshot = new Set<EntryView>();
  /** Keys pressed lately: idle work waits for the user to stop typing (typingPause.ts). */
  private readonly keys = new TypingPause(document);
  /** Applies what came and draws the batched appends, once per animation frame, none in a key's (frameFlush.ts). */
  private readonly flushes = new FrameFlush(
    () => this.flush(),
    undefined,
    () => this.keys.lastKey,
  );
  /**
   * Closed groups, readied in idle time (groupWarmer.ts says why), not while the user types or
   * scrolls: a group takes 17–48 ms to ready, and the pages a reader scrolls up into bring new
   * groups while the scrolling goes on.
   */
  private readonly warmer = new GroupWarmer(
    warmGroup,
    undefined,
    undefined,
    () => this.busy,
    () => this.keys.typing || this.earlier.scrolling,
  );
  /** What the host posted since the last frame, in order. */
  private readonly incoming: (() => void)[] = [];
  /** Inside flush(): what becomes dirty is drawn in this frame, not the next. */
  private flushing = false;
  /** The newest view: a streaming one is complete once another entry follows it. */
  private last: EntryView | undefined;
  private busy = false;
  /** The page being drawn (applyPrepend): its entries, how far it got, and where its groups go. */
  private prepending: PageDraw | undefined;
  /** An entry Find in Conversation chose, until the pages before the first one held bring it (show()). */
  private seeking: { id: string; query: string; shown: () => void } | undefined;
  /** A turn ended: its answer is announced once the DOM holds all of it (the last appends flushed). */
  private announcePending = false;
  /** Reads each finished answer to screen readers, once. */
  private readonly announcer: AnswerAnnouncer;

  constructor(
    readonly root: HTMLElement,
    private readonly ctx: RenderContext,
    /** Called after the DOM changed (auto-scroll, empty state). */
    private readonly onChange: () => void,
  ) {
    listenForClicks(root, (m) => ctx.post(m));
    // Hidden with text still to show: the frame that was asked for will not come.
    document.addEventListener('visibilitychange', () => {
      if (this.dirty.size > 0 || this.incoming.length > 0) this.flushes.schedule();
    });
    // Another width: what fit may not (groupWarmer.ts); every closed group is readied again.
    let width: number | undefined;
    new ResizeObserver(([e]) => {
      const w = e?.contentRect.width;
      if (w === undefined || w === width) return;
      if (width !== undefined) rewarm(this.root, (g) => this.warmer.add(g));
      width = w;
    }).observe(root);
    this.earlier = new EarlierPages(
      root.parentElement ?? root,
      { first: () => this.firstId, held: () => heldGroups(root, this.views.size), dropFirstGroup: () => this.dropFirstGroup() },
      (m) => ctx.post(m),
      // While seeking, the pages it asks for stay: no group goes; nor while a page is drawn.
      () => !this.busy && !this.keys.typing && !this.seeking && !this.prepending,
    );
    this.announcer = new AnswerAnnouncer(root);
  }

  /** Whether the last snapshot's entries are still being drawn: the document's height is not final yet. */
  get drawing(): boolean {
    return this.fromSnapshot.size > 0;
  }

  /** Entries of the conversation before the first one this panel holds (they come in pages). */
  get earlierLeft(): number {
    return this.earlier.remaining;
  }

  /** Entries of the conversation itself: Reins' own notices do not count (the empty state shows beside them). */
  get size(): number {
    let n = 0;
    for (const view of this.views.values()) if (view.kind !== 'notice') n++;
    return n;
  }

  /**
   * A snapshot: the transcript as the host has it now, so what waited for a frame is in it; its
   * newest entries, with `earlier` more before them, which come in pages (earlierPages.ts).
   */
  reset(entries: TranscriptEntry[], earlier = 0): void {
    this.flushes.cancel();
    this.warmer.clear();
    this.incoming.length = 0;
    this.dirty.clear();
    this.views.clear();
    this.nestedIn.clear();
    this.letGo.clear();
    this.seeking = undefined;
    this.prepending = undefined;
    this.last = undefined;
    this.announcePending = false;
    this.root.replaceChildren();
    for (const entry of entries) this.insert(entry, true);
    // A snapshot's answers are whole, except the last one while its turn still runs.
    if (!this.busy) this.completeLast();
    const until = performance.now() + SNAPSHOT_DRAW_MS;
    for (const view of [...this.dirty].reverse()) {
      let more: boolean | void = true;
      while (more === true && performance.now() < until) more = view.flush?.();
      if (more !== true) this.dirty.delete(view);
    }
    this.fromSnapshot = new Set(this.dirty);
    this.firstId = entries[0]?.id;
    this.earlier.set(earlier);
    this.onChange();
  }

  /** The page of entries before `before` (the first held), and how many are still before it. */
  prepend(before: string, entries: TranscriptEntry[], earlier: number): void {
    if (!this.earlier.wants(before)) return; // a snapshot came after it was asked for
    this.later(() => this.applyPrepend(before, entries, earlier));
  }

  /**
   * Shows entry `id` with `query` marked in it (showEntry.ts), after the pages before the first
   * one held bring it; then `shown` (the view is no longer at the end).
   */
  show(id: string, query: string, shown: () => void): void {
    this.later(() => {
      this.seeking = { id, query, shown };
      this.seek();
    });
  }

  /** `before`: a new entry goes before that entry (a stopped turn's late update), not at the end. */
  upsert(entry: TranscriptEntry, before?: string): void {
    this.later(() => this.applyUpsert(entry, before));
  }

  append(id: string, text: string): void {
    this.later(() => this.applyAppend(id, text));
  }

  /** A tool card's output went on (only what is new: the card keeps its tail). */
  output(id: string, text: string, total: number): void {
    this.later(() => this.applyOutput(id, text, total));
  }

  /** The turn's phase from each status: when a turn ends, its answer is complete and announced. */
  setTurn(phase: TurnPhase): void {
    const busy = phase === 'sending' || phase === 'running' || phase === 'stopping';
    const ended = this.busy && !busy;
    this.busy = busy;
    // After what came before it: the answer's last appends may still be waiting.
    if (ended) this.later(() => this.applyTurnEnd());
    if (ended) this.earlier.grew();
  }

  private later(apply: () => void): void {
    this.incoming.push(apply);
    this.flushes.schedule();
  }

  private applyUpsert(entry: TranscriptEntry, before: string | undefined): void {
    if (this.isLetGo(entry.id, before, 'toolCallId' in entry ? entry.toolCallId : undefined)) return;
    if ((entry.kind === 'permission' || entry.kind === 'elicitation') && this.nest(entry)) return;
    const existing = this.views.get(entry.id);
    const anchor = before === undefined ? undefined : this.views.get(before);
    if (!existing && anchor) {
      this.insertBefore(entry, anchor);
    } else if (!existing) {
      this.insert(entry);
    } else if (existing.kind === entry.kind) {
      this.dirty.delete(existing); // the upsert carries the whole text, pending appends included
      this.unfitChanged(existing); // its new text may be wider
      existing.update(entry);
      if (existing.flush) this.markDirty(existing); // a long text goes on over the next frames
    } else {
      const view = createEntryView(entry, this.ctx);
      existing.el.replaceWith(view.el);
      this.dirty.delete(existing);
      this.views.set(entry.id, view);
      if (this.last === existing) this.last = view;
    }
    const view = this.views.get(entry.id);
    if (view) markLate(view.el, entry);
  }

  /**
   * Older entries go above the first group, in groups of their own, where the user is not: the
   * place the user reads stays where it is on screen (its distance from the end is kept). A page
   * is drawn PAGE_DRAW_MS a frame, oldest entry first, right above the entries held before it, so
   * that a reader scrolling up into it (the page window brings pages as they near the top) is not
   * held for a whole page of 60 at once. In the webview:scroll bench its gain did not stand out
   * from the runs' spread (BENCHMARKS.md).
   */
  private applyPrepend(before: string, entries: TranscriptEntry[], earlier: number): void {
    if (this.firstId !== before || this.prepending) return;
    this.prepending = new PageDraw(entries, earlier, this.root, this.root.firstElementChild);
    this.firstId = entries[0]?.id ?? this.firstId;
    this.prependSome();
  }

  /** One frame's part of the page being drawn; the rest goes on next frame, then the page is done. */
  private prependSome(): void {
    const job = this.prepending;
    if (!job) return; // a snapshot replaced the transcript meanwhile
    const until = performance.now() + PAGE_DRAW_MS;
    this.earlier.keepPlace(() =>
      job.drawSome(
        until,
        (entry) => {
          this.letGo.delete(entry.id);
          if (entry.kind === 'permission' && this.nest(entry, true)) return undefined;
          const view = createEntryView(entry, this.ctx);
          markLate(view.el, entry);
          this.views.set(entry.id, view);
          view.complete?.(); // an older entry is whole
          if (view.flush) this.markDirty(view);
          return view.el;
        },
        (group) => this.warmer.add(group),
      ),
    );
    if (!job.done) return this.later(() => this.prependSome());
    // Done: the page's views first in the map, as in the transcript (they went in at its end).
    this.prepending = undefined;
    const page = new Map(job.ids.map((id) => [id, this.views.get(id)!]));
    for (const [id, view] of this.views) if (!page.has(id)) page.set(id, view);
    this.views = page;
    this.earlier.set(job.earlier);
    this.seek();
  }

  /** The entry sought is held: shown. Else the page before is asked for, unless there is none (it is not in this conversation). */
  private seek(): void {
    if (!this.seeking) return;
    const { id, query, shown } = this.seeking;
    const el = (this.views.get(id) ?? this.nestedIn.get(id))?.el;
    if (el) {
      this.seeking = undefined;
      showEntry(el, query);
      shown();
    } else if (!this.earlier.askNow()) this.seeking = undefined;
  }

  private applyAppend(id: string, text: string): void {
    if (this.letGo.has(id)) return;
    let view = this.views.get(id);
    if (!view) {
      // The host creates streamed entries with an upsert first; if that was lost, showing
      // the text beats dropping it.
      view = this.insert({ kind: 'agent', id, markdown: '' })!;
    }
    if (!view.append) {
      console.warn(`[reins] append to a ${view.kind} entry ignored`, id);
      return;
    }
    view.append(text);
    this.unfitChanged(view);
    this.markDirty(view);
  }

  private applyOutput(id: string, text: string, total: number): void {
    if (this.letGo.has(id)) return;
    const view = this.views.get(id);
    if (!view?.appendOutput) return void console.warn('[reins] output for an entry that is not a tool card ignored', id);
    view.appendOutput(text, total);
    this.unfitChanged(view);
    this.markDirty(view);
  }

  /** Whether an op is about entries the panel let go (or goes before one): the page that brings them carries it. */
  private isLetGo(...ids: (string | undefined)[]): boolean {
    return this.letGo.size > 0 && ids.some((id) => id !== undefined && this.letGo.has(id));
  }

  /** Lets the oldest group go (earlierPages.ts says when); how many of the conversation's entries went. */
  private dropFirstGroup(): number {
    const gone = dropFirstGroup(this.root, this.views, this.nestedIn);
    for (const view of gone.views) {
      this.dirty.delete(view);
      this.fromSnapshot.delete(view);
    }
    for (const id of gone.ids) this.letGo.add(id);
    this.firstId = gone.first ?? this.firstId;
    return gone.ids.length;
  }

  private applyTurnEnd(): void {
    this.completeLast();
    // Announced once the answer is drawn whole (flush(), after its last slice).
    this.announcePending = true;
  }

  /**
   * A permission request goes into the card of the tool call it asks about, when that card is
   * shown; false: it gets an entry of its own. A new request that waits takes the keyboard,
   * unless the user is typing a prompt.
   */
  private nest(entry: Extract<TranscriptEntry, { kind: 'permission' | 'elicitation' }>, initial = false): boolean {
    const card = this.nestedIn.get(entry.id) ?? (entry.toolCallId !== undefined ? this.views.get(entry.toolCallId) : undefined);
    if (!card?.attachPermission || !card.attachElicitation) return false;
    const isNew = !this.nestedIn.has(entry.id);
    this.nestedIn.set(entry.id, card);
    if (entry.kind === 'permission') card.attachPermission(entry);
    else card.attachElicitation(entry);
    if (isNew && !initial && entry.resolved === undefined && !this.ctx.isTyping?.()) card.focus?.();
    return true;
  }

  private insert(entry: TranscriptEntry, initial = false): EntryView | undefined {
    if ((entry.kind === 'permission' || entry.kind === 'elicitation') && this.nest(entry, initial)) return undefined;
    this.completeLast(); // a new entry ends the streaming of the one before it
    const view = createEntryView(entry, this.ctx);
    markLate(view.el, entry);
    this.views.set(entry.id, view);
    lastGroup(this.root, (g) => this.warmer.add(g)).append(view.el);
    if ((entry.kind === 'permission' || entry.kind === 'elicitation') && !initial && entry.resolved === undefined && !this.ctx.isTyping?.()) view.focus?.();
    this.last = view;
    if (view.flush) this.markDirty(view);
    return view;
  }

  /**
   * A late entry inside an earlier turn's part: the stream at the end goes on (it is not the
   * newest entry), and its own text is complete as far as the panel knows (appends still land).
   */
  private insertBefore(entry: TranscriptEntry, anchor: EntryView): void {
    const view = createEntryView(entry, this.ctx);
    markLate(view.el, entry);
    this.views.set(entry.id, view);
    anchor.el.before(view.el);
    if (view.flush) this.markDirty(view);
  }

  /**
   * A changed entry's scrollers are no longer known to fit. Only closed groups hold any found to
   * (groupWarmer.ts), so the entry that streams, in the last group, costs no search per append.
   */
  private unfitChanged(view: EntryView): void {
    if (view.el.parentElement !== this.root.lastElementChild) unfit(view.el);
  }

  private completeLast(): void {
    if (!this.last?.complete) return;
    this.last.complete();
    this.markDirty(this.last);
  }

  private announceOnce(): void {
    this.announcePending = false;
    this.announcer.announce(this.views.values());
  }

  private markDirty(view: EntryView): void {
    this.dirty.add(view);
    if (!this.flushing) this.flushes.schedule();
  }

  private flush(): void {
    this.flushing = true;
    for (const apply of this.incoming.splice(0)) {
      try {
        apply();
      } catch (err) {
        // One bad message must not take the rest of the frame down with it.
        console.error('[reins] failed to apply a transcript update', err);
      }
    }
    this.flushing = false;
    const views = [...this.dirty];
    this.dirty.clear();
    for (const view of views) if (view.flush?.() === true) this.dirty.add(view);
    for (const view of this.fromSnapshot) if (!this.dirty.has(view)) this.fromSnapshot.delete(view);
    if (this.dirty.size > 0)
      this.flushes.schedule(); // a long answer goes on next frame
    else if (this.announcePending) this.announceOnce();
    this.onChange();
  }
}
