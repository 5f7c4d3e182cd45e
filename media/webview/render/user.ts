// The user's own prompt: plain text, whitespace kept (CSS pre-wrap), never Markdown.
import type { TranscriptEntry } from '../../../src/shared/messages';
import { el } from '../dom';
import { entryShell, type EntryView } from './types';

export function createUserView(entry: Extract<TranscriptEntry, { kind: 'user' }>): EntryView {
  const root = entryShell(entry);
  const bubble = el('div', 'user-bubble', entry.text);
  root.append(bubble);
  return {
    kind: 'user',
    el: root,
    update(next) {
      if (next.kind === 'user') bubble.textContent = next.text;
    },
  };
}
