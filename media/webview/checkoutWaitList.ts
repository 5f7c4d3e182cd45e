// The prompts waiting for another window's turn in this checkout, above the input box, in the
// order they go (PanelStatus.checkoutWait, from the folder's line): the user sees what was sent
// and what it waits for. Stop (the button, Escape, the command) ends the wait and puts their
// text back into the input box; the host does that, this view only shows the line.
import type { CheckoutWaitView } from '../../src/shared/messages';
import { revealInvisibleText } from '../../src/shared/invisibleChars';
import { el } from './dom';
import { icon } from './icons';

/** The line's heading: what it waits for, and how to take the prompts back. */
export function checkoutWaitHead(view: CheckoutWaitView): string {
  const n = view.prompts.length;
  // The busy line above already says "Waiting for <agent> in another window": this says when they go.
  const when = view.holder ? `when ${revealInvisibleText(view.holder)}'s turn in the other window ends` : 'once the turn before them ends';
  return n === 1 ? `Sent ${when}. Stop gives it back.` : `${n} prompts, sent in this order ${when}. Stop gives them back.`;
}

export interface CheckoutWaitList {
  readonly el: HTMLElement;
  update(view: CheckoutWaitView | undefined): void;
}

export function createCheckoutWaitList(): CheckoutWaitList {
  const root = el('section', 'queue checkout-wait');
  root.id = 'checkout-wait';
  root.setAttribute('aria-label', 'Prompts waiting for another window');
  root.hidden = true;
  const head = el('div', 'queue-head');
  head.setAttribute('role', 'status');
  const list = el('ol', 'queue-list');
  root.append(head, list);
  let shown = '';
  return {
    el: root,
    update(view) {
      const key = JSON.stringify(view ?? null);
      if (key === shown) return;
      shown = key;
      root.hidden = !view;
      if (!view) return list.replaceChildren();
      head.textContent = checkoutWaitHead(view);
      list.replaceChildren(
        ...view.prompts.map((prompt) => {
          const li = el('li', 'queued-item waiting-item');
          li.dataset.id = String(prompt.id);
          li.append(icon('queued', 'queued-icon'), el('div', 'queued-text', prompt.text));
          return li;
        }),
      );
    },
  };
}
