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
