// The shape every per-kind renderer returns. A view owns one `.entry` element and updates
// it in place on upsert, so UI state the user created (an expanded detail, a clicked
// permission button) survives the host's updates.
import type { TranscriptEntry, WebviewToHost } from '../../../src/shared/messages';

export interface RenderContext {
  post(message: WebviewToHost): void;
  /** Focus back to the prompt box (after a permission is answered). */
  focusComposer?(): void;
  /** The user is typing a prompt: a new permission request must not take the keyboard. */
  isTyping?(): boolean;
}

export interface EntryView {
  readonly kind: TranscriptEntry['kind'];
  readonly el: HTMLElement;
  /** Called with an entry of this view's kind (the transcript replaces views whose kind changed). */
  update(entry: TranscriptEntry): void;
  /** Streaming kinds only: add text now, render later (see flush). */
  append?(text: string): void;
  /**
   * Streaming kinds only: bring the DOM up to date with the appended text. `true`: work is
   * left (a long text is rendered over several frames); the transcript calls again next frame.
   */
  flush?(): boolean | void;
  /** Streaming kinds only: no more text will come (the turn ended, or a later entry began). */
  complete?(): void;
  /** The entry's text as it stands, for the screen-reader announcement of a finished answer. */
  readonly text?: string;
  /** Tool cards only: the tool's text output went on by `text` (`total`: the whole output's length). */
  appendOutput?(text: string, total: number): void;
  /** Tool cards only: show (or update) the permission request that asks about this call. */
  attachPermission?(entry: Extract<TranscriptEntry, { kind: 'permission' }>): void;
  /** Tool cards only: show (or update) an elicitation asked during this call. */
  attachElicitation?(entry: Extract<TranscriptEntry, { kind: 'elicitation' }>): void;
  /** Put the keyboard where this entry wants the user (a permission: its first option). */
  focus?(): void;
}

/** The common shell: `div.entry.<kind>[data-id]`. */
export function entryShell(entry: TranscriptEntry): HTMLDivElement {
  const div = document.createElement('div');
  div.className = `entry ${entry.kind}`;
  div.dataset.id = entry.id;
  return div;
}
