// A prompt and the checkout lock held by another window (admission/checkoutLock.ts): as the
// in-window admission does, an unverified stop there refuses; a running turn there asks (or, with
// `keep`, refuses). Another window's turn cannot be stopped from here, so the choice is to wait:
// the prompt joins the folder's line (admission/checkoutLine.ts) and goes, in the order it was
// sent, once that window lets go, unless a Stop here ends the wait and gives it back.
import { droppedText } from './checkoutLine';
import { askModal } from '../ui/notify';
import type { WhenBusy } from '../api';
import type { LockHolder } from './checkoutLock';
import { CheckoutLine, type LineOutcome } from './checkoutLineController';
import type { CheckoutAdmission } from './checkoutAdmission';
import { turnActive, type TurnState } from '../runtime/turnMachine';
import { joinGivenBack } from '../shared/givenBack';

/** The checkout is this prompt's (`id`: it came through the line; call `line.ended(id)` when it ends), or why not. */
export type CheckoutTurn = { go: true; id?: number } | { go: false; reason: string; givenBack: boolean };

const other = (h: LockHolder) => `${h.agent} (in another window, on ${h.folder})`;

/** Why a prompt cannot wait for `holder`: its last stop there is not confirmed. */
function unverifiedText(holder: LockHolder): string {
  return `${other(holder)} did not confirm that its last turn stopped, so no new turn starts in this checkout. Check again or force stop it in that window.`;
}

/** Take the checkout for a prompt, or wait in line for it (asked first, unless `whenBusy` says). */
export async function awaitCheckout(
  line: CheckoutLine,
  whenBusy: WhenBusy,
  text: string,
  files: string[] | undefined,
  notice: (text: string) => void,
): Promise<CheckoutTurn> {
  const refuse = (reason: string): CheckoutTurn => ({ go: false, reason, givenBack: false });
  if (line.mustJoin) {
    // Prompts sent before it still wait: it goes after them, never past them (the question was answered for the line).
    if (whenBusy === 'keep') return refuse('Prompts sent earlier are waiting for another window to finish its turn. Your prompt was not sent.');
    return fromLine(await line.join(text, files));
  }
  const verdict = await line.take();
  if (verdict.open) return { go: true };
  if (verdict.why === 'unverified') return refuse(unverifiedText(verdict.holder));
  const busy = `${other(verdict.holder)} is running a turn in this checkout. One turn runs in a checkout at a time.`;
  if (whenBusy === 'keep') return refuse(`${busy} Your prompt was not sent.`);
  // Queue: the prompt waits for a turn to end; the other window's is such a turn, no question asked.
  const choice = whenBusy === 'queue' ? 'Wait and Send' : await askModal(`${busy} Wait for it to finish and send your prompt then?`, {}, 'Wait and Send');
  if (choice !== 'Wait and Send') return refuse(`${busy} Your prompt was not sent.`);
  if (!line.mustJoin) notice(`Waiting for ${other(verdict.holder)} to finish its turn; your prompt goes then. Stop ends the wait and gives it back.`);
  return fromLine(await line.join(text, files, verdict.holder.agent));
}

function fromLine(outcome: LineOutcome): CheckoutTurn {
  return outcome.go ? { go: true, id: outcome.id } : { go: false, reason: outcome.reason, givenBack: true };
}

/** What a folder conversation's line needs of it. */
export interface LineOwner {
  runtime(): { readonly name: string; readonly turns: { readonly turn: TurnState } } | undefined;
  agentName(): string;
  giveBack(text: string, why: string, files: string[]): void;
  changed(): void;
}

/** The folder's line, looking at its checkout's lock, giving dropped prompts back to its input box. */
export function checkoutLine(lock: CheckoutAdmission, owner: LineOwner): CheckoutLine {
  return new CheckoutLine({
    take: () => lock.take(owner.runtime()?.name ?? owner.agentName()),
    release: () => void lock.release(),
    ownTurnBusy: () => {
      const turn = owner.runtime()?.turns.turn;
      return !!turn && (turnActive(turn) || turn.phase === 'unverified');
    },
    unverifiedText,
    dropped: (prompts, cause, holder) =>
      owner.giveBack(
        joinGivenBack(prompts.map((p) => p.text)),
        droppedText(prompts, cause, holder),
        prompts.flatMap((p) => p.files ?? []),
      ),
    changed: () => owner.changed(),
  });
}
