// The start of a long text held in the DOM, read without reading the rest. A turn's answer is
// announced to screen readers up to a limit (transcript.ts); taking it as `textContent` built the
// whole answer as one string first, which for a long streamed answer (half a megabyte, 500
// paragraphs) was the frame's longest task when the turn ended (40–50 ms on the streaming
// bench's 2 cores, session 11).

/** At most `max` characters of `pieces` joined and trimmed, and whether the trimmed whole is longer. */
export function leadingText(pieces: Iterable<string>, max: number): { text: string; more: boolean } {
  let text = '';
  for (const piece of pieces) {
    text = text ? text + piece : piece.trimStart(); // white space before the first words never counts
    // Past `max` only when something other than white space is: the trimmed whole is longer.
    if (text.length > max && /\S/.test(text.slice(max))) return { text: text.slice(0, max), more: true };
  }
  return { text: text.trimEnd(), more: false };
}

/** The text of each element (its Text nodes, in the order `textContent` joins them), `separator` between elements. */
export function* textPieces(elements: Iterable<Element>, separator: string): Generator<string> {
  let first = true;
  for (const element of elements) {
    if (!first) yield separator;
    first = false;
    const walker = element.ownerDocument.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) yield (node as Text).data;
  }
}
