// The fault matrix's one table (faultMatrix.test.ts runs it): where the agent is when the fault
// hits (the protocol point), what the fault is (SIGKILL or a hang), and which exit path the
// user or Reins then takes. A cell that cannot happen or means nothing says why, and is printed
// with its reason instead of being run.
import type { Fault } from '../../src/demoAgent/faults';
import { nth } from '../support/helpers';

export type Point = 'initialize' | 'session/new' | 'streaming' | 'permission' | 'cancel unwind' | 'terminal' | 'file write';
export type Exit =
  'Stop' | 'time limit' | 'tool cap' | 'panel closed' | 'send now' | 'new session' | 'switch agent' | 'restart' | 'deactivation' | 'host killed';

const POINTS: Point[] = ['initialize', 'session/new', 'streaming', 'permission', 'cancel unwind', 'terminal', 'file write'];
const FAULTS: Fault[] = ['kill', 'hang'];
const EXITS: Exit[] = ['Stop', 'time limit', 'tool cap', 'panel closed', 'send now', 'new session', 'switch agent', 'restart', 'deactivation', 'host killed'];

export interface Cell {
  point: Point;
  fault: Fault;
  exit: Exit;
  /** Why the cell is not run; undefined: it runs. */
  skip?: string;
}

/** The points before any turn exists: the prompt waits for the agent's start. */
export const START_POINTS: Point[] = ['initialize', 'session/new'];

export const REASONS = {
  noTurn:
    'no turn exists yet: the prompt waits for the start, which reins.initializeTimeoutSeconds bounds; the time limit and the tool cap count from the prompt',
  deadFirst: 'the kill ends the turn (a dead stream) before any limit can; the cancel-unwind row is where a limit meets a dying agent',
  capNeedsCalls: 'a killed or hung agent sends no more tool calls, so the cap cannot be reached after the fault; the cancel-unwind row has the cap meet it',
  endsHost:
    'ends the extension host, so one run per host: the deactivation test (zz_deactivate.test.ts: a hung agent with a tool running) and the lifeline smoke (npm run test:lifeline: the host SIGKILLed, the watchdog ends the agent tree) cover it',
} as const;

function skipReason(point: Point, fault: Fault, exit: Exit): string | undefined {
  if (exit === 'deactivation' || exit === 'host killed') return REASONS.endsHost;
  const start = START_POINTS.includes(point);
  if (start && (exit === 'time limit' || exit === 'tool cap')) return REASONS.noTurn;
  if (point === 'cancel unwind') return undefined;
  if (exit === 'tool cap') return REASONS.capNeedsCalls;
  if (exit === 'time limit' && fault === 'kill') return REASONS.deadFirst;
  return undefined;
}

export function allCells(): Cell[] {
  const cells: Cell[] = [];
  for (const point of POINTS) for (const fault of FAULTS) for (const exit of EXITS) cells.push({ point, fault, exit, skip: skipReason(point, fault, exit) });
  return cells;
}

/**
 * The cells `npm test` runs: every point with both faults, each with one runnable exit path,
 * turning through the exit paths so that each of them is taken at least once. The whole matrix
 * runs in `npm run test:reliability` (REINS_FAULT_MATRIX=full).
 */
export function representativeCells(): Cell[] {
  const runnable = allCells().filter((c) => !c.skip);
  const picked: Cell[] = [];
  let turn = 0;
  for (const point of POINTS) {
    for (const fault of FAULTS) {
      const options = runnable.filter((c) => c.point === point && c.fault === fault);
      if (options.length === 0) continue;
      // The next exit in turn that this row can take.
      for (let i = 0; i < EXITS.length; i++) {
        const exit = nth(EXITS, (turn + i) % EXITS.length, 'EXITS');
        const cell = options.find((c) => c.exit === exit);
        if (cell) {
          picked.push(cell);
          turn = (EXITS.indexOf(exit) + 1) % EXITS.length;
          break;
        }
      }
    }
  }
  return picked;
}

/** A cell's name in the results. */
export const key = (c: Pick<Cell, 'point' | 'fault' | 'exit'>): string => `${c.point}|${c.fault}|${c.exit}`;

/** The matrix as a Markdown table: a row per point and fault, a column per exit path. */
export function matrixTable(results: Map<string, string>, cells: Cell[]): string {
  const byKey = new Map(cells.map((c) => [key(c), c]));
  const lines = [`| point, fault | ${EXITS.join(' | ')} |`, `|---|${EXITS.map(() => '---').join('|')}|`];
  for (const point of POINTS) {
    for (const fault of FAULTS) {
      const row = EXITS.map((exit) => {
        const cell = byKey.get(key({ point, fault, exit }));
        if (!cell) return '·';
        if (cell.skip) return `n/a (${Object.entries(REASONS).find(([, r]) => r === cell.skip)?.[0] ?? '?'})`;
        return results.get(key(cell)) ?? 'not run';
      });
      lines.push(`| ${point}, ${fault} | ${row.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}
