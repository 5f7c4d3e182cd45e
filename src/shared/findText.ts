// How Find in Conversation matches text, on both sides: the host's search
// (runtime/transcriptSearch.ts) and the webview's mark of the match (media/webview/showEntry.ts)
// must agree, or an entry found would show nothing marked.

/** What is looked for: the query trimmed, case ignored; '' finds nothing. */
export function needleOf(query: string): string {
  return query.trim().toLowerCase();
}

/** Where `needle` (from needleOf) first occurs in `text`, case ignored; -1 for nowhere. */
export function findIn(text: string, needle: string): number {
  return text.toLowerCase().indexOf(needle);
}
