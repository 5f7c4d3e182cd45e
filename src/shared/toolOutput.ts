// A tool's text output as a card shows it: its tail, bounded, whatever the output's size. A
// 570 KB line or an output resent whole on every update must cost the panel what a short one
// does: the host keeps the whole output in a file (Open Full Output), the card only the end.
// Shared by the host (the entry it stores and sends) and the webview (the appends it applies).

/** The most of a tool's text output a card holds: its last characters. */
export const OUTPUT_TAIL_CHARS = 16 * 1024;

/**
 * The last `max` characters of `text` (all of it when shorter), never starting inside a
 * surrogate pair: an emoji cut in half would show as a broken glyph.
 */
export function outputTail(text: string, max = OUTPUT_TAIL_CHARS): string {
  if (text.length <= max) return text;
  let start = text.length - max;
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start++;
  return text.slice(start);
}

/** `tail` with `more` appended, bounded the same way (only the end of `more` is read when it is long). */
export function appendTail(tail: string, more: string, max = OUTPUT_TAIL_CHARS): string {
  if (more.length >= max) return outputTail(more, max);
  return outputTail(tail + more, max);
}

/**
 * What `next`, the whole output as an update carries it, adds to `previous`, the output as last
 * seen: the new end when `next` goes on from `previous` (an agent that resends everything on every
 * update), undefined when it says something else (then it replaces it).
 */
export function outputDelta(previous: string, next: string): string | undefined {
  if (next.length < previous.length || !next.startsWith(previous)) return undefined;
  return next.slice(previous.length);
}

/**
 * What a card says it left out: "… 554.3 KB before this" of a text output (`left` characters), "…
 * 48.2 MB of earlier output" of a terminal's (`left` bytes; "… earlier output" from a card saved
 * before its size was kept).
 */
export function cutLabel(left: number | undefined, of: 'text' | 'terminal'): string {
  if (of === 'text') return `… ${sizeLabel(left ?? 0)} before this`;
  return left === undefined ? '… earlier output' : `… ${sizeLabel(left, 'bytes')} of earlier output`;
}

/** "12.3 KB" for what the card leaves out: `size` characters of a text, or bytes of a terminal's output. */
function sizeLabel(size: number, unit: 'characters' | 'bytes' = 'characters'): string {
  if (size < 1000) return `${size} ${size === 1 ? unit.slice(0, -1) : unit}`;
  if (size < 1_000_000) return `${(size / 1000).toFixed(1)} KB`;
  return `${(size / 1_000_000).toFixed(1)} MB`;
}
