// Tiny element helpers. Text goes in through textContent only: agent strings never
// touch innerHTML here (markdown.ts is the one escaped exception).
import { revealInvisible } from '../../src/shared/invisibleChars';
import { pathParts } from './cardModel';

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function button(className: string, label: string, onClick: (event: MouseEvent) => void): HTMLButtonElement {
  const b = el('button', className);
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

/** For screen readers only (e.g. a plan item's state, which sighted users read from the icon). */
export function srOnly(text: string): HTMLSpanElement {
  return el('span', 'visually-hidden', text);
}

/**
 * Agent text outside Markdown (a tool's title, a path, a plan entry, an option, the agent's
 * name): bidi controls and zero-width characters shown as markers (invisibleChars.ts), the text
 * isolated from what surrounds it. `dir`: 'auto' for prose (right-to-left text reads as such),
 * 'ltr' for paths and commands (they read left to right, as in the editor).
 */
export function agentText<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string | undefined,
  text: string,
  dir: 'auto' | 'ltr' = 'auto',
): HTMLElementTagNameMap[K] {
  const node = el(tag, className);
  node.dir = dir;
  setAgentText(node, text);
  return node;
}

/** Replaces `node`'s content with `text`, its invisible characters as markers. */
export function setAgentText(node: HTMLElement, text: string): void {
  const pieces = revealInvisible(text);
  if (pieces.length === 1 && 'text' in pieces[0]!) {
    node.textContent = pieces[0].text;
    return;
  }
  node.replaceChildren(
    ...pieces.map((p) => {
      if ('text' in p) return document.createTextNode(p.text);
      const mark = el('span', 'invisible-char', p.marker);
      mark.title = `An invisible character (${p.code}) in the agent's text`;
      return mark;
    }),
  );
}

/**
 * A path (or a file's name with its line) as text that breaks only after a separator (`/`, `\`),
 * never inside a name ("reins-demo-" / "notes.md" at its hyphen): each part unbreakable
 * (`.path-part`, base.css), a <wbr> after each separator. Invisible characters as markers.
 */
export function setPathText(node: HTMLElement, path: string): void {
  node.replaceChildren();
  pathParts(path).forEach((part, i) => {
    if (i > 0) node.append(el('wbr'));
    const span = el('span', 'path-part');
    setAgentText(span, part);
    node.append(span);
  });
  node.dir = 'ltr';
}
