// Entry point of the panel's webview (bundled to dist/webview.js). Builds the DOM inside
// #app, routes host messages, and says `ready` once so the host sends a snapshot.
import { assertNever, type HostToWebview, type PanelStatus } from '../../src/shared/messages';
import { createComposer } from './composer';
import { el } from './dom';
import { createEmptyState } from './emptyState';
import { createHeader } from './header';
import { loadHighlighter } from './highlight';
import { createSessionBar } from './sessionBar';
import { busyText, statusLine } from './statusModel';
import { snapshotScroll } from './followRule';
import { createAutoScroll } from './scroll';
import { TranscriptView } from './transcript';
import { listen, loadState, post, saveState } from './vscodeApi';
import { lostQueue } from './busyModel';
import { joinGivenBack } from '../../src/shared/givenBack';

/** This bundle's script: it names dist/highlight.js and carries the page's nonce (src/panel/panelHost.ts). */
const ownScript = document.currentScript instanceof HTMLScriptElement ? document.currentScript : undefined;

function start(): void {
  // Where a panel's first paint goes (the bench reads these marks: test/bench/longOpen.ts).
  performance.mark('reins:start');
  const app = document.getElementById('app') ?? document.body.appendChild(el('div'));
  app.id = 'app';

  const header = createHeader(post);
  // The session's mode, model and usage, under the header's status line (clicks open the pickers).
  const sessionBar = createSessionBar(post);
  header.el.append(sessionBar.el);

  // The scroller wraps #transcript so that the log holds only entries; the empty state,
  // the working indicator and the jump button live beside it.
  const scroller = el('main', 'scroller');
  const transcriptEl = el('div', 'transcript');
  transcriptEl.id = 'transcript';
  transcriptEl.setAttribute('role', 'log');
  transcriptEl.setAttribute('aria-live', 'polite');
  transcriptEl.setAttribute('aria-label', 'Conversation');
  const empty = createEmptyState();
  // The one busy indicator, where the eye is: the end of the conversation. (The header's status
  // line steps aside while a turn runs; the composer's Send has become Stop.)
  const working = el('div', 'working');
  working.id = 'working';
  working.setAttribute('aria-hidden', 'true'); // the header's live region already says it
  const workingText = el('span', 'working-text');
  working.append(el('span', 'working-dots'), workingText);
  working.hidden = true;
  scroller.append(empty.el, transcriptEl, working);

  const autoScroll = createAutoScroll(scroller, transcriptEl);
  const scrollArea = el('div', 'scroll-area');
  scrollArea.append(scroller, autoScroll.jumpButton);

  let status: PanelStatus | undefined;

  // The composer is made below; the transcript reaches it only after that, on user action.
  let composerRef: ReturnType<typeof createComposer> | undefined;
  const transcript = new TranscriptView(
    transcriptEl,
    { post, focusComposer: () => composerRef?.focus(), isTyping: () => composerRef?.isTyping() ?? false },
    () => {
      // A place settled at before the snapshot was drawn whole (or its older pages came): put right.
      autoScroll.keep(transcript.drawing, transcript.earlierLeft > 0);
      // Whenever the conversation is empty (after New Session too), notices or not.
      const hide = transcript.size > 0 || !status;
      if (empty.el.hidden === hide) return;
      empty.el.hidden = hide;
      autoScroll.follow();
      // Otherwise the transcript's changes reach the auto-scroll through its ResizeObserver,
      // after the frame's own layout (scroll.ts). Scrolling from here, right after the DOM
      // changed, forced a layout of its own on every frame of a streaming answer: a CPU profile
      // of the streaming bench found 1 s of every 10 in `toEnd`.
    },
  );

  const composer = (composerRef = createComposer(post, () => autoScroll.stick()));

  app.append(header.el, scrollArea, composer.el, header.announcer);

  function applyStatus(next: PanelStatus): void {
    status = next;
    header.update(next);
    sessionBar.update(next.session);
    composer.update(next);
    empty.update(next);
    empty.el.hidden = transcript.size > 0;
    const busy = busyText(next);
    working.hidden = busy === undefined;
    workingText.textContent = busy ?? '';
    // Waiting for the user is not working: the dots stop (status.css).
    working.dataset.tone = statusLine(next).tone;
    header.el.classList.toggle('busy', busy !== undefined);
    app.dataset.turn = next.turn;
    transcript.setTurn(next.turn); // a turn that ended: its answer is complete, and announced
    app.dataset.agent = next.agent;
    rememberQueue(next);
    autoScroll.follow();
  }

  /** What the queue holds now, kept in the webview state with its host: a reload gives it back (lostQueue). */
  let seenTexts = JSON.stringify(loadState().seenQueue?.queued ?? []);
  function rememberQueue(next: PanelStatus): void {
    // Prompts waiting for another window are lost with the host too: they come back the same way.
    const texts = [...(next.checkoutWait?.prompts ?? []), ...next.queued].map((q) => q.text);
    if (JSON.stringify(texts) === seenTexts) return;
    seenTexts = JSON.stringify(texts);
    saveState({ seenQueue: { host: loadState().seenQueue?.host, queued: texts } });
  }

  function handle(message: HostToWebview): void {
    switch (message.type) {
      case 'snapshot': {
        if (!painted) performance.mark('reins:snapshot-received');
        // Each snapshot, for the bench's account of a reload (a replay's comes at its end).
        performance.mark('reins:snapshot', {
          detail: { entries: message.entries.length, earlier: message.earlier, replaying: message.replaying, keepPlace: message.keepPlace },
        });
        // A queue this panel showed under an extension host a reload ended: its prompts back in the box.
        const lost = lostQueue(loadState().seenQueue ?? {}, message.host);
        if (message.host) {
          saveState({ seenQueue: { host: message.host, queued: [] } });
          seenTexts = '[]';
        }
        applyStatus(message.status);
        // A replay's end: the place the reader has now, as a distance from the end (the same entries end it).
        const kept = message.keepPlace ? autoScroll.place() : undefined;
        transcript.reset(message.entries, message.earlier);
        // Moved here from the tab or the view: that place's draft, not what this document last held.
        if (message.carried) composer.replaceDraft(message.carried.draft);
        if (message.input) composer.restore(message.input.text, message.input.files);
        if (lost.length > 0) composer.restore(joinGivenBack(lost));
        if (message.folder) saveState({ folder: message.folder });
        const scroll = snapshotScroll(message, kept);
        if (scroll.to === 'end') autoScroll.stick();
        else autoScroll.settle(scroll.place, scroll.carried, scroll.holdsStart);
        autoScroll.keep(transcript.drawing, transcript.earlierLeft > 0);
        if (!painted) performance.mark('reins:snapshot-applied');
        markPainted();
        break;
      }
      case 'status':
        applyStatus(message.status);
        break;
      case 'earlier':
        transcript.prepend(message.before, message.entries, message.earlier);
        break;
      case 'upsert':
        transcript.upsert(message.entry, message.before);
        break;
      case 'append':
        transcript.append(message.id, message.text);
        break;
      case 'output':
        transcript.output(message.id, message.text, message.total);
        break;
      case 'restoreInput':
        composer.restore(message.text, message.files);
        composer.focus();
        break;
      case 'focusInput':
        composer.focus();
        break;
      case 'showEntry':
        transcript.show(message.id, message.query, () => autoScroll.leave());
        break;
      case 'fileMatches':
        composer.fileMatches(message.requestId, message.files);
        break;
      case 'batch':
        // One flush of the host's outbox, in one task: drawn in one frame (outbox.ts says why).
        for (const part of message.messages) handleOne(part);
        break;
      default:
        assertNever(message);
    }
  }

  function handleOne(message: HostToWebview): void {
    if (!message || typeof message !== 'object' || typeof message.type !== 'string') return;
    try {
      handle(message);
    } catch (err) {
      // One bad message must not take the panel down with it (nor the rest of its batch).
      console.error('[reins] failed to handle', message.type, err);
    }
  }

  /** The first snapshot on screen: the frame after it was applied (the bench's first paint). */
  let painted = false;
  function markPainted(): void {
    if (painted) return;
    painted = true;
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.mark('reins:snapshot-painted');
        // After the first paint, not before it: the highlighter is the webview's second bundle.
        const src = ownScript?.dataset.highlight;
        if (src) loadHighlighter(src, ownScript?.nonce ?? '', transcriptEl);
      }, 0),
    );
  }

  // Unless the page's first script said it already (vscodeApi.ts listen).
  if (!listen((message) => handleOne(message as HostToWebview))) post({ type: 'ready' });
}

// The host may load this script in <head>, before #app exists.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
