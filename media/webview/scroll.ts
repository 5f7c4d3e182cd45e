// Follow the transcript's end while the user is at the bottom; once they scroll up to
// read, leave them there and offer a "jump to latest" button instead.
import { el } from './dom';
import { icon } from './icons';
import { keptPlace, settledTop, stillSettling } from './scrollPlace';
import { loadState, saveState, type ScrollState } from './vscodeApi';

/** Within this many pixels of the end counts as "at the bottom" (sub-pixel layouts, rounding). */
const SLACK_PX = 24;
/** A scroll event this soon after the user's wheel, touch or key is theirs (a wheel's smooth scroll lasts about 200 ms). */
const HAND_MS = 500;

export interface AutoScroll {
  /** The floating button; the caller places it. */
  readonly jumpButton: HTMLButtonElement;
  /** Call after the content changed: scrolls to the end if the user was following it. */
  follow(): void;
  /** Scroll to the end and follow again (after a snapshot, after sending). */
  stick(): void;
  /**
   * After a snapshot: at `place`, else (undefined) back where the panel was scrolled before it
   * was hidden or the window reloaded (kept in the webview state, used once), else `stick()`.
   * `carried`: `place` is the position the conversation had where it moved from (tab ⇄ view), in
   * a document of another width (followRule.ts says which).
   * `holdsStart`: this document holds the conversation from its first entry, so a reader who was
   * at the very top is put back there (a distance from the end would move them by whatever was
   * added at the end since, such as a "Resumed the session" notice).
   */
  settle(place: ScrollState | undefined, carried: boolean, holdsStart: boolean): void;
  /**
   * Where the reader is now, to settle() at after a snapshot that replaces the same
   * conversation; undefined while the place an earlier document left is still to be settled.
   */
  place(): ScrollState | undefined;
  /**
   * After each change of the transcript: a place settled at that the document could not show yet
   * is put right again. `drawing`: the snapshot's entries are still being drawn (a long answer
   * takes several frames, and grows below the reader); `earlierLeft`: older entries are still to
   * come (the place may lie in them). Kept until neither holds, or the user scrolls.
   */
  keep(drawing: boolean, earlierLeft: boolean): void;
  /** The view was taken to an entry (Find in Conversation): the reader is there now, not following the end. */
  leave(): void;
}

