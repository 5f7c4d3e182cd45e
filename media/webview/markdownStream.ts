// A streaming answer rendered by blocks: the blocks that are finished are rendered once and
// never again; only the last (open) block is rendered anew as text arrives. So the cost of a
// chunk does not grow with the answer, and a long answer (a 1.8 MB snapshot) is worked through
// a window at a time, a bounded amount per step.
//
// Why a finished block never changes: the split is made at the start of the last top-level
// block. Text appended later can only extend that block or start new ones; markdown-it cannot
// reopen a block that another block followed (a setext underline or a lazy continuation line
// belongs to the block right before it, which is the open one). Parsing from a block's start
// with a fresh block state is therefore the same as parsing the whole text, except for link
// reference definitions, which are carried forward (a definition that comes after its use
// does not reach a block that was already finished).
//
// Pure (no DOM): the unit tests import it under Node; render/agent.ts applies the steps.
import type { Env, Token } from 'markdown-it';
import { normalizeSource, parseMarkdown, renderTokens, type RenderEnv } from './markdown';

/** Source parsed per step (then cut at a line end): bounds the work of one step. */
export const WINDOW_CHARS = 16_384;
/**
 * An open block bigger than this is re-rendered only every ⌈size / this⌉ steps, so that a
 * huge block that keeps growing (a long code block) costs about this much per step too.
 */
export const OPEN_BLOCK_CHARS = 32_768;

export interface StreamStep {
  /** HTML of blocks finished since the last step: to append after the earlier ones, for good. */
  finished: string;
  /** HTML of the open block, replacing the one shown; undefined: keep what is shown. */
  open?: string;
  /**
   * Set once: the answer nests deeper than markdown-it's limit from here on; the rest is shown
   * as text. `plainText` then carries the text to add (this step's share).
   */
  tooDeep?: boolean;
  plainText?: string;
  /** More work waits: call step() again (next frame). */
  more: boolean;
}

export class MarkdownStream {
  // The source is kept in two parts: `head`, rendered for good (it ends where a top-level block
  // starts), and `tail`, the rest. Each step reads only the tail. One string for the whole
  // source made every step copy all of it (slicing a string built by `+=` flattens it first):
  // at 30 steps a second on a 350 KB answer, megabytes of garbage a second, and the renderer's
  // collections it brought.
  private head = '';
  private tail = '';
  /** Whether any text other than white space came: an empty answer shows as such. */
  private hasText = false;
  private references: Env['references'] = {};
  /** The rest of the source is shown as text (nested past the limit). */
  private plain = false;
  /** Source length when the open block was last rendered. */
  private shownUpTo = -1;
  private skipped = 0;
  private completed = false;
  private endsWithCR = false;

  get text(): string {
    return this.head + this.tail;
  }

  /** Only white space so far (or nothing). */
  get blank(): boolean {
    return !this.hasText;
  }

  private get length(): number {
    return this.head.length + this.tail.length;
  }

  append(text: string): void {
    // markdown-it normalises line ends; doing it here keeps offsets the same as its lines.
    // A CRLF split across two chunks must not become two line ends.
    const chunk = this.endsWithCR && text.startsWith('\n') ? text.slice(1) : text;
    this.endsWithCR = text.endsWith('\r') || (this.endsWithCR && text === '');
    this.tail += normalizeSource(chunk);
    this.hasText ||= /\S/.test(chunk);
    this.completed = false;
  }

  /**
   * The whole text, as an upsert brings it. Returns true when it only grew (the stream goes
   * on), false when it changed: the caller must clear what it showed, the stream starts over.
   */
  replace(text: string): boolean {
    const next = normalizeSource(text);
    this.endsWithCR = text.endsWith('\r');
    this.hasText = /\S/.test(next);
    if (next.startsWith(this.text)) {
      if (next.length > this.length) this.completed = false;
      this.tail = next.slice(this.head.length);
      return true;
    }
    this.head = '';
    this.tail = next;
    this.references = {};
    this.plain = false;
    this.shownUpTo = -1;
    this.skipped = 0;
    this.completed = false;
    return false;
  }

  /** No more text will come: the open block is finished too (its code gets highlighted). */
  complete(): void {
    this.completed = true;
  }

  /** Whether step() has anything to do. */
  get pending(): boolean {
    if (this.plain) return this.tail.length > 0;
    return this.shownUpTo !== this.length || (this.completed && this.tail.length > 0);
  }

