// The copy button of a code block in agent text. The buttons come from markdown HTML, so the
// transcript's one delegated click listener hands each click here.

/** How long a copy button says "Copied" (its check icon) before it is a copy button again. */
const COPIED_MS = 1500;
/** A button's pending "back to Copy": a second click restarts it. */
const copiedTimers = new WeakMap<Element, ReturnType<typeof setTimeout>>();

/**
 * A code block's copy button: the code's text to the clipboard, and the button says so for a
 * moment (a check icon and "Copied"), as VS Code's own code-block toolbars do.
 */
export function copyCode(event: MouseEvent): void {
  const target = event.target instanceof Element ? event.target.closest('.code-copy') : null;
  const code = target?.closest('.code-block')?.querySelector('pre > code');
  if (!target || !code) return;
  const glyph = target.querySelector('.codicon');
  const show = (copied: boolean): void => {
    target.classList.toggle('copied', copied);
    glyph?.classList.toggle('codicon-copy', !copied);
    glyph?.classList.toggle('codicon-check', copied);
    target.setAttribute('title', copied ? 'Copied' : 'Copy');
    target.setAttribute('aria-label', copied ? 'Copied' : 'Copy code');
  };
  void navigator.clipboard.writeText(code.textContent ?? '').then(
    () => {
      show(true);
      clearTimeout(copiedTimers.get(target));
      copiedTimers.set(
        target,
        setTimeout(() => show(false), COPIED_MS),
      );
    },
    (err: unknown) => console.warn('[reins] copy failed', err),
  );
}
