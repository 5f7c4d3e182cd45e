// What the turn machine's table tests share: one configuration, one clock reading, and a run of
// events through the pure machine that gathers every effect.
import { initialState, transition, type Effect, type MachineConfig, type MachineEvent, type MachineState } from '../../src/runtime/turnMachine';

export const config: MachineConfig = { settleBudgetMs: 10_000, busyRetryBudgetMs: 6_000, turnLimitMs: 0, toolCallCap: 0 };
/** A clock reading. */
export const T = 1000;

/** `events` through the machine from `from`: the state reached and every effect, in order. */
export function run(events: MachineEvent[], from: MachineState = initialState, with_: MachineConfig = config): { state: MachineState; effects: Effect[] } {
  let state = from;
  const effects: Effect[] = [];
  for (const e of events) {
    const t = transition(state, e, with_);
    state = t.state;
    effects.push(...t.effects);
  }
  return { state, effects };
}
