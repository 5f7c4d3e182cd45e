// An elicitation (the agent asks the user, ACP form or URL mode): who asks and its message,
// then a form the user reviews and edits before Submit (defaults filled in, required fields
// marked, invalid input refused in place with the same rules the host applies again:
// shared/elicitationForm.ts), or the full URL with its host picked out and its warnings, opened
// only by the explicit button (the host opens it; nothing here is a link). Submit, Decline,
// and Cancel (Escape inside it, not the panel's Stop). Keyboard-only: the first field takes the
// focus when it appears (unless the user is typing a prompt), Tab walks the fields, Enter in
// a text field submits. Shown inside the card of its tool call (tool.ts) when it names one.
import type { ElicitationEntry } from '../../../src/shared/messages';
import { checkField, checkForm, initialInput, type ElicitationField, type FieldInput, type FormInput } from '../../../src/shared/elicitationForm';
import { agentText, button, el, srOnly } from '../dom';
import { icon } from '../icons';
import type { EntryView, RenderContext } from './types';

let ids = 0;

export interface ElicitationBlock {
  readonly el: HTMLElement;
  update(entry: ElicitationEntry): void;
  focus(): void;
}

type Action = 'accept' | 'decline' | 'cancel';

export function elicitationBlock(entry: ElicitationEntry, ctx: RenderContext, nested: boolean, onAnswer?: () => void): ElicitationBlock {
  const root = el('div', `entry elicitation${nested ? ' nested' : ''}`);
  root.dataset.id = entry.id;
  root.dataset.mode = entry.mode;
  root.setAttribute('role', 'group');
  const titleId = `elicitation-title-${++ids}`;
  root.setAttribute('aria-labelledby', titleId);
  let sent: Action | undefined;
  let current = entry;
  /** Each field's control, to read what the user entered and to mark what is invalid. */
  const controls = new Map<string, { read(): FieldInput; focusEl: HTMLElement; error: HTMLElement }>();

  const answer = (action: Action, input?: FormInput): void => {
    if (sent !== undefined || current.resolved !== undefined) return;
    sent = action;
    ctx.post({ type: 'elicitation', requestId: current.id, action, ...(input !== undefined && { input }) });
    render(current);
    onAnswer?.();
  };

  const header = (): HTMLElement => {
    const h = el('div', 'elicitation-header');
    const title = el('span', 'elicitation-title');
    title.id = titleId;
    title.append(
      agentText('span', 'elicitation-agent', current.agentName),
      document.createTextNode(current.mode === 'url' ? ' asks you to open a link' : ' asks you'),
    );
    h.append(icon(current.mode === 'url' ? 'link' : 'question', 'elicitation-icon'), title);
    if (current.outsideSession) h.append(el('span', 'elicitation-scope', '(outside the session)'));
    return h;
  };

  const render = (e: ElicitationEntry): void => {
    current = e;
    const done = e.resolved !== undefined || sent !== undefined;
    root.classList.toggle('answered', done);
    const message = agentText('div', 'elicitation-message', e.message);
    if (done) {
      controls.clear();
      const line =
        e.resolved ?? (sent === 'accept' ? (e.mode === 'url' ? 'Opening in your browser…' : 'Sending…') : sent === 'decline' ? 'Declined' : 'Cancelled');
      const tone = e.completed || (e.resolved ?? sent) === 'Submitted' || sent === 'accept' ? 'answer-allowed' : 'answer-rejected';
      root.replaceChildren(header(), message, el('div', `elicitation-answer ${tone}`, line));
      return;
    }
    // Built once while it waits: a host update must not wipe what the user typed.
    if (root.querySelector('.elicitation-actions')) return;
    root.replaceChildren(header(), message, e.mode === 'url' ? urlBody(e, answer) : formBody(e, controls, answer));
  };

  root.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || event.isComposing || sent !== undefined || current.resolved !== undefined) return;
    // Escape here dismisses the question (cancel), and is not the panel's Stop.
    event.preventDefault();
    event.stopPropagation();
    answer('cancel');
  });
  render(entry);

  return {
    el: root,
    update: render,
    focus() {
      const first = root.querySelector<HTMLElement>('input, select, button:not(:disabled)');
      first?.focus();
    },
  };
}

