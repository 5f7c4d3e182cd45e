// Each tool card's text output, kept bounded in the card and whole in the log. Agents send a
// tool's output in its `content`, and many resend all of it on every tool_call_update: 200
// updates of a growing 200 KB output are 20 MB through the transcript. What an update adds to
// the output last seen goes on as that delta only (to the log file, and to the panel as an
// `output` append); the card keeps the tail (shared/toolOutput.ts), so no update costs more
// than its own size, whatever came before. Pure: the log behind `OutputLog` is the host's.
import { appendTail, outputDelta, outputTail } from '../shared/toolOutput';

/** Where each card's whole output goes (outputLog.ts: a file per card); Open Full Output opens it. */
export interface OutputLog {
  /** The card's output is `text` from now on. */
  replace(id: string, text: string): void;
  /** The card's output goes on with `text`. */
  append(id: string, text: string): void;
  /** Card `id` shows terminal `terminalId`: the terminal's whole output is part of the card's. */
  linkTerminal?(id: string, terminalId: string): void;
}

/** What a card shows of its output after an update. */
export interface CardOutput {
  /** The output's end, at most OUTPUT_TAIL_CHARS. */
  tail: string;
  /** The whole output's length. */
  total: number;
  /** Set when the update went on from the output before: what it added. */
  delta?: string;
}

/**
 * Outputs of this many cards are kept whole to compare the next update with (the cards that
 * stream: one or a few at a time); an update of another is a replacement, which is always right.
 */
const COMPARED = 8;

export class ToolOutputs {
  /** The last whole output of the cards most recently updated, oldest first. */
  private readonly last = new Map<string, string>();
  /** Every card's output length (a number per card): ACP v2's appended items go on from it. */
  private readonly totals = new Map<string, number>();

  constructor(private readonly log?: OutputLog) {}

  /** Card `id`'s output is now `text` (all of it, as the update gave it). */
  take(id: string, text: string): CardOutput {
    const previous = this.last.get(id);
    this.last.delete(id); // re-inserted last: the card updated most recently stays longest
    this.last.set(id, text);
    if (this.last.size > COMPARED) this.last.delete(this.last.keys().next().value!);
    const delta = previous === undefined ? undefined : outputDelta(previous, text);
    if (delta === undefined) this.log?.replace(id, text);
    else if (delta) this.log?.append(id, delta);
    this.totals.set(id, text.length);
    return { tail: outputTail(text), total: text.length, ...(delta !== undefined && { delta }) };
  }

  /**
   * ACP v2's `tool_call_content_chunk`: one more content item, `text`, after card `id`'s output
   * (`shown`: the tail the card holds). A new item is a new line, as the items of a whole
   * `content` are joined; only the delta is logged and sent, never the whole again.
   */
  append(id: string, text: string, shown: string | undefined): CardOutput {
    const total = this.totals.get(id);
    if (total === undefined) return this.take(id, text); // the card's first output
    const delta = (total > 0 ? '\n' : '') + text;
    const previous = this.last.get(id);
    if (previous !== undefined) {
      this.last.delete(id);
      this.last.set(id, previous + delta);
    }
    this.totals.set(id, total + delta.length);
    if (delta) this.log?.append(id, delta);
    return { tail: appendTail(shown ?? '', delta), total: total + delta.length, delta };
  }

  /** Card `id` shows terminal `terminalId` (terminalCards.ts). */
  terminalShown(id: string, terminalId: string): void {
    this.log?.linkTerminal?.(id, terminalId);
  }

  clear(): void {
    this.last.clear();
    this.totals.clear();
  }
}
