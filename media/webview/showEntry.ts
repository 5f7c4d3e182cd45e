// Shows an entry that Find in Conversation chose: scrolled to the middle of the panel, the first
// match of what was looked for marked as VS Code marks a find match (a CSS highlight: it neither
// takes the user's selection nor the keyboard), until the user next clicks in the panel or presses
// Escape there, or another entry is shown.

import { findIn, needleOf } from '../../src/shared/findText';

/** The highlight's name (media/styles/transcript.css styles `::highlight(reins-found)`). */
const FOUND = 'reins-found';
/** The entry's class for a moment: where the eye should go, when nothing of it matched (markdown rendered away). */
const FLASH = 'found-flash';
const FLASH_MS = 1_500;

/** Where `query` first occurs (case ignored) in the text under `root`, as a range; undefined if nowhere. */
function firstMatch(root: Node, query: string): Range | undefined {
  const needle = needleOf(query);
  if (!needle) return undefined;
  const nodes: Text[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
  // One string of all the text, and where each node starts in it: a match may span nodes (`**a**b`).
  const starts: number[] = [];
  let text = '';
  for (const node of nodes) {
    starts.push(text.length);
    text += node.data;
  }
  const at = findIn(text, needle);
  if (at < 0) return undefined;
  const place = (offset: number): [Text, number] => {
    let i = starts.length - 1;
    while (i > 0 && starts[i]! > offset) i--;
    return [nodes[i]!, offset - starts[i]!];
  };
  const range = document.createRange();
  range.setStart(...place(at));
  range.setEnd(...place(at + needle.length));
  return range;
}

let clearOnUse: (() => void) | undefined;

/** Scrolls `entry` into the middle of `scroller` and marks the first match of `query` in it. */
export function showEntry(entry: HTMLElement, query: string): void {
  clearOnUse?.();
  const range = firstMatch(entry, query);
  // A closed <details> (a thought, a long output) hides its match: opened, as a find would.
  const details = range?.startContainer.parentElement?.closest('details');
  if (details && !details.open) details.open = true;
  const target = range ?? entry;
  const box = target.getBoundingClientRect();
  const scroller = entry.closest('.scroller') ?? document.scrollingElement;
  if (scroller) {
    const view = scroller.getBoundingClientRect();
    scroller.scrollTop += box.top - view.top - Math.max(0, (view.height - box.height) / 2);
  }
  const highlights = typeof CSS !== 'undefined' && 'highlights' in CSS ? CSS.highlights : undefined;
  if (range && highlights) highlights.set(FOUND, new Highlight(range));
  entry.classList.add(FLASH);
  const flash = setTimeout(() => entry.classList.remove(FLASH), FLASH_MS);
  const onKey = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') clear();
  };
  const clear = (): void => {
    highlights?.delete(FOUND);
    clearTimeout(flash);
    entry.classList.remove(FLASH);
    document.removeEventListener('pointerdown', clear, true);
    document.removeEventListener('keydown', onKey, true);
    clearOnUse = undefined;
  };
  document.addEventListener('pointerdown', clear, true);
  document.addEventListener('keydown', onKey, true);
  clearOnUse = clear;
}
