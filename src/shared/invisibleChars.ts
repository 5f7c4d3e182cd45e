// Agent text shown outside Markdown (tool titles, paths, plan entries, permission options, the
// agent's name, mode and model names) must read as what it is. A bidi control (U+202E makes
// "report\u202Efdp.exe" read "reportexe.pdf") or a zero-width character ("READ\u200BME.md") can
// make a name read as another one, so each is replaced by a visible marker ("⟨RLO⟩") that names
// it; the renderers isolate the rest (dir=auto, unicode-bidi: isolate) so natural right-to-left
// text stays inside its own element. Pure: the unit tests import it under Node.

/** The characters shown as markers, with their short names (as VS Code's editor names them). */
const NAMES: Record<number, string> = {
  0x00ad: 'SHY',
  0x061c: 'ALM',
  0x180e: 'MVS',
  0x200b: 'ZWSP',
  0x200c: 'ZWNJ',
  0x200d: 'ZWJ',
  0x200e: 'LRM',
  0x200f: 'RLM',
  0x202a: 'LRE',
  0x202b: 'RLE',
  0x202c: 'PDF',
  0x202d: 'LRO',
  0x202e: 'RLO',
  0x2060: 'WJ',
  0x2061: 'U+2061',
  0x2062: 'U+2062',
  0x2063: 'U+2063',
  0x2064: 'U+2064',
  0x2066: 'LRI',
  0x2067: 'RLI',
  0x2068: 'FSI',
  0x2069: 'PDI',
  0xfeff: 'BOM',
};

const CANDIDATES = /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/u;
const PICTOGRAPH = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\u{1F1E6}-\u{1F1FF}]|\uFE0F/u;
const LATIN_OR_DIGIT = /[\p{Script=Latin}\p{Nd}]/u;
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;

/** A piece of text: plain, or one invisible character shown as `⟨name⟩`. */
export type TextPiece = { text: string } | { marker: string; code: string };

/**
 * Whether the character at `i` is a joiner doing its ordinary work, which a marker would only
 * break: ZWJ inside an emoji sequence (👩‍💻), ZWNJ between letters of a script that needs it
 * (Persian, the Indic scripts). Between Latin letters or digits either one only hides.
 */
function legitimateJoiner(chars: string[], i: number): boolean {
  const c = chars[i];
  const before = chars[i - 1];
  const after = chars[i + 1];
  if (before === undefined || after === undefined) return false;
  if (c === '\u200D') return PICTOGRAPH.test(before) && PICTOGRAPH.test(after);
  if (c === '\u200C') return LETTER_OR_MARK.test(before) && LETTER_OR_MARK.test(after) && !LATIN_OR_DIGIT.test(before) && !LATIN_OR_DIGIT.test(after);
  return false;
}

/** `text` split into plain pieces and markers; `[{ text }]` (or `[]` for '') when there is nothing to show. */
export function revealInvisible(text: string): TextPiece[] {
  if (!CANDIDATES.test(text)) return text ? [{ text }] : [];
  const chars = [...text];
  const pieces: TextPiece[] = [];
  let plain = '';
  chars.forEach((c, i) => {
    const cp = c.codePointAt(0) ?? 0;
    const name = NAMES[cp];
    if (name === undefined || legitimateJoiner(chars, i)) {
      plain += c;
      return;
    }
    if (plain) pieces.push({ text: plain });
    plain = '';
    pieces.push({ marker: `⟨${name}⟩`, code: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` });
  });
  if (plain) pieces.push({ text: plain });
  return pieces;
}

/** The same as one string (for tooltips and labels, which cannot hold elements). */
export function revealInvisibleText(text: string): string {
  return revealInvisible(text)
    .map((p) => ('text' in p ? p.text : p.marker))
    .join('');
}

/** Whether `text` holds a character that `revealInvisible` would mark. */
export function hasInvisible(text: string): boolean {
  return revealInvisible(text).some((p) => 'marker' in p);
}
