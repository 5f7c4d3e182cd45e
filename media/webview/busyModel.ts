// Enter while a turn runs, pure parts: what Enter does (send, the reins.whenBusy choice, or ask),
// the choices the panel offers and their keys, and a queue a window reload took (its text goes
// back to the input box). No DOM here: test/unit/busyModel.test.ts runs it in plain Node.
import type { BusyChoice, PanelStatus } from '../../src/shared/messages';

/** A turn a prompt can wait for or steer into. Not a stopping one: Enter then joins the stop and sends. */
export function turnBusy(status: PanelStatus | undefined): boolean {
  return status?.turn === 'running' || status?.turn === 'sending';
}

/** What Enter does now: send as usual, do what reins.whenBusy says, or ask. */
export function enterAction(status: PanelStatus | undefined): 'send' | 'ask' | BusyChoice {
  if (!status || !turnBusy(status)) return 'send';
  return status.whenBusy;
}

export interface ChoiceOption {
  choice: BusyChoice;
  label: string;
  /** What it does, for the tooltip and screen readers. */
  description: string;
  /** The key that picks it while the choices show. */
  key: string;
}

/** Each choice's name, wherever the panel names it (the choice's button, Send's tooltip). */
export const CHOICE_LABEL: Readonly<Record<BusyChoice, string>> = { queue: 'Queue', steer: 'Steer', stopAndSend: 'Stop and Send' };

/**
 * The choices, in order, numbered 1 to 3: Queue first, the default (Enter picks it, and it
 * leaves the running turn alone), Steer only where the agent can take text into a turn, Stop
 * and Send last (it ends the agent's work).
 */
export function busyChoices(canSteer: boolean): ChoiceOption[] {
  const options: Omit<ChoiceOption, 'key'>[] = [
    { choice: 'queue', label: CHOICE_LABEL.queue, description: 'Send it when the running turn ends by itself' },
    ...(canSteer ? [{ choice: 'steer' as const, label: CHOICE_LABEL.steer, description: 'Add it to the running turn without stopping it' }] : []),
    { choice: 'stopAndSend', label: CHOICE_LABEL.stopAndSend, description: 'Stop the running turn, then send it' },
  ];
  return options.map((o, i) => ({ ...o, key: String(i + 1) }));
}

/** The choice a key picks while the choices show (Enter is the focused button's own). */
export function choiceForKey(key: string, options: readonly ChoiceOption[]): BusyChoice | undefined {
  return options.find((o) => o.key === key)?.choice;
}

/** What the panel keeps of the queue it last showed, with the extension host that had it. */
export interface SeenQueue {
  host?: string;
  queued?: string[];
}

/**
 * Texts of a queue this panel showed under another extension host: a window reload ended that
 * host and its queue, so they go back to the input box. Under the same host the queue drained
 * (sent, or given back by the host itself): nothing to do.
 */
export function lostQueue(seen: SeenQueue, host: string | undefined): string[] {
  if (!host || !seen.host || seen.host === host) return [];
  return seen.queued ?? [];
}
