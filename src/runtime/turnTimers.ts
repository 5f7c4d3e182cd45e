// The turn machine's timers (turnMachine.ts: settle, resend, retry, the turn's limit): at most
// one of each name runs, a new start replaces it, and each fires as the machine's `timer` event.
// Kept out of the controller so that the machine's effects there read as one line each.
import type { TimerName } from './turnMachine';

export class TurnTimers {
  private readonly timers = new Map<TimerName, NodeJS.Timeout>();

  /** `fire`: timer `timer`, started for turn `turnId`, ran out. */
  constructor(private readonly fire: (timer: TimerName, turnId: number) => void) {}

  start(timer: TimerName, turnId: number, ms: number): void {
    clearTimeout(this.timers.get(timer));
    this.timers.set(
      timer,
      setTimeout(() => this.fire(timer, turnId), ms),
    );
  }

  clear(timer: TimerName): void {
    clearTimeout(this.timers.get(timer));
    this.timers.delete(timer);
  }

  clearAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
