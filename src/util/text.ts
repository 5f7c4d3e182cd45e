/** The text up to its first line break (all of it when it has none). */
export function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}
