// The `@` word in the prompt box that the file completion completes. Pure.

/**
 * The `@` word the caret is in or just after (`@` at the start or after a space), with where it
 * starts and ends; undefined when the caret is not in one.
 */
export function mentionAt(text: string, caret: number): { query: string; start: number; end: number } | undefined {
  const before = text.slice(0, caret);
  const typed = /(^|\s)@([^\s@]*)$/.exec(before)?.[2];
  if (typed === undefined) return undefined;
  const start = caret - typed.length - 1;
  const rest = /^[^\s]*/.exec(text.slice(caret))?.[0] ?? ''; // matches always, if only the empty string
  return { query: typed + rest, start, end: caret + rest.length };
}
