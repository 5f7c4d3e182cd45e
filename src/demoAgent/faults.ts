// Faults a scenario injects at a protocol point, for the fault matrix
// (test/integration/faultMatrix.test.ts): the agent killed with SIGKILL (as by the OOM killer
// or a user's `kill -9`: no handler runs, nothing is flushed) or hung (alive, but it reads and
// writes nothing more, so no request of the client is ever answered). With a marker file the
// fault fires once for the agent's configuration: a later process of the same agent finds the
// marker and behaves (server.ts answers its prompts at once), so a test can show that the
// folder works again after the fault.
import { existsSync, writeFileSync } from 'node:fs';
import type { Recorder } from './recorder';

export type Fault = 'kill' | 'hang';

let frozen = false;

/** A `hang` fault fired: nothing more is read or written. */
export function isFrozen(): boolean {
  return frozen;
}

/** The marker exists: an earlier process of this agent had its fault; this one is healthy. */
export function faultSpent(marker: string | undefined): boolean {
  return marker !== undefined && existsSync(marker);
}

/**
 * Fires `fault` now. False: the marker says it fired already in an earlier process, or the
 * `armed` file (when given) does not exist yet, so that a test can start the agent healthy and
 * have the fault hit the next start.
 */
export function injectFault(rec: Recorder, fault: Fault, at: string, marker: string | undefined, armed?: string): boolean {
  if (faultSpent(marker) || frozen || (armed !== undefined && !existsSync(armed))) return false;
  if (marker !== undefined) writeFileSync(marker, `${fault} at ${at}\n`);
  rec.event('fault', { fault, at, pid: process.pid });
  if (fault === 'kill') {
    process.kill(process.pid, 'SIGKILL');
    return true;
  }
  frozen = true;
  process.stdin.pause();
  // Alive with nothing to do: a paused stdin and a pending promise would let Node exit, which
  // is exit evidence, not a hang.
  setInterval(() => {}, 1 << 30);
  return true;
}
