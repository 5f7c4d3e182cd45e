// The agent's reasoning: collapsed and dimmed by default, with a one-line live preview and,
// once the agent moved on, how long it thought.
// Its Markdown is rendered only while expanded: thoughts stream as fast as replies and
// are mostly never opened.
import type { TranscriptEntry } from '../../../src/shared/messages';
import { el } from '../dom';
import { icon } from '../icons';
import { renderMarkdown } from '../markdown';
import { thoughtLabel } from '../cardModel';
import { thoughtPreview } from '../statusModel';
import { entryShell, type EntryView } from './types';

export function createThoughtView(entry: Extract<TranscriptEntry, { kind: 'thought' }>): EntryView {
  const root = entryShell(entry);
  const details = el('details', 'thought-details');
  const summary = el('summary', 'thought-summary');
  const preview = el('span', 'thought-preview');
  const label = el('span', 'thought-label', thoughtLabel(entry.seconds));
  summary.append(icon('chevron', 'chevron'), icon('think'), label, preview);
  const body = el('div', 'markdown-body');
  details.append(summary, body);
  root.append(details);

  let markdown = entry.markdown;
  let rendered: string | undefined;
  let previewed: string | undefined;

  const flush = (): void => {
    if (markdown !== previewed) {
      previewed = markdown;
      preview.textContent = thoughtPreview(markdown);
    }
    if (details.open && markdown !== rendered) {
      rendered = markdown;
      body.innerHTML = renderMarkdown(markdown); // escaped by markdown-it (html: false)
    }
  };
  details.addEventListener('toggle', flush);
  flush();

  return {
    kind: 'thought',
    el: root,
    update(next) {
      if (next.kind !== 'thought') return;
      markdown = next.markdown;
      label.textContent = thoughtLabel(next.seconds);
      flush();
    },
    append(text) {
      markdown += text;
    },
    flush,
  };
}
