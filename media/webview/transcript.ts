// The list of entries in `#transcript`: one view per entry id, in arrival order.
// Upserts apply at once (they are rare); streamed appends are batched and flushed once
// per animation frame.
import type { TranscriptEntry } from '../../src/shared/messages';
import { createEntryView, type EntryView, type RenderContext } from './render/index';

export class Transcript {
  private readonly views = new Map<string, EntryView>();
  private readonly dirty = new Set<EntryView>();
  private frame: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly root: HTMLElement,
    private readonly ctx: RenderContext,
    /** Called after the DOM changed (auto-scroll, empty state). */
    private readonly onChange: () => void,
  ) {
    // Copy buttons of code blocks come from markdown HTML, so one delegated listener serves them all.
    root.addEventListener('click', (event) => copyCode(event));
  }

  get size(): number {
    return this.views.size;
  }

  reset(entries: TranscriptEntry[]): void {
    this.cancelFlush();
    this.dirty.clear();
    this.views.clear();
    this.root.replaceChildren();
    for (const entry of entries) this.insert(entry);
    this.onChange();
  }

  upsert(entry: TranscriptEntry): void {
    const existing = this.views.get(entry.id);
    if (!existing) {
      this.insert(entry);
    } else if (existing.kind === entry.kind) {
      this.dirty.delete(existing); // the upsert carries the whole text, pending appends included
      existing.update(entry);
    } else {
      const view = createEntryView(entry, this.ctx);
      existing.el.replaceWith(view.el);
      this.dirty.delete(existing);
      this.views.set(entry.id, view);
    }
    this.onChange();
  }

  append(id: string, text: string): void {
    let view = this.views.get(id);
    if (!view) {
      // The host creates streamed entries with an upsert first; if that was lost, showing
      // the text beats dropping it.
      view = this.insert({ kind: 'agent', id, markdown: '' });
    }
    if (!view.append) {
      console.warn(`[reins] append to a ${view.kind} entry ignored`, id);
      return;
    }
    view.append(text);
    this.dirty.add(view);
    this.scheduleFlush();
  }

  private insert(entry: TranscriptEntry): EntryView {
    const view = createEntryView(entry, this.ctx);
    this.views.set(entry.id, view);
    this.root.append(view.el);
    return view;
  }

  private scheduleFlush(): void {
    if (this.frame !== undefined) return;
    this.frame = requestAnimationFrame(() => this.flush());
    // A hidden webview gets no animation frames; the timer makes sure the text still lands.
    this.timer = setTimeout(() => this.flush(), 250);
  }

  private cancelFlush(): void {
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.frame = undefined;
    this.timer = undefined;
  }

  private flush(): void {
    this.cancelFlush();
    for (const view of this.dirty) view.flush?.();
    this.dirty.clear();
    this.onChange();
  }
}

function copyCode(event: MouseEvent): void {
  const target = event.target instanceof Element ? event.target.closest('.code-copy') : null;
  const code = target?.closest('.code-block')?.querySelector('pre > code');
  if (!target || !code) return;
  void navigator.clipboard.writeText(code.textContent ?? '').then(
    () => {
      target.classList.add('copied');
      target.setAttribute('title', 'Copied');
      setTimeout(() => {
        target.classList.remove('copied');
        target.setAttribute('title', 'Copy');
      }, 1500);
    },
    (err: unknown) => console.warn('[reins] copy failed', err),
  );
}
