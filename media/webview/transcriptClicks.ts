// Clicks in the transcript: copy buttons and links come from markdown HTML, so one delegated
// listener on the transcript serves them all.
import type { WebviewToHost } from '../../src/shared/messages';
import { copyCode } from './codeCopy';

export function listenForClicks(root: HTMLElement, post: (message: WebviewToHost) => void): void {
  /**
   * Links in agent text open through the host (`openLink`, checked there, then VS Code's
   * openExternal, which asks about untrusted domains), never by the webview itself.
   */
  const openLink = (event: MouseEvent): void => {
    if (event.type === 'auxclick' && event.button !== 1) return;
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!link || !root.contains(link)) return;
    event.preventDefault();
    event.stopPropagation(); // VS Code's own handler (on the window) would open it unasked
    post({ type: 'openLink', href: link.getAttribute('href') ?? '' });
  };
  root.addEventListener('click', (event) => {
    copyCode(event);
    openLink(event);
  });
  root.addEventListener('auxclick', openLink);
}
