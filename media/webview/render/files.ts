// The files the agent wrote in this turn (writes need no approval): one row per file with its
// path relative to the folder, "new" or its size, and marks for places that change what runs
// or how the editor behaves. Paths are agent-chosen text: textContent only.
import type { TranscriptEntry } from '../../../src/shared/messages';
import { el, setPathText } from '../dom';
import { revealInvisibleText } from '../../../src/shared/invisibleChars';
import { filesSummary, formatBytes, markViews, needsLook } from '../filesModel';
import { icon } from '../icons';
import { entryShell, type EntryView } from './types';

type FilesEntry = Extract<TranscriptEntry, { kind: 'files' }>;

export function createFilesView(entry: FilesEntry): EntryView {
  const root = entryShell(entry);

  const render = (next: FilesEntry): void => {
    root.classList.toggle('warn', next.files.some(needsLook));
    const header = el('div', 'files-header');
    header.append(icon('edit', 'files-icon'), el('span', 'files-title', filesSummary(next.files)));

    const list = el('ul', 'files-list');
    for (const file of next.files) {
      const li = el('li', 'files-item');
      li.classList.toggle('warn', needsLook(file));
      const name = el('span', 'files-path');
      setPathText(name, file.path);
      name.title = revealInvisibleText(file.path);
      li.append(name, el('span', 'files-size', file.created ? `new, ${formatBytes(file.bytes)}` : formatBytes(file.bytes)));
      for (const mark of markViews(file.marks)) {
        const pill = el('span', `files-mark mark-${mark.mark}${mark.warn ? ' warn' : ''}`, mark.label);
        pill.title = mark.title;
        li.append(pill);
      }
      list.append(li);
    }
    root.replaceChildren(header, list);
  };
  render(entry);

  return {
    kind: 'files',
    el: root,
    update(next) {
      if (next.kind === 'files') render(next);
    },
  };
}
