// The shape every per-kind renderer returns. A view owns one `.entry` element and updates
// it in place on upsert, so UI state the user created (an expanded detail, a clicked
// permission button) survives the host's updates.
import type { TranscriptEntry, WebviewToHost } from '../../../src/shared/messages';

export interface RenderContext {
  post(message: WebviewToHost): void;
}

export interface EntryView {
  readonly kind: TranscriptEntry['kind'];
  readonly el: HTMLElement;
  /** Called with an entry of this view's kind (the transcript replaces views whose kind changed). */
  update(entry: TranscriptEntry): void;
  /** Streaming kinds only: add text now, render later (see flush). */
  append?(text: string): void;
  /** Streaming kinds only: bring the DOM up to date with the appended text. */
  flush?(): void;
}

/** The common shell: `div.entry.<kind>[data-id]`. */
export function entryShell(entry: TranscriptEntry): HTMLDivElement {
  const div = document.createElement('div');
  div.className = `entry ${entry.kind}`;
  div.dataset.id = entry.id;
  return div;
}
