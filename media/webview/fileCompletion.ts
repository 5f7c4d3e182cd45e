// `@` in the prompt box attaches a workspace file: while the word at the caret starts with `@`,
// the host's matches (a quick search over the folder's files) are listed above the box. Arrows
// move, Enter or Tab takes one, Escape closes, a click takes one too (completionList.ts). A taken
// file shows as a chip under the box (× removes it) and its name stays in the text as `@name`;
// it is sent with the prompt as an attached file.
import type { FileMatch, WebviewToHost } from '../../src/shared/messages';
import { completionList } from './completionList';
import { el } from './dom';
import { mentionAt } from './mention';

export interface FileCompletion {
  /** The list (above the box) and the attached files (under it). */
  readonly listEl: HTMLElement;
  readonly chipsEl: HTMLElement;
  /** The host's answer to a search. */
  matches(requestId: number, files: FileMatch[]): void;
  /** The files to send with the prompt (only those still named in `text`); the chips clear. */
  take(text: string): string[];
  /** Files of a prompt given back to the box: their chips again (each once). */
  attach(files: readonly FileMatch[]): void;
}

export function attachFileCompletion(input: HTMLTextAreaElement, post: (message: WebviewToHost) => void): FileCompletion {
  let lastRequest = 0;
  let attached: FileMatch[] = [];

  const chips = el('div', 'attached-files');
  chips.id = 'attached-files';
  chips.hidden = true;

  const renderChips = (): void => {
    chips.replaceChildren();
    for (const f of attached) {
      const chip = el('span', 'attached-file');
      chip.title = f.label;
      const remove = el('button', 'icon-button attached-remove', '×');
      remove.type = 'button';
      remove.setAttribute('aria-label', `Remove ${f.label}`);
      remove.addEventListener('click', () => {
        attached = attached.filter((a) => a !== f);
        renderChips();
        input.focus();
      });
      chip.append(el('span', 'attached-name', `@${f.label}`), remove);
      chips.append(chip);
    }
    chips.hidden = attached.length === 0;
  };

  const attach = (files: readonly FileMatch[]): void => {
    for (const f of files) if (!attached.some((a) => a.uri === f.uri)) attached = [...attached, f];
    renderChips();
  };

  const list = completionList<FileMatch>(input, {
    id: 'file-completion',
    className: 'slash-completion file-completion',
    label: 'Workspace files',
    idPrefix: 'file-item-',
    itemClass: 'slash-item file-item',
    fill(row, f) {
      const slash = f.label.lastIndexOf('/');
      row.append(el('span', 'slash-name', f.label.slice(slash + 1)), el('span', 'slash-description', slash > 0 ? f.label.slice(0, slash) : ''));
    },
    take(f) {
      const mention = mentionAt(input.value, input.selectionStart ?? 0);
      if (mention) {
        const before = input.value.slice(0, mention.start);
        const after = input.value.slice(mention.end);
        input.value = `${before}@${f.label} ${after.replace(/^ /, '')}`;
        const caret = before.length + f.label.length + 2;
        input.setSelectionRange(caret, caret);
      }
      attach([f]);
      input.dispatchEvent(new Event('input', { bubbles: true })); // the composer saves and resizes
    },
    onInput() {
      const mention = mentionAt(input.value, input.selectionStart ?? 0);
      if (!mention) return list.close();
      post({ type: 'searchFiles', requestId: ++lastRequest, query: mention.query });
    },
    onClose: () => lastRequest++, // an answer on its way is no longer wanted
  });

  return {
    listEl: list.el,
    chipsEl: chips,
    matches(requestId, files) {
      if (requestId !== lastRequest || document.activeElement !== input) return; // typed on since
      list.show(files);
    },
    attach,
    take(text) {
      const files = attached.filter((f) => text.includes(`@${f.label}`)).map((f) => f.uri);
      attached = [];
      renderChips();
      return files;
    },
  };
}