function formBody(
  e: ElicitationEntry,
  controls: Map<string, { read(): FieldInput; focusEl: HTMLElement; error: HTMLElement }>,
  answer: (action: Action, input?: FormInput) => void,
): HTMLElement {
  const form = el('form', 'elicitation-form');
  form.noValidate = true; // our messages, the same as the host's, not the browser's
  const fields = e.form?.fields ?? [];
  const start = initialInput({ fields });
  if (e.form?.description) form.append(agentText('div', 'elicitation-description', e.form.description));
  for (const field of fields) form.append(fieldRow(field, start[field.name], controls));
  if (fields.some((f) => f.required)) form.append(el('div', 'elicitation-legend', '* required'));
  const submit = el('button', 'button primary');
  submit.type = 'submit';
  submit.textContent = 'Submit';
  const actions = el('div', 'elicitation-actions');
  actions.append(
    submit,
    button('button secondary', 'Decline', () => answer('decline')),
    cancelButton(answer),
  );
  form.append(actions);
  // A field shown invalid is checked again as it is corrected: its message goes once it passes.
  const recheck = (event: Event): void => {
    const name = (event.target as HTMLElement | null)?.closest<HTMLElement>('.elicitation-field')?.dataset.name;
    const field = fields.find((f) => f.name === name);
    const c = name === undefined ? undefined : controls.get(name);
    if (!field || !c || c.error.hidden) return;
    const result = checkField(field, c.read());
    const error = typeof result === 'object' && result !== null && 'error' in result ? result.error : undefined;
    c.error.textContent = error ?? '';
    c.error.hidden = error === undefined;
    if (error === undefined) c.focusEl.removeAttribute('aria-invalid');
  };
  form.addEventListener('input', recheck);
  form.addEventListener('change', recheck);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const input: FormInput = {};
    for (const [name, c] of controls) input[name] = c.read();
    const checked = checkForm({ fields }, input);
    let firstBad: HTMLElement | undefined;
    for (const [name, c] of controls) {
      const error = checked.ok ? undefined : checked.errors[name];
      c.error.textContent = error ?? '';
      c.error.hidden = error === undefined;
      if (error !== undefined) c.focusEl.setAttribute('aria-invalid', 'true');
      else c.focusEl.removeAttribute('aria-invalid');
      if (error !== undefined && !firstBad) firstBad = c.focusEl;
    }
    if (!checked.ok) return firstBad?.focus();
    answer('accept', input);
  });
  return form;
}

function fieldRow(
  field: ElicitationField,
  value: FieldInput | undefined,
  controls: Map<string, { read(): FieldInput; focusEl: HTMLElement; error: HTMLElement }>,
): HTMLElement {
  const id = `elicitation-field-${++ids}`;
  const row = el('div', `elicitation-field field-${field.kind}`);
  row.dataset.name = field.name;
  const error = el('div', 'elicitation-error');
  error.id = `${id}-error`;
  error.hidden = true;
  error.setAttribute('aria-live', 'polite');
  const label = (forId: string | undefined): HTMLElement => {
    const l = el(forId === undefined ? 'span' : 'label', 'elicitation-label');
    if (forId !== undefined) (l as HTMLLabelElement).htmlFor = forId;
    l.append(agentText('span', undefined, field.label));
    if (field.required) {
      const star = el('span', 'elicitation-required', ' *');
      star.setAttribute('aria-hidden', 'true');
      l.append(star, srOnly(' (required)'));
    }
    return l;
  };
  const description = field.description ? agentText('div', 'elicitation-hint', field.description) : undefined;
  const describe = (control: HTMLElement): void => {
    const hint = description ? `${id}-hint` : undefined;
    if (description) description.id = `${id}-hint`;
    control.setAttribute('aria-describedby', [hint, error.id].filter(Boolean).join(' '));
    if (field.required) control.setAttribute('aria-required', 'true');
  };

  switch (field.kind) {
    case 'text':
    case 'number': {
      const input = el('input', 'elicitation-input');
      input.id = id;
      input.type = 'text';
      input.value = typeof value === 'string' ? value : '';
      if (field.kind === 'number') input.inputMode = field.integer ? 'numeric' : 'decimal';
      else if (field.format === 'email') input.inputMode = 'email';
      input.placeholder = placeholder(field);
      input.spellcheck = false;
      describe(input);
      row.append(label(id), input);
      controls.set(field.name, { read: () => input.value, focusEl: input, error });
      break;
    }
    case 'boolean': {
      const box = el('input', 'elicitation-checkbox');
      box.id = id;
      box.type = 'checkbox';
      box.checked = value === true;
      describe(box);
      const line = el('div', 'elicitation-check');
      line.append(box, label(id));
      row.append(line);
      controls.set(field.name, { read: () => box.checked, focusEl: box, error });
      break;
    }
    case 'select': {
      const select = el('select', 'elicitation-select');
      select.id = id;
      const none = el('option', undefined, field.required ? 'Choose…' : '(none)');
      none.value = '';
      select.append(none);
      for (const o of field.options) {
        const option = el('option', undefined, o.title);
        option.value = o.value;
        if (o.description) option.title = o.description;
        select.append(option);
      }
      select.value = typeof value === 'string' ? value : '';
      describe(select);
      row.append(label(id), select);
      controls.set(field.name, { read: () => select.value, focusEl: select, error });
      break;
    }
    case 'multiselect': {
      const group = el('fieldset', 'elicitation-choices');
      const legend = el('legend');
      legend.append(label(undefined));
      group.append(legend);
      describe(group);
      const boxes = field.options.map((o, i) => {
        const box = el('input', 'elicitation-checkbox');
        box.type = 'checkbox';
        box.id = `${id}-${i}`;
        box.value = o.value;
        box.checked = Array.isArray(value) && value.includes(o.value);
        const line = el('div', 'elicitation-check');
        const l = el('label', 'elicitation-option');
        l.htmlFor = box.id;
        l.append(agentText('span', undefined, o.title));
        if (o.description) l.title = o.description;
        line.append(box, l);
        group.append(line);
        return box;
      });
      row.append(group);
      controls.set(field.name, { read: () => boxes.filter((b) => b.checked).map((b) => b.value), focusEl: boxes[0] ?? group, error });
      break;
    }
  }
  if (description) row.append(description);
  row.append(error);
  return row;
}

