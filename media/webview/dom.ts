// Tiny element helpers. Text goes in through textContent only: agent strings never
// touch innerHTML here (markdown.ts is the one escaped exception).

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
