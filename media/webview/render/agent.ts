// The agent's reply: Markdown that streams in. Appends only grow the text; the transcript
// calls flush() at most once per animation frame. Finished blocks are added to the DOM once
// and left alone; only the open (last) block is replaced (markdownStream.ts), and a long
// text is worked through for a bounded time per frame, so neither a fast stream nor a huge
// answer holds the frame. The element is not a live region: the transcript announces the
// answer once it is complete, not chunk by chunk.
import type { TranscriptEntry } from '../../../src/shared/messages';
import { el } from '../dom';
import { TOO_DEEP_NOTE } from '../markdown';
import { MarkdownStream } from '../markdownStream';
import { entryShell, type EntryView } from './types';

/** Work per frame on a long answer; the rest waits for the next frame. */
const FRAME_BUDGET_MS = 8;

export function createAgentView(entry: Extract<TranscriptEntry, { kind: 'agent' }>): EntryView {
  const root = entryShell(entry);
  root.setAttribute('aria-live', 'off');
  const body = el('div', 'markdown-body');
  root.append(body);
  // Finished blocks go before `openStart`; the open block lies between the two markers; text
  // past the nesting limit comes after `openEnd`.
  const openStart = document.createComment('open');
  const openEnd = document.createComment('/open');
  body.append(openStart, openEnd);
  let plain: Text | undefined;
  const stream = new MarkdownStream();
  stream.replace(entry.markdown);

  const clear = (): void => {
    body.replaceChildren(openStart, openEnd);
    plain = undefined;
  };

  /** Brings the DOM up to date, or as far as one frame's budget goes; true when work is left. */
  const flush = (): boolean => {
    const started = performance.now();
    let finished = '';
    let open: string | undefined;
    let plainText = '';
    let tooDeep = false;
    while (stream.pending) {
      const step = stream.step();
      finished += step.finished;
      if (step.open !== undefined) open = step.open;
      if (step.plainText) plainText += step.plainText;
      tooDeep ||= step.tooDeep === true;
      if (!step.more || performance.now() - started > FRAME_BUDGET_MS) break;
    }
    if (finished) body.insertBefore(fragment(finished), openStart);
    if (open !== undefined) {
      while (openStart.nextSibling && openStart.nextSibling !== openEnd) openStart.nextSibling.remove();
      if (open) body.insertBefore(fragment(open), openEnd);
    }
    if (tooDeep) plain = appendPlain(body);
    if (plainText && plain) plain.appendData(plainText);
    root.classList.toggle('empty', stream.blank);
    return stream.pending;
  };
  flush();

  return {
    kind: 'agent',
    el: root,
    update(next) {
      if (next.kind !== 'agent') return;
      if (!stream.replace(next.markdown)) clear();
      flush();
    },
    append(text) {
      stream.append(text);
    },
    flush,
    complete() {
      stream.complete();
    },
    get text() {
      return stream.text;
    },
  };
}

/** HTML from markdown.ts (escaped by markdown-it, html: false) as nodes. */
function fragment(html: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = html;
  return template.content;
}

/** Past the nesting limit the rest is text, said so: nothing of the answer is dropped. */
function appendPlain(body: HTMLElement): Text {
  const note = el('p', 'md-too-deep', TOO_DEEP_NOTE);
  const pre = el('pre', 'md-plain');
  const text = document.createTextNode('');
  pre.append(text);
  body.append(note, pre);
  return text;
}