  step(windowChars = WINDOW_CHARS): StreamStep {
    if (this.plain) return { finished: '', plainText: this.takeTail(this.tail.length), more: false };
    const openSize = this.tail.length;
    if (!this.completed && openSize > OPEN_BLOCK_CHARS && this.shownUpTo >= 0 && ++this.skipped < Math.ceil(openSize / OPEN_BLOCK_CHARS)) {
      return { finished: '', more: true };
    }
    this.skipped = 0;

    // Offsets from here on are in the tail.
    let limit = windowChars;
    for (;;) {
      const windowEnd = limit >= openSize ? openSize : this.lineEndNear(limit);
      const text = this.tail.slice(0, windowEnd);
      const env: RenderEnv = { references: { ...this.references } };
      const tokens = parseMarkdown(text, env);
      if (env.tooDeepLine !== undefined) return this.toPlain(text, tokens, env, env.tooDeepLine);
      const blocks = topLevelBlocks(tokens);
      // One block filling the window may go on past it: look further before deciding.
      if (windowEnd < openSize && blocks.length < 2) {
        limit *= 2;
        continue;
      }
      return this.commit(text, tokens, blocks, env, windowEnd === openSize);
    }
  }

  /** Moves the tail's first `count` characters to the head, and returns them. */
  private takeTail(count: number): string {
    const taken = this.tail.slice(0, count);
    this.head += taken;
    this.tail = this.tail.slice(count);
    return taken;
  }

  private commit(text: string, tokens: Token[], blocks: Block[], env: RenderEnv, reachedEnd: boolean): StreamStep {
    // At the end of a completed stream every block is finished; otherwise all but the last.
    const last = reachedEnd && this.completed ? undefined : blocks[blocks.length - 1];
    // Short of the end there are always two blocks or more (step() looks further until there
    // are). Text with no block at all (blank lines, a definition still arriving) stays open.
    const cut = last ? offsetOfLine(text, last.line) : this.completed ? text.length : 0;
    const finishedTokens = tokens.slice(0, last ? last.token : tokens.length);
    const finished = finishedTokens.length > 0 ? renderTokens(finishedTokens, env) : '';
    this.keepReferences(
      text.slice(0, cut),
      blocks.filter((b) => b.token < finishedTokens.length),
    );
    this.takeTail(cut);
    if (!reachedEnd) return { finished, more: true };
    this.shownUpTo = this.length;
    const open = last ? renderTokens(tokens.slice(last.token), { ...env, open: true }) : '';
    return { finished, open, more: false };
  }

  private toPlain(text: string, tokens: Token[], env: RenderEnv, line: number): StreamStep {
    const finished = renderTokens(tokens, env); // the blocks up to the drop, as far as they got
    this.takeTail(offsetOfLine(text, line));
    this.plain = true;
    return { finished, open: '', tooDeep: true, plainText: this.takeTail(this.tail.length), more: false };
  }

  /** Reference definitions in the finished text (between its blocks), for the blocks after it. */
  private keepReferences(text: string, finished: Block[]): void {
    let from = 0;
    const gaps: string[] = [];
    for (const block of finished) {
      gaps.push(text.slice(from, offsetOfLine(text, block.line)));
      from = offsetOfLine(text, block.endLine);
    }
    gaps.push(text.slice(from));
    for (const gap of gaps) {
      if (/^ {0,3}\[/m.test(gap)) parseMarkdown(gap, { references: this.references }); // first definition wins, as in markdown-it
    }
  }

  /** A cut in the tail near `limit` at a line end: the last one before it, else the first after it. */
  private lineEndNear(limit: number): number {
    const before = this.tail.lastIndexOf('\n', limit - 1);
    if (before >= 0) return before + 1;
    const after = this.tail.indexOf('\n', limit);
    return after === -1 ? this.tail.length : after + 1;
  }
}

interface Block {
  /** Index of its first token. */
  token: number;
  /** Its first line and the line after it, in the parsed text. */
  line: number;
  endLine: number;
}

/** The top-level blocks of a parse: where each starts, by token and by line. */
function topLevelBlocks(tokens: Token[]): Block[] {
  const blocks: Block[] = [];
  tokens.forEach((token, index) => {
    if (token.level === 0 && token.nesting !== -1 && token.map) blocks.push({ token: index, line: token.map[0], endLine: token.map[1] });
  });
  return blocks;
}

/** The offset where line `line` (0-based) of `text` starts; past the last line, the length. */
export function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf('\n', offset);
    if (nl === -1) return text.length;
    offset = nl + 1;
  }
  return offset;
}
