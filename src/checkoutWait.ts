// A prompt and the checkout lock held by another window (session/checkoutLock.ts): as the
// in-window gate does, an unverified stop there refuses; a running turn there asks (or, with
// `keep`, refuses). Another window's turn cannot be stopped from here, so the choice is to wait:
// the prompt goes once that window lets go, unless a Stop here ends the wait.
import { askModal } from './notify';
import type { WhenBusy } from './api';
import type { LockHolder, LockVerdict } from './session/checkoutLock';

export interface CheckoutWaitHost {
  folderName: string;
  take(): Promise<LockVerdict>;
  /** A stop was requested since the prompt was sent (ends the wait). */
  stopped(): boolean;
  notice(text: string): void;
}

/** Undefined when the checkout is this prompt's; else why the prompt was not sent. */
export async function takeCheckout(host: CheckoutWaitHost, whenBusy: WhenBusy): Promise<string | undefined> {
  let verdict = await host.take();
  if (verdict.open) return undefined;
  const other = (h: LockHolder) => `${h.agent} (in another window, on ${h.folder})`;
  const unverified = (h: LockHolder) =>
    `${other(h)} did not confirm that its last turn stopped, so no new turn starts in this checkout. Check again or force stop it in that window.`;
  if (verdict.why === 'unverified') return unverified(verdict.holder);
  const busy = `${other(verdict.holder)} is running a turn in this checkout. One turn runs in a checkout at a time.`;
  if (whenBusy === 'keep') return `${busy} Your prompt was not sent.`;
  // Queue: the prompt waits for a turn to end; the other window's is such a turn, no question asked.
  const choice = whenBusy === 'queue' ? 'Wait and Send' : await askModal(`${busy} Wait for it to finish and send your prompt then?`, {}, 'Wait and Send');
  if (choice !== 'Wait and Send') return `${busy} Your prompt was not sent.`;
  host.notice(`Waiting for ${other(verdict.holder)} to finish its turn; your prompt goes then. Stop cancels the wait.`);
  while (!verdict.open) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (host.stopped()) return 'Stopped while waiting for the other window: your prompt was not sent.';
    verdict = await host.take();
    if (!verdict.open && verdict.why === 'unverified') return unverified(verdict.holder);
  }
  return undefined;
}
