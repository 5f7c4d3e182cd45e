// The prompt box (`#prompt-input`) and its one button: Send (`#send`), which becomes Stop
// (`#stop`) while a turn runs. Enter sends, Shift+Enter is a newline; while a turn runs, Enter
// follows reins.whenBusy: queue, steer, stop and send, or (ask) the choice beside the box
// (busyChoice.ts); the prompts queued show above it (queueList.ts), and those waiting for another
// window's turn in the checkout (checkoutWaitList.ts; Stop gives them back). Up/Down at the start/end of
// the box walk earlier prompts; `@` attaches files.
// The draft and the earlier prompts live in VS Code's webview state so hiding the panel loses
// neither.
import type { BusyChoice, FileMatch, PanelStatus, WebviewToHost } from '../../src/shared/messages';
import { createBusyChoice } from './busyChoice';
import { enterAction, turnBusy } from './busyModel';
import { createQueueList } from './queueList';
import { createCheckoutWaitList } from './checkoutWaitList';
import { el } from './dom';
import { icon } from './icons';
import { attachFileCompletion } from './fileCompletion';
import { PromptHistory } from './promptHistory';
import { attachSlashCompletion } from './slashCompletion';
import { composerState, mergeRestoredInput } from './statusModel';
import { loadState, saveState } from './vscodeApi';

/** The box grows with its text up to this share of the panel, then scrolls. */
const MAX_HEIGHT_SHARE = 0.4;

export interface Composer {
  readonly el: HTMLElement;
  update(status: PanelStatus): void;
  /** Text the host gave back (restoreInput, snapshot.input): into the box, ahead of any draft; its files as chips again. */
  restore(text: string, files?: readonly FileMatch[]): void;
  /** The draft the conversation had where it moved from (tab ⇄ view): replaces this box's. */
  replaceDraft(text: string): void;
  focus(): void;
  /** The host's answer to the `@` file search. */
  fileMatches(requestId: number, files: FileMatch[]): void;
  /** The user has text in the box and the keyboard in it (a permission must not take it). */
  isTyping(): boolean;
}

