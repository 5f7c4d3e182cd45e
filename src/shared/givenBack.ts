// Text that goes back to the input box comes in pieces: a stopped turn's prompt, the prompts
// queued behind it, a prompt refused meanwhile. None may replace another: they are joined, in
// the order they were typed, one blank line apart. Pure: both the host (inputReturn.ts) and the
// webview (a queue the reload took, composer.ts) use it.
import type { GivenBack } from './messages';

/** `texts` as one, in order, blank ones left out; two equal texts stay two (both were typed). */
export function joinGivenBack(texts: readonly string[]): string {
  return texts.filter((text) => text.trim() !== '').join('\n\n');
}

/** What waits for the input box, and `next` after it: the texts joined, the files of both. */
export function joinPending(waiting: GivenBack | undefined, next: GivenBack): GivenBack {
  if (!waiting) return next;
  const files = [...(waiting.files ?? []), ...(next.files ?? []).filter((f) => !waiting.files?.some((w) => w.uri === f.uri))];
  return { text: joinGivenBack([waiting.text, next.text]), ...(files.length > 0 && { files }) };
}
