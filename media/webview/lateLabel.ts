// The "late" label of an entry the host marked late (src/runtime/lateUpdates.ts), whichever
// way the transcript's list put it in (at the end, before a later turn, in an earlier page).
import type { TranscriptEntry } from '../../src/shared/messages';
import { el, srOnly } from './dom';

/**
 * The "late" label of an entry that came after its turn was stopped (lateUpdates.ts): first in
 * the entry, put back when a view rebuilt its content, and read out in words.
 */
export function markLate(root: HTMLElement, entry: TranscriptEntry): void {
  const late = 'late' in entry && entry.late === true;
  let label = root.querySelector(':scope > .late-label');
  if (!late) {
    label?.remove();
    delete root.dataset.late;
    return;
  }
  root.dataset.late = '';
  if (!label) {
    label = el('span', 'late-label', 'late');
    label.setAttribute('title', 'Arrived after this turn was stopped');
    label.append(srOnly(': arrived after this turn was stopped'));
  }
  if (root.firstChild !== label) root.prepend(label);
}
