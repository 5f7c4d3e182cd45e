// Syntax highlighting of finished fenced code blocks, for markdown.ts. highlight.js and its
// languages are a bundle of their own (dist/highlight.js, highlightLanguages.ts), loaded after
// the panel's first paint: in the main bundle they were two fifths of what the page compiled
// before that paint. Code blocks drawn before it arrives are drawn plain and highlighted when
// it does, in idle time. No DOM at load: the unit tests import markdown.ts under Node.

/** Code as highlighted HTML, or undefined (unknown language, too large): the caller escapes it as plain text. */
export type Highlighter = (code: string, lang: string) => string | undefined;

let highlighter: Highlighter | undefined;

/** undefined also while the highlighter has not arrived: the block is drawn plain, highlighted later. */
export function highlightCode(code: string, lang: string): string | undefined {
  return highlighter?.(code, lang);
}

/** The highlighter to use from now on (the unit tests give it highlightLanguages.ts's directly). */
export function useHighlighter(next: Highlighter): void {
  highlighter = next;
}

/**
 * Adds dist/highlight.js's script (`src`; `nonce`: the page's, which the CSP asks of every
 * script), once; when it has run, the code blocks under `root` drawn plain meanwhile are
 * highlighted, a few per idle period.
 */
export function loadHighlighter(src: string, nonce: string, root: HTMLElement): void {
  if (highlighter || document.getElementById('reins-highlight')) return;
  (globalThis as { reinsHighlight?: (h: Highlighter) => void }).reinsHighlight = (h) => {
    useHighlighter(h);
    highlightDrawn(root);
  };
  const script = document.createElement('script');
  script.id = 'reins-highlight';
  script.nonce = nonce;
  script.src = src;
  document.head.append(script);
}

/** The finished code blocks under `root` drawn before the highlighter came (markdown.ts's `language-` class, no `hljs`). */
function highlightDrawn(root: HTMLElement): void {
  // pop(): the newest first, where the reader is.
  const blocks = Array.from(root.querySelectorAll<HTMLElement>('.code-block pre > code[class*="language-"]:not(.hljs)'));
  const next = (deadline: IdleDeadline): void => {
    while (blocks.length > 0 && deadline.timeRemaining() > 1) {
      const code = blocks.pop()!;
      const lang =
        Array.from(code.classList)
          .find((c) => c.startsWith('language-'))
          ?.slice('language-'.length) ?? '';
      const html = code.isConnected ? highlightCode(code.textContent ?? '', lang.toLowerCase()) : undefined;
      if (html === undefined) continue;
      code.innerHTML = html; // highlight.js escapes the text; its spans carry only `hljs-*` classes
      code.classList.add('hljs');
    }
    if (blocks.length > 0) window.requestIdleCallback(next);
  };
  window.requestIdleCallback(next);
}
