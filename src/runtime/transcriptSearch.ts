// Finds text in a whole conversation, for Find in Conversation (conversation/findInConversation.ts).
// The panel holds only the conversation's end and what the reader scrolled to
// (media/webview/pageWindow.ts), so VS Code's Find in the panel reaches only that; this searches
// the transcript itself, settled entries on disk included, a chunk at a time, newest first.
// Pure: no `vscode`.
import { findIn, needleOf } from '../shared/findText';
import type { TranscriptEntry } from '../shared/messages';

/** One entry that holds the text looked for. */
export interface Found {
  id: string;
  kind: TranscriptEntry['kind'];
  /** The entry's place in the conversation (0: the first). */
  index: number;
  /** The user's prompts after it: 0 in the last turn. */
  promptsAfter: number;
  /** The line around the first match, whitespace folded, with where the match is in it. */
  snippet: string;
  at: number;
}

/** Entries read from the transcript at a time (a chunk of a long one comes from disk). */
const CHUNK = 200;
/** Characters of context before the match in a snippet (and about twice that after it). */
const BEFORE = 30;
const SNIPPET = 100;

/** The text of an entry that the panel shows and a search looks in. */
export function entryText(entry: TranscriptEntry): string {
  switch (entry.kind) {
    case 'user':
    case 'notice':
      return entry.text;
    case 'agent':
    case 'thought':
      return entry.markdown;
    case 'tool':
      return [entry.title, entry.detail, entry.terminal?.text, ...(entry.diffs ?? []).flatMap((d) => [d.path, d.newText])].filter(Boolean).join('\n');
    case 'permission':
      return [entry.title, entry.description, entry.command?.command].filter(Boolean).join('\n');
    case 'elicitation':
      return entry.message;
    case 'files':
      return entry.files.map((f) => f.path).join('\n');
    case 'plan':
      return entry.items.map((i) => i.content).join('\n');
  }
}

/** The line of `text` around `from` (a match of `length`), whitespace folded, and where the match is in it. */
export function snippetAround(text: string, from: number, length: number): { snippet: string; at: number } {
  const start = Math.max(0, from - BEFORE);
  const end = Math.min(text.length, Math.max(from + length, start + SNIPPET));
  const head = (start > 0 ? '…' : '') + text.slice(start, from).replace(/\s+/g, ' ').trimStart();
  const rest = text.slice(from, end).replace(/\s+/g, ' ') + (end < text.length ? '…' : '');
  return { snippet: head + rest, at: head.length };
}

/**
 * The entries of `source` whose text holds `query` (case ignored), newest first, at most
 * `limit`. An empty query finds nothing. `source.slice` is read CHUNK entries at a time from
 * the end, so a search that finds enough near the end reads no more.
 */
export function searchTranscript(
  source: { readonly length: number; slice(from: number, to?: number): TranscriptEntry[] },
  query: string,
  limit: number,
): Found[] {
  const needle = needleOf(query);
  const found: Found[] = [];
  if (!needle) return found;
  let prompts = 0;
  for (let end = source.length; end > 0 && found.length < limit; end -= CHUNK) {
    const from = Math.max(0, end - CHUNK);
    const chunk = source.slice(from, end);
    for (let i = chunk.length - 1; i >= 0 && found.length < limit; i--) {
      const entry = chunk[i]!;
      const text = entryText(entry);
      const at = findIn(text, needle);
      if (at >= 0) found.push({ id: entry.id, kind: entry.kind, index: from + i, promptsAfter: prompts, ...snippetAround(text, at, needle.length) });
      if (entry.kind === 'user') prompts++;
    }
  }
  return found;
}