function placeholder(field: Extract<ElicitationField, { kind: 'text' | 'number' }>): string {
  if (field.kind === 'number') {
    const range = field.minimum !== undefined && field.maximum !== undefined ? ` ${field.minimum}–${field.maximum}` : '';
    return `${field.integer ? 'a whole number' : 'a number'}${range}`;
  }
  switch (field.format) {
    case 'email':
      return 'name@example.com';
    case 'uri':
      return 'https://…';
    case 'date':
      return 'YYYY-MM-DD';
    case 'date-time':
      return 'YYYY-MM-DDThh:mm:ssZ';
    default:
      return '';
  }
}

/** The whole URL, its host picked out, never a link: the button is the consent. */
function urlBody(e: ElicitationEntry, answer: (action: Action) => void): HTMLElement {
  const body = el('div', 'elicitation-url-body');
  const url = e.url;
  if (url) {
    const shown = el('div', 'elicitation-url');
    shown.dir = 'ltr';
    const host = agentText('strong', 'elicitation-host', url.host, 'ltr');
    shown.append(agentText('span', 'elicitation-url-part', url.before, 'ltr'), host, agentText('span', 'elicitation-url-part', url.after, 'ltr'));
    const site = el('div', 'elicitation-site');
    site.append(document.createTextNode('Site: '), agentText('strong', 'elicitation-host', url.host, 'ltr'));
    body.append(site, shown);
    for (const warning of url.warnings) {
      const w = el('div', 'elicitation-warning');
      w.setAttribute('role', 'note');
      w.append(icon('warning'), el('span', undefined, warning));
      body.append(w);
    }
  }
  const actions = el('div', 'elicitation-actions');
  actions.append(
    button('button primary', 'Open in Browser', () => answer('accept')),
    button('button secondary', 'Decline', () => answer('decline')),
    cancelButton(answer),
  );
  body.append(actions);
  return body;
}

function cancelButton(answer: (action: Action) => void): HTMLButtonElement {
  const b = button('button secondary', 'Cancel', () => answer('cancel'));
  b.setAttribute('aria-keyshortcuts', 'Escape');
  b.title = 'Dismiss without answering (Escape)';
  return b;
}

/** One whose tool card is not in the panel, or that names none: its own entry. */
export function createElicitationView(entry: ElicitationEntry, ctx: RenderContext): EntryView {
  const block = elicitationBlock(entry, ctx, false, () => ctx.focusComposer?.());
  return {
    kind: 'elicitation',
    el: block.el,
    update(next) {
      if (next.kind === 'elicitation') block.update(next);
    },
    focus: () => block.focus(),
  };
}
