// The agent's reply: Markdown that streams in. Appends only grow a string; the transcript
// calls flush() at most once per animation frame, so hundreds of chunks a second cost one
// Markdown render per frame instead of one per chunk.
import type { TranscriptEntry } from '../../../src/shared/messages';
import { el } from '../dom';
import { renderMarkdown } from '../markdown';
import { entryShell, type EntryView } from './types';

export function createAgentView(entry: Extract<TranscriptEntry, { kind: 'agent' }>): EntryView {
  const root = entryShell(entry);
  const body = el('div', 'markdown-body');
  root.append(body);
  let markdown = entry.markdown;
  let rendered: string | undefined;

  const flush = (): void => {
    if (markdown === rendered) return;
    rendered = markdown;
    body.innerHTML = renderMarkdown(markdown); // escaped by markdown-it (html: false)
    root.classList.toggle('empty', markdown.trim() === '');
  };
  flush();

  return {
    kind: 'agent',
    el: root,
    update(next) {
      if (next.kind !== 'agent') return;
      markdown = next.markdown;
      flush();
    },
    append(text) {
      markdown += text;
    },
    flush,
  };
}
