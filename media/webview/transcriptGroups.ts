// The transcript's groups: the one new entries go into, readied again at another width, as
// pageWindow.ts's rule sees them (read in idle time: `far` lays the page out, which idle time
// may), and letting the oldest one go.
import { el } from './dom';
import { unfit } from './groupWarmer';
import { FAR_SCREENS, type Held } from './pageWindow';
import type { EntryView } from './render/index';

/**
 * Entries per group in `#transcript`. A group out of sight is skipped by the browser as one
 * (content-visibility, media/styles/transcript.css): on each of thousands of entries, the browser
 * checked every one of them in every frame, and a long transcript scrolled worse than without.
 */
export const GROUP_SIZE = 50;

/** The group new entries go into: the last one, or a new one once it holds GROUP_SIZE (the full one goes to `ready`). */
export function lastGroup(root: HTMLElement, ready: (group: HTMLElement) => void): HTMLElement {
  const last = root.lastElementChild;
  if (last instanceof HTMLElement && last.childElementCount < GROUP_SIZE) return last;
  if (last instanceof HTMLElement) ready(last);
  const group = el('div', 'entry-group');
  root.append(group);
  return group;
}

/** Another width: nothing is known to fit any more, and every closed group goes to `ready` again (groupWarmer.ts). */
export function rewarm(root: HTMLElement, ready: (group: HTMLElement) => void): void {
  unfit(root);
  for (const group of root.children) if (group !== root.lastElementChild) ready(group as HTMLElement);
}

/** Requests still waiting for the user: their group never goes (the answer must stay reachable). */
const WAITING = '.entry.permission:not(.answered), .entry.elicitation:not(.answered)';

/** The oldest group, unless it is the last (the one new entries go into, which never goes). */
function oldestClosed(root: HTMLElement): HTMLElement | undefined {
  const group = root.firstElementChild;
  return group instanceof HTMLElement && group !== root.lastElementChild ? group : undefined;
}

/** `root`: #transcript, its children the groups; `entries`: how many views the transcript has. */
export function heldGroups(root: HTMLElement, entries: number): Omit<Held, 'left'> {
  const group = oldestClosed(root);
  if (!group) return { entries };
  const scroller = root.parentElement ?? root;
  const selection = document.getSelection();
  const inUse =
    group.contains(document.activeElement) ||
    (selection !== null && (group.contains(selection.anchorNode) || group.contains(selection.focusNode))) ||
    group.querySelector(WAITING) !== null;
  const far = group.getBoundingClientRect().bottom < scroller.getBoundingClientRect().top - FAR_SCREENS * scroller.clientHeight;
  return { entries, firstGroup: { entries: group.childElementCount, far, inUse } };
}

/** The ids of a group's entries (requests shown inside a card are the card's, not counted here). */
function idsIn(group: HTMLElement): string[] {
  const ids: string[] = [];
  for (const child of group.children) if (child instanceof HTMLElement && child.dataset.id !== undefined) ids.push(child.dataset.id);
  return ids;
}

/** What dropFirstGroup() let go. */
export interface Gone {
  /** The ids of its entries, and of the requests shown inside its cards. */
  ids: string[];
  views: EntryView[];
  /** The id of the first entry held now. */
  first: string | undefined;
}

/**
 * Lets the oldest group go: its entries' views and the requests shown in its cards out of the
 * transcript's maps, the group out of the document. The caller keeps the reader's place
 * (earlierPages.ts keepPlace, as for a page that comes in above).
 */
export function dropFirstGroup(root: HTMLElement, views: Map<string, EntryView>, nestedIn: Map<string, EntryView>): Gone {
  const group = oldestClosed(root);
  if (!group) return { ids: [], views: [], first: undefined };
  const ids = idsIn(group);
  const gone: EntryView[] = [];
  for (const id of ids) {
    const view = views.get(id);
    if (view) gone.push(view);
    views.delete(id);
  }
  for (const [id, card] of nestedIn) {
    if (!group.contains(card.el)) continue;
    nestedIn.delete(id);
    ids.push(id);
  }
  group.remove();
  const first = root.firstElementChild?.firstElementChild;
  return { ids, views: gone, first: first instanceof HTMLElement ? first.dataset.id : undefined };
}
