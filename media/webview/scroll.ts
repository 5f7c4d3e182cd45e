// Follow the transcript's end while the user is at the bottom; once they scroll up to
// read, leave them there and offer a "jump to latest" button instead.
import { el } from './dom';
import { icon } from './icons';
import { loadState, saveState, type ScrollState } from './vscodeApi';

/** Within this many pixels of the end counts as "at the bottom" (sub-pixel layouts, rounding). */
const SLACK_PX = 24;

export interface AutoScroll {
  /** The floating button; the caller places it. */
  readonly jumpButton: HTMLButtonElement;
  /** Call after the content changed: scrolls to the end if the user was following it. */
  follow(): void;
  /** Scroll to the end and follow again (after a snapshot, after sending). */
  stick(): void;
  /**
   * After the first snapshot of this document: back where the panel was scrolled before it
   * was hidden or the window reloaded (kept in the webview state), else `stick()`. `carried`:
   * the position the conversation had where it moved from (tab ⇄ view), instead.
   */
  settle(carried?: ScrollState): void;
}

export function createAutoScroll(scroller: HTMLElement, content: HTMLElement): AutoScroll {
  let following = true;
  /** The position an earlier document of this panel left (hidden, or the window reloaded); used once. */
  let earlier = loadState().scroll;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  const save = (): void => {
    saveTimer ??= setTimeout(() => {
      saveTimer = undefined;
      const max = scroller.scrollHeight - scroller.clientHeight;
      // `fraction`: the same place in a document of another width (the conversation moved tab ⇄ view).
      saveState({ scroll: { top: scroller.scrollTop, following, fraction: max > 0 ? scroller.scrollTop / max : 0 } });
    }, 200);
  };

  const jumpButton = el('button', 'jump-to-latest icon-button');
  jumpButton.type = 'button';
  jumpButton.title = 'Scroll to latest';
  jumpButton.setAttribute('aria-label', 'Scroll to latest message');
  jumpButton.append(icon('arrowDown'));
  jumpButton.hidden = true;

  const atBottom = (): boolean => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= SLACK_PX;
  const toEnd = (): void => {
    scroller.scrollTop = scroller.scrollHeight;
  };

  // Only user scrolling changes `following`: content growth never fires scroll events,
  // and our own toEnd() lands at the bottom, which keeps following on.
  scroller.addEventListener(
    'scroll',
    () => {
      following = atBottom();
      jumpButton.hidden = following;
      save();
    },
    { passive: true },
  );

  const follow = (): void => {
    if (following) toEnd();
    else jumpButton.hidden = atBottom();
  };
  const stick = (): void => {
    following = true;
    jumpButton.hidden = true;
    toEnd();
  };
  jumpButton.addEventListener('click', stick);
  const settle = (carried?: ScrollState): void => {
    const saved = carried ?? earlier;
    earlier = undefined;
    if (!saved || saved.following) return stick();
    following = false;
    scroller.scrollTop = carried?.fraction !== undefined ? carried.fraction * (scroller.scrollHeight - scroller.clientHeight) : saved.top;
    jumpButton.hidden = atBottom();
  };

  // Layout changes we do not drive (window resize, the composer growing, a <details>
  // opening) also move the end.
  new ResizeObserver(follow).observe(content);
  new ResizeObserver(follow).observe(scroller);

  return { jumpButton, follow, stick, settle };
}
