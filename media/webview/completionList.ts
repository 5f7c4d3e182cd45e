// A completion list above the prompt box: the one behaviour of the slash-command list and the
// `@` file list. It owns the rows shown and the highlighted one, the listbox's ARIA wiring
// (role, aria-selected, the input's aria-activedescendant), the keys (arrows move, Enter or Tab
// take, Escape closes), a click that takes a row without taking the focus from the input, and
// closing on blur. What is listed, and what taking a row does, belong to the caller.
//
// Its keydown listener must be added before the composer's: a key the list takes goes no
// further, so the Enter that takes a row does not also send the prompt, and the Escape that
// closes the list does not stop the turn.
import { el } from './dom';

export interface CompletionListOptions<T> {
  /** The list's element id, its class and its accessible name. */
  id: string;
  className: string;
  label: string;
  /** Row ids are `${idPrefix}${index}` (the input's aria-activedescendant names one). */
  idPrefix: string;
  itemClass: string;
  /** Puts `value`'s content into its row. */
  fill(row: HTMLElement, value: T): void;
  /** The user took `value` (Enter, Tab or a click); the list is already closed. */
  take(value: T): void;
  /** The text changed: the caller shows new rows or closes the list. */
  onInput(): void;
  /** The list closed or stays closed (a key, blur, a take, nothing to show). */
  onClose?(): void;
}

export interface CompletionList<T> {
  readonly el: HTMLElement;
  /** Shows `values` with the first highlighted; none closes the list. */
  show(values: readonly T[]): void;
  close(): void;
}

export function completionList<T>(input: HTMLTextAreaElement, options: CompletionListOptions<T>): CompletionList<T> {
  let shown: readonly T[] = [];
  let active = 0;

  const list = el('ul', options.className);
  list.id = options.id;
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-label', options.label);
  list.hidden = true;

  const render = (): void => {
    list.replaceChildren();
    shown.forEach((value, i) => {
      const row = el('li', `${options.itemClass}${i === active ? ' active' : ''}`);
      row.id = `${options.idPrefix}${i}`;
      row.setAttribute('role', 'option');
      row.setAttribute('aria-selected', String(i === active));
      options.fill(row, value);
      // mousedown, not click: the input keeps its focus.
      row.addEventListener('mousedown', (event) => {
        event.preventDefault();
        take(value);
      });
      list.append(row);
    });
    list.hidden = shown.length === 0;
    if (shown.length > 0) {
      input.setAttribute('aria-activedescendant', `${options.idPrefix}${active}`);
      list.children[active]?.scrollIntoView({ block: 'nearest' });
    } else if (input.getAttribute('aria-activedescendant')?.startsWith(options.idPrefix)) {
      // Only its own: the other list on the same input may have the highlight.
      input.removeAttribute('aria-activedescendant');
    }
  };

  const close = (): void => {
    shown = [];
    render();
    options.onClose?.();
  };

  const take = (value: T): void => {
    close();
    options.take(value);
  };

  input.addEventListener('input', () => options.onInput());
  input.addEventListener('blur', close);
  input.addEventListener('keydown', (event) => {
    if (list.hidden || event.isComposing) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      active = stepIndex(active, event.key === 'ArrowDown' ? 1 : -1, shown.length);
      render();
    } else if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
      const chosen = shown[active];
      if (chosen !== undefined) take(chosen);
    } else if (event.key === 'Escape') close();
    else return;
    event.preventDefault();
    event.stopImmediatePropagation();
  });

  return {
    el: list,
    show(values) {
      shown = values;
      active = 0;
      if (values.length === 0) close();
      else render();
    },
    close,
  };
}

/** The row after `active` (step 1) or before it (step -1) in a list of `count`, wrapping. */
function stepIndex(active: number, step: 1 | -1, count: number): number {
  return (active + step + count) % count;
}
