// Timing, rows and the table for `npm run bench`. Every figure is printed next to a baseline
// measured in the same run, and judged only as a ratio (or, for memory, a size) against it:
// absolute times on a shared 2-core machine say little, the ratio says what Reins adds.
import { performance } from 'node:perf_hooks';
import { nth } from '../support/helpers';

export interface Row {
  /** Short name, e.g. "framing (reader)". */
  name: string;
  /** Reins's figure, formatted, e.g. "312 MB/s · 1.9 M msg/s". */
  reins: string;
  /** The baseline's figure, formatted the same way. */
  baseline: string;
  /** Reins's cost / the baseline's cost: 1.00 = as cheap as the baseline, higher = costlier. */
  ratio: number | undefined;
  /** The target in words, e.g. "ratio ≤ 3". */
  target: string;
  /** undefined: informational only (no target) or not measurable here ("n/a"). */
  pass: boolean | undefined;
  /** Anything else worth a line under the table. */
  note?: string;
}

export const rows: Row[] = [];

export function record(row: Row): void {
  rows.push(row);
  const verdict = row.pass === undefined ? 'info' : row.pass ? 'PASS' : 'FAIL';
  console.log(`  ${row.name}: Reins ${row.reins} | baseline ${row.baseline} | ratio ${fmtRatio(row.ratio)} | target ${row.target} → ${verdict}`);
  if (row.note) console.log(`    ${row.note}`);
}

function fmtRatio(r: number | undefined): string {
  return r === undefined || !Number.isFinite(r) ? 'n/a' : `${r.toFixed(2)}×`;
}

export function now(): number {
  return performance.now();
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  // An empty list has no median: NaN, which the report prints as such.
  const at = (i: number) => s[i] ?? Number.NaN;
  return s.length % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
}

interface Spread {
  median: number;
  p90: number;
  p99: number;
  max: number;
  runs: number;
}

/** The spread of a sample: what a row prints, so one lucky or unlucky run does not decide it. */
function spread(xs: number[]): Spread {
  return { median: median(xs), p90: percentile(xs, 90), p99: percentile(xs, 99), max: Math.max(...xs), runs: xs.length };
}

/** "median 1.2 ms · p90 1.5 · p99 2.0 · max 2.0 ms (21 runs)". */
export function fmtSpread(xs: number[], unit = 'ms'): string {
  if (xs.length === 0) return 'n/a';
  const s = spread(xs);
  const f = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  return `median ${f(s.median)} ${unit} · p90 ${f(s.p90)} · p99 ${f(s.p99)} · max ${f(s.max)} ${unit} (${s.runs} runs)`;
}

/**
 * Runs each function once to warm up, then `rounds` times in turn (the order rotating each
 * round, a full collection before each run), and returns every run's time in ms by name.
 * Taking turns spreads the machine's background load over all of them alike.
 */
export async function alternate<K extends string>(rounds: number, fns: Record<K, () => unknown>): Promise<Record<K, number[]>> {
  const names = Object.keys(fns) as K[];
  const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (const n of names) await fns[n]();
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < names.length; k++) {
      const n = nth(names, (i + k) % names.length, 'the names');
      gc();
      const t = now();
      await fns[n]();
      times[n].push(now() - t);
    }
  }
  return times;
}

/** A full collection when node runs with --expose-gc; nothing otherwise. */
export function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export const hasGc = (): boolean => typeof (globalThis as { gc?: unknown }).gc === 'function';

export const MB = 1024 * 1024;

export function fmtRate(count: number, ms: number, unit: string): string {
  const perSec = count / (ms / 1000);
  return perSec >= 1e6 ? `${(perSec / 1e6).toFixed(2)} M ${unit}/s` : `${(perSec / 1e3).toFixed(0)} k ${unit}/s`;
}

export function fmtMs(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}

/** The compact table at the end. */
export function printTable(): void {
  const head = ['benchmark', 'Reins', 'baseline', 'ratio', 'target', 'result'];
  const body = rows.map((r) => [r.name, r.reins, r.baseline, fmtRatio(r.ratio), r.target, r.pass === undefined ? 'info' : r.pass ? 'PASS' : 'FAIL']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  console.log('');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
}
