// The one set of test helpers (waiting, and reading what a test has asserted is there) for every
// TypeScript suite: test/unit, test/process, test/integration (in the extension host), test/agents
// and test/bench. Node built-ins only, no `vscode`, so that all of them can import it. The host
// scripts (test/host/*.mjs) run under plain `node` with no build step and cannot import
// TypeScript: they keep their own small copies.
import { AssertionError } from 'node:assert';
import { readFileSync } from 'node:fs';

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * What this test process appends to the length of each `sleep` it starts (its pid, 7 digits):
 * tests that look for their sleeps in the machine's process list find only their own when
 * several suites run on one machine at once (other checkouts' runs start the same `sleep 35.1`). Without it, another shell's
 * `sleep 31.2`, `sleep 33.1`, `sleep 36.1` and `sleep 37.1` running meanwhile failed 4 tests of
 * test/process/terminals.test.ts and terminalRuntime.test.ts ("AssertionError: sleep 31.2, sleep
 * 31.2 still running", "AssertionError: runs after its turn ended", two timeouts); with it, none.
 */
export const RUN_TAG = String(process.pid).padStart(7, '0');

/** A `sleep` length unique to this run: `'35.1'` → `'35.10012345'` (35.1 s and a few µs more); `seconds` has a decimal point. */
export function sleepArg(seconds: string): string {
  return `${seconds}${RUN_TAG}`;
}

/**
 * Polls `cond` (every 20 ms) until it holds; rejects naming `what` after `ms`. Resolves to how
 * long it took, in ms. The default is generous because a failing wait only costs time, and the
 * extension host (code-server) is slower than a unit test.
 */
export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<number> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
  return Date.now() - t0;
}

/** The process `pid` is running: it exists (signal 0 tests without signalling) and is not a
 *  zombie, which has ended and only waits for its parent to reap it. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true; // no /proc here (macOS): signal 0 is all we know
  }
}

/**
 * `array[i]` (a negative `i` counts from the end, as `at` does), or an assertion error naming
 * `what` and the length when there is no such element: with noUncheckedIndexedAccess an index
 * is `T | undefined`, and a test that reads a recorded call should fail saying which is missing,
 * not with "cannot read properties of undefined" a line later.
 */
export function nth<T>(array: readonly T[], i: number, what = 'the array'): T {
  const value = array.at(i);
  if (value === undefined) {
    throw new AssertionError({ message: `${what} has no element ${i} (length ${array.length})` });
  }
  return value;
}

/** `value`, or an assertion error naming `what` when it is undefined or null (a lookup by key, a
 *  regular expression's group, a `find`). */
export function present<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new AssertionError({ message: `expected ${what}, got ${String(value)}` });
  return value;
}
