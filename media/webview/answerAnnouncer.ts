// A turn's answer, read to screen readers once when the turn ends: a polite live region beside
// the transcript, set once per finished answer (transcript.ts says when).
import { el } from './dom';
import { leadingText, textPieces } from './leadingText';
import type { EntryView } from './render/index';

/** The longest announcement: past it, the screen reader user reads on in the transcript. */
const MAX_ANNOUNCED_CHARS = 4000;

export class AnswerAnnouncer {
  private readonly region: HTMLElement;

  /** The live region goes right after `transcript`. */
  constructor(transcript: HTMLElement) {
    this.region = el('div', 'visually-hidden answer-announcer');
    this.region.setAttribute('role', 'status');
    this.region.setAttribute('aria-live', 'polite');
    this.region.setAttribute('aria-atomic', 'true');
    transcript.after(this.region);
  }

  /** Reads the turn's answer (the agent's text since the last prompt; `views` in the transcript's order). */
  announce(views: Iterable<EntryView>): void {
    const answer: Element[] = [];
    for (const view of views) {
      if (view.kind === 'user') answer.length = 0;
      // A late entry belongs to an earlier turn (and is in the map's order, not the page's).
      else if (view.kind === 'agent' && view.el.dataset.late === undefined) answer.push(view.el);
    }
    // Only as much as is announced is read (leadingText.ts says why).
    const { text, more } = leadingText(textPieces(answer, '\n'), MAX_ANNOUNCED_CHARS);
    if (!text) return;
    this.region.textContent = more ? `${text}…` : text;
  }
}
