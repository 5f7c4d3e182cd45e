// The prompts queued behind the running turn, above the input box, in the order they go out:
// each can be edited (in place: Enter saves, Escape cancels) or removed. The list is the host's
// (PanelStatus.queued, from the turn machine's queue); this view only asks for changes.
import type { QueuedView, WebviewToHost } from '../../src/shared/messages';
import { el } from './dom';
import { icon } from './icons';

export interface QueueList {
  readonly el: HTMLElement;
  update(queued: readonly QueuedView[]): void;
}

export function createQueueList(post: (message: WebviewToHost) => void, focusComposer: () => void): QueueList {
  const root = el('section', 'queue');
  root.id = 'queue';
  root.setAttribute('aria-label', 'Queued prompts');
  root.hidden = true;
  const head = el('div', 'queue-head');
  const list = el('ol', 'queue-list');
  root.append(head, list);
  const rows = new Map<number, { li: HTMLLIElement; text: HTMLElement; editing?: HTMLTextAreaElement }>();

  const edit = (id: number): void => {
    const row = rows.get(id);
    if (!row || row.editing) return;
    const box = el('textarea', 'queue-edit');
    box.value = row.text.textContent ?? '';
    box.rows = Math.min(6, box.value.split('\n').length + 1);
    box.setAttribute('aria-label', 'Edit the queued prompt (Enter saves, Escape cancels)');
    const done = (save: boolean): void => {
      if (save && box.value.trim() && box.value !== row.text.textContent) {
        post({ type: 'editQueued', id, text: box.value });
        row.text.textContent = box.value; // until the host's status says it
      }
      box.replaceWith(row.text);
      row.editing = undefined;
      row.li.classList.remove('editing');
      focusComposer();
    };
    box.addEventListener('keydown', (event) => {
      if (event.isComposing) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation(); // cancels the edit; does not stop the turn
        done(false);
      } else if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        done(true);
      }
    });
    box.addEventListener('blur', () => row.editing === box && done(true));
    row.editing = box;
    row.li.classList.add('editing');
    row.text.replaceWith(box);
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  };

  const makeRow = (item: QueuedView) => {
    const li = el('li', 'queued-item');
    li.dataset.id = String(item.id);
    const text = el('div', 'queued-text', item.text);
    const actions = el('div', 'queued-actions');
    const editButton = el('button', 'icon-button queued-edit');
    editButton.type = 'button';
    editButton.title = 'Edit';
    editButton.setAttribute('aria-label', 'Edit the queued prompt');
    editButton.append(icon('edit'));
    editButton.addEventListener('click', () => edit(item.id));
    const remove = el('button', 'icon-button queued-remove');
    remove.type = 'button';
    remove.title = 'Remove (not sent)';
    remove.setAttribute('aria-label', 'Remove the queued prompt; it is not sent');
    remove.append(icon('close'));
    remove.addEventListener('click', () => {
      post({ type: 'removeQueued', id: item.id });
      li.remove(); // the host's next status confirms
      rows.delete(item.id);
      focusComposer();
    });
    actions.append(editButton, remove);
    li.append(icon('queued', 'queued-icon'), text, actions);
    text.addEventListener('dblclick', () => edit(item.id));
    return { li, text };
  };

  return {
    el: root,
    update(queued) {
      const ids = new Set(queued.map((q) => q.id));
      for (const [id, row] of rows) {
        if (ids.has(id)) continue;
        row.li.remove();
        rows.delete(id);
      }
      queued.forEach((item, index) => {
        let row = rows.get(item.id);
        if (!row) {
          row = makeRow(item);
          rows.set(item.id, row);
        } else if (!row.editing) {
          row.text.textContent = item.text; // a row being edited keeps what the user types
        }
        // In the host's order; a row already in place is not moved (moving it would take the focus from its edit).
        if (list.children[index] !== row.li) list.insertBefore(row.li, list.children[index] ?? null);
      });
      head.textContent = queued.length === 1 ? 'Queued: sent when the running turn ends' : `${queued.length} queued: sent in order as the running turn ends`;
      root.hidden = queued.length === 0;
    },
  };
}
