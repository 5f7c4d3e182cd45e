// Carries out the checkout line's effects (checkoutLine.ts) for one folder conversation: while a
// prompt waits at the head and nothing before it is still going, it looks at the checkout's lock
// every half second (another window gives no sign when its turn ends), after this folder's own
// turn has ended; each waiting prompt's promise settles when it goes or is dropped.
import { Deferred } from '../util/deferred';
import type { Disposable } from '../util/disposable';
import type { LockHolder, LockAdmission } from './checkoutLock';
import {
  emptyLine,
  headMayLook,
  lineView,
  mustJoin,
  transition,
  type DropCause,
  type LineEffect,
  type LineEvent,
  type LineView,
  type WaitingPrompt,
} from './checkoutLine';

export interface LineHost {
  /** Take the checkout for this folder's turn (CheckoutAdmission.take). */
  take(): Promise<LockAdmission>;
  /** Let the checkout go: it was taken for a prompt that was stopped meanwhile. */
  release(): void;
  /** This folder's own turn has not ended yet (active, or its stop unverified): the head waits for it first. */
  ownTurnBusy(): boolean;
  /** Why a wait for `holder` cannot end by itself (its stop unverified). */
  unverifiedText(holder: LockHolder): string;
  /** Prompts not sent: back to the input box together, in order, with what ended their wait (said once). */
  dropped(prompts: WaitingPrompt[], cause: DropCause, holder: string | undefined): void;
  /** The line changed: the panel, the status bar and the context keys derive again. */
  changed(): void;
}

/** A waiting prompt's end: it goes (the caller sends it and calls `ended(id)` once its turn ends), or it was dropped (its text already given back). */
export type LineOutcome = { go: true; id: number } | { go: false; reason: string };

export class CheckoutLine implements Disposable {
  private state = emptyLine;
  private readonly outcomes = new Map<number, Deferred<LineOutcome>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private looking = false;

  constructor(
    private readonly host: LineHost,
    private readonly lookEveryMs = 500,
  ) {}

  /** What the panel and status bar show (undefined: nothing waits). */
  get view(): LineView | undefined {
    return lineView(this.state);
  }

  /** A new prompt waits in line rather than taking the checkout (those before it go first). */
  get mustJoin(): boolean {
    return mustJoin(this.state);
  }

  /** Take the checkout for this folder's turn now, or say who holds it (a prompt with nobody waiting before it). */
  take(): Promise<LockAdmission> {
    return this.host.take();
  }

  /** Wait in line behind any prompt already waiting, for `holder`'s turn in another window. */
  join(text: string, files: readonly string[] | undefined, holder?: string): Promise<LineOutcome> {
    const outcome = new Deferred<LineOutcome>();
    this.outcomes.set(this.state.lastId + 1, outcome);
    this.dispatch({ type: 'join', text, files, holder });
    return outcome.promise;
  }

  /** The prompt that went (`go`) ended: the next one may look. */
  ended(id: number): void {
    this.dispatch({ type: 'ended', id });
  }

  /** Stop: every waiting prompt back to the input box. True if any was waiting. */
  stop(): boolean {
    const waited = this.state.waiting.length > 0;
    this.dispatch({ type: 'stop' });
    return waited;
  }

  dispose(): void {
    this.dispatch({ type: 'dispose' });
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private dispatch(event: LineEvent): void {
    const holder = this.state.holder;
    const { state, effects } = transition(this.state, event);
    const changed = state !== this.state;
    this.state = state;
    for (const effect of effects) this.run(effect, holder);
    if (changed) this.host.changed();
    if (event.type !== 'dispose') this.schedule();
  }

  private run(effect: LineEffect, holder: string | undefined): void {
    switch (effect.kind) {
      case 'go':
        this.settle(effect.id, { go: true, id: effect.id });
        return;
      case 'drop': {
        const reason =
          effect.cause.kind === 'refused'
            ? effect.cause.why
            : effect.cause.kind === 'stopped'
              ? 'stopped while waiting for another window'
              : 'the conversation closed';
        for (const prompt of effect.prompts) this.settle(prompt.id, { go: false, reason });
        this.host.dropped(effect.prompts, effect.cause, holder);
        return;
      }
      case 'release':
        this.host.release();
        return;
    }
  }

  private settle(id: number, outcome: LineOutcome): void {
    this.outcomes.get(id)?.resolve(outcome);
    this.outcomes.delete(id);
  }

  private schedule(): void {
    if (this.timer !== undefined || this.looking || !headMayLook(this.state)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.look();
    }, this.lookEveryMs);
  }

  /** The head looks at the lock, once this folder's own turn has ended. */
  private async look(): Promise<void> {
    if (!headMayLook(this.state)) return;
    if (this.host.ownTurnBusy()) return this.schedule();
    this.looking = true;
    let verdict: LockAdmission;
    try {
      verdict = await this.host.take();
    } catch {
      verdict = { open: true }; // as CheckoutAdmission does: a lock that cannot be read does not hold the user's work
    } finally {
      this.looking = false;
    }
    if (verdict.open) this.dispatch({ type: 'taken' });
    else if (verdict.why === 'unverified') this.dispatch({ type: 'refused', why: this.host.unverifiedText(verdict.holder) });
    else this.dispatch({ type: 'held', holder: verdict.holder.agent });
  }
}