export function createComposer(post: (message: WebviewToHost) => void, onSent: () => void): Composer {
  let status: PanelStatus | undefined;

  const root = el('footer', 'composer');
  const box = el('div', 'composer-box');
  const input = el('textarea', 'prompt-input');
  input.id = 'prompt-input';
  input.rows = 1;
  input.spellcheck = true;
  input.setAttribute('aria-label', 'Prompt for the agent');

  const stop = el('button', 'button stop-button');
  stop.id = 'stop';
  stop.type = 'button';
  stop.title = 'Stop the agent (Esc)';
  stop.setAttribute('aria-label', 'Stop the agent');
  stop.setAttribute('aria-keyshortcuts', 'Escape');
  stop.append(icon('stop'), el('span', '', 'Stop'));
  stop.hidden = true;

  const send = el('button', 'icon-button send-button');
  send.id = 'send';
  send.type = 'button';
  send.setAttribute('aria-label', 'Send');
  send.append(icon('send'));

  const actions = el('div', 'composer-actions');
  actions.append(stop, send);
  box.append(input, actions);
  // The agent's slash commands, listed above the box while a command name is typed. Made
  // before the Enter handler below: its own handler goes first (slashCompletion.ts).
  const completion = attachSlashCompletion(input);
  const files = attachFileCompletion(input, post);
  const queue = createQueueList(post, () => input.focus());
  const waitList = createCheckoutWaitList();
  const choice = createBusyChoice();
  root.append(completion.el, files.listEl, waitList.el, queue.el, choice.el, box, files.chipsEl);
  const history = new PromptHistory(loadState().history);

  const autoGrow = (): void => {
    // Measure from scratch: scrollHeight never shrinks while the old height is set.
    input.style.height = 'auto';
    const max = Math.max(80, Math.floor(window.innerHeight * MAX_HEIGHT_SHARE));
    input.style.height = `${Math.min(input.scrollHeight, max)}px`;
    input.classList.toggle('scrolling', input.scrollHeight > max);
  };

  const refresh = (): void => {
    send.disabled = input.readOnly || input.value.trim() === '';
  };

  const setText = (text: string): void => {
    input.value = text;
    saveState({ draft: text });
    autoGrow();
    refresh();
  };

  const submit = (): void => {
    if (input.readOnly || !input.value.trim()) return;
    const action = enterAction(status);
    if (action === 'ask') {
      // The text stays in the box until a choice is made; Escape leaves it there.
      choice.open(
        status?.canSteer ?? false,
        (picked) => {
          sendNow(picked);
          input.focus();
        },
        () => input.focus(),
      );
      return;
    }
    sendNow(action === 'send' ? undefined : action);
  };

  const sendNow = (whenBusy: BusyChoice | undefined): void => {
    const text = input.value;
    if (!text.trim()) return;
    const attached = files.take(text);
    post({ type: 'send', text, ...(attached.length > 0 && { files: attached }), ...(whenBusy && { whenBusy }) });
    history.add(text);
    saveState({ history: [...history.list] });
    setText('');
    onSent();
  };

  const requestStop = (): void => {
    if (status?.canStop) post({ type: 'stop' });
  };

  input.addEventListener('input', () => {
    saveState({ draft: input.value });
    autoGrow();
    refresh();
  });
  input.addEventListener('keydown', (event) => {
    if ((event.key === 'ArrowUp' || event.key === 'ArrowDown') && !event.shiftKey && !event.altKey && !event.isComposing) {
      const text = history.walk(event.key === 'ArrowUp' ? -1 : 1, input.value, { start: input.selectionStart, end: input.selectionEnd });
      if (text === undefined) return; // the caret moves within the text, as usual
      event.preventDefault();
      setText(text);
      const caret = event.key === 'ArrowUp' ? 0 : text.length; // where the next Up or Down walks on
      input.setSelectionRange(caret, caret);
      return;
    }
    // isComposing: Enter that confirms an IME composition must not send.
    if (event.key !== 'Enter' || event.shiftKey || event.altKey || event.isComposing) return;
    event.preventDefault();
    submit();
  });
  send.addEventListener('click', () => {
    submit();
    input.focus();
  });
  stop.addEventListener('click', () => {
    requestStop();
    input.focus(); // the button goes away; the keyboard stays where the next prompt is typed
  });

  // Escape anywhere in the panel stops, as long as there is something to stop.
  window.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || event.isComposing || event.defaultPrevented || !status?.canStop) return;
    event.preventDefault();
    requestStop();
  });
  window.addEventListener('resize', autoGrow);

  const initial = loadState().draft;
  input.value = initial;
  input.readOnly = true; // until the first status says who we talk to
  input.placeholder = composerState(undefined).placeholder;
  requestAnimationFrame(autoGrow);
  refresh();

  return {
    el: root,
    update(next) {
      status = next;
      const state = composerState(next);
      input.readOnly = state.readOnly;
      box.classList.toggle('readonly', state.readOnly);
      input.placeholder = state.placeholder;
      send.title = state.sendTitle;
      // One button: Stop while there is something to stop, else Send.
      const focused = document.activeElement;
      stop.hidden = !next.canStop;
      stop.disabled = !next.canStop;
      send.hidden = next.canStop;
      if ((focused === stop && stop.hidden) || (focused === send && send.hidden)) input.focus();
      completion.setCommands(next.session?.commands ?? []);
      queue.update(next.queued);
      waitList.update(next.checkoutWait);
      // The turn ended (or is stopping) while the choice showed: nothing to choose; the text stays, Enter sends it.
      if (choice.isOpen && !turnBusy(next)) {
        choice.close();
        input.focus();
      }
      refresh();
    },
    restore(text, given) {
      setText(mergeRestoredInput(input.value, text));
      if (given?.length) files.attach(given);
    },
    replaceDraft(text) {
      setText(text);
    },
    focus() {
      input.focus();
      // Put the caret at the end, where a restored prompt continues.
      input.setSelectionRange(input.value.length, input.value.length);
    },
    fileMatches: (requestId, matches) => files.matches(requestId, matches),
    isTyping: () => document.activeElement === input && input.value.trim() !== '',
  };
}