export function createAutoScroll(scroller: HTMLElement, content: HTMLElement): AutoScroll {
  let following = true;
  // While following, the browser's scroll anchoring is switched off (`.following`, transcript.css):
  // the ResizeObserver below takes the view to the end after every layout anyway, and finding
  // an anchor in every frame of a streaming answer was a cost of its own (ScrollAnchor::FindAnchor
  // in a trace of the streaming bench). A reader who scrolled up keeps it: their place holds
  // while entries above are laid out.
  const setFollowing = (value: boolean): void => {
    following = value;
    scroller.classList.toggle('following', value);
  };
  /** What the webview state last said of following: a position while following says nothing new. */
  let savedFollowing: boolean | undefined;
  /** The position an earlier document of this panel left (hidden, or the window reloaded); used once. */
  let earlier = loadState().scroll;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  const save = (): void => {
    saveTimer ??= setTimeout(() => {
      saveTimer = undefined;
      // Following, the place is "the end", whatever its pixels: settle() sticks to it. Saving
      // it in every 200 ms of a streaming answer posted the state to the workbench 5 times a second.
      if (following && savedFollowing) return;
      savedFollowing = following;
      const max = scroller.scrollHeight - scroller.clientHeight;
      // `fraction`: the same place in a document of another width (the conversation moved tab ⇄ view).
      // `fromEnd`: the same place in a new document, which gets the newest entries first (earlierPages.ts).
      saveState({ scroll: { top: scroller.scrollTop, following, fraction: max > 0 ? scroller.scrollTop / max : 0, fromEnd: max - scroller.scrollTop } });
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

  // Only the user leaving the end stops following: a scroll up, with the transcript's height as
  // it was at the last scroll event or follow(), or with the user's hand on it (wheel, touch, keys, the
  // scrollbar). A scroll event comes a frame after the scroll and reads the layout of then:
  // entries laid out for the first time meanwhile (content-visibility: a real height replaces an
  // estimate) move the end, and the browser moves the view up to keep what is shown in place
  // (scroll anchoring, when an entry above shrinks); neither is the user leaving, and the next
  // follow() (the ResizeObserver below) takes the view back to the end. Scrolling down, whoever
  // did it, brings following back once at the end.
  let lastTop = scroller.scrollTop;
  let lastHeight = scroller.scrollHeight;
  let handUntil = 0;
  let pointerHeld = false;
  /** A place settle() could not show yet (keep() says when it can). */
  let pending: { saved: ScrollState; carried: boolean; holdsStart: boolean } | undefined;
  const hand = (): void => {
    handUntil = performance.now() + HAND_MS;
    pending = undefined; // the user scrolls: their place from now on
  };
  for (const type of ['wheel', 'touchmove', 'keydown'] as const) scroller.addEventListener(type, hand, { passive: true });
  // The scrollbar is the scroller's own: a press on it has the scroller as its target.
  scroller.addEventListener('pointerdown', (event) => {
    if (event.target !== scroller) return;
    pointerHeld = true;
    pending = undefined;
  });
  window.addEventListener('pointerup', () => {
    if (pointerHeld) hand();
    pointerHeld = false;
  });
  scroller.addEventListener(
    'scroll',
    () => {
      const top = scroller.scrollTop;
      const height = scroller.scrollHeight;
      // On the way to a place (keep()): the document is being drawn or filled in, and one that
      // does not fill the panel yet is "at the bottom" without anyone following it (a reload's
      // first page of one small notice became following, and the reader ended at the end).
      if (pending) return void ((lastTop = top), (lastHeight = height));
      const byUser = pointerHeld || performance.now() < handUntil || height === lastHeight;
      setFollowing(top < lastTop && byUser ? atBottom() : following || atBottom());
      lastTop = top;
      lastHeight = height;
      jumpButton.hidden = following;
      save();
    },
    { passive: true },
  );

  const follow = (): void => {
    if (following) toEnd();
    else jumpButton.hidden = atBottom();
    // The height this layout has: a scroll event that finds it unchanged is the user's.
    lastHeight = scroller.scrollHeight;
  };
  const stick = (): void => {
    pending = undefined;
    setFollowing(true);
    jumpButton.hidden = true;
    toEnd();
    lastHeight = scroller.scrollHeight;
  };
  jumpButton.addEventListener('click', stick);
  const settle = (place: ScrollState | undefined, carried: boolean, holdsStart: boolean): void => {
    const saved = place ?? earlier;
    earlier = undefined;
    if (!saved || saved.following) return stick();
    setFollowing(false);
    pending = { saved, carried: place !== undefined && carried, holdsStart };
    toPending();
  };
  const toPending = (): void => {
    if (!pending) return;
    const max = scroller.scrollHeight - scroller.clientHeight;
    scroller.scrollTop = settledTop(pending.saved, pending.carried, max, pending.holdsStart, SLACK_PX);
    lastTop = scroller.scrollTop;
    lastHeight = scroller.scrollHeight;
    jumpButton.hidden = atBottom();
  };
  const keep = (drawing: boolean, earlierLeft: boolean): void => {
    if (!pending) return;
    toPending();
    if (!stillSettling(pending.saved, scroller.scrollHeight - scroller.clientHeight, drawing, earlierLeft)) pending = undefined;
  };

  const leave = (): void => {
    pending = undefined;
    setFollowing(false);
    lastTop = scroller.scrollTop;
    lastHeight = scroller.scrollHeight;
    jumpButton.hidden = atBottom();
  };

  const place = (): ScrollState | undefined => {
    if (earlier) return undefined;
    // Still on its way to a place: that place, not the one the drawing left the reader at.
    return keptPlace(pending?.saved, scroller.scrollTop, scroller.scrollHeight - scroller.clientHeight, following);
  };

  // Layout changes we do not drive (window resize, the composer growing, a <details>
  // opening) also move the end.
  setFollowing(following);
  new ResizeObserver(follow).observe(content);
  new ResizeObserver(follow).observe(scroller);

  return { jumpButton, follow, stick, settle, place, keep, leave };
}
