// When the kept transcript is written (src/persistence/saveSchedule.ts), as a table: each row a list
// of changes at given times, and the times the transcript was written.
import * as assert from 'node:assert/strict';
import { SAVE_INTERVAL_MS as S, SaveSchedule, STREAMING_SAVE_INTERVAL_MS as L, type SaveTimers } from '../../src/persistence/saveSchedule';
import type { TranscriptOp } from '../../src/runtime/transcript';

const append: TranscriptOp = { type: 'append', id: 'a1', text: 'x' };
const upsert: TranscriptOp = { type: 'upsert', entry: { kind: 'notice', id: 'n1', level: 'info', text: 'n' } };
const turnEnded = { type: 'turn-ended' } as const;
type Change = TranscriptOp | typeof turnEnded;

/** A clock and timers that move only when told. */
function fakeTimers(): SaveTimers & { advanceTo(t: number): void } {
  let t = 0;
  let next = 0;
  const pending = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => t,
    set: (run, ms) => (pending.set(++next, { at: t + ms, run }), next),
    clear: (handle) => void pending.delete(handle as number),
    advanceTo(to) {
      for (;;) {
        const [id, first] = [...pending].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
        if (id === undefined || first === undefined || first.at > to) break;
        pending.delete(id);
        t = first.at;
        first.run();
      }
      t = to;
    },
  };
}

function writes(changes: [number, Change][], until: number): number[] {
  const timers = fakeTimers();
  const written: number[] = [];
  const schedule = new SaveSchedule(() => written.push(timers.now()), timers);
  for (const [at, op] of changes) {
    timers.advanceTo(at);
    schedule.changed(op);
  }
  timers.advanceTo(until);
  return written;
}

describe('saveSchedule: when the kept transcript is written', () => {
  const rows: [string, [number, Change][], number, number[]][] = [
    ['a new entry: written SAVE_INTERVAL_MS later', [[0, upsert]], 60_000, [S]],
    [
      'changes in a row: one write, not after the last change',
      [
        [0, upsert],
        [1000, upsert],
        [1900, upsert],
      ],
      60_000,
      [S],
    ],
    // Sabotage (streamed text due within SAVE_INTERVAL_MS, as before session 11), this printed:
    //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
    //   + actual - expected
    //   [ + 2000, + 4000, + 6000, + 8000, + 10000, ... (a write every 2 s while text streamed)
    [
      'only streamed text: written every STREAMING_SAVE_INTERVAL_MS',
      Array.from({ length: 300 }, (_, i) => [i * 100, append] as [number, TranscriptOp]),
      30_000,
      [L, 2 * L, 3 * L],
    ],
    [
      'a new entry while text streams brings the write forward',
      [
        [0, append],
        [500, upsert],
      ],
      60_000,
      [500 + S],
    ],
    [
      'streamed text after a new entry does not put its write off',
      [
        [0, upsert],
        [500, append],
      ],
      60_000,
      [S],
    ],
    // Without the turn's end due as a new entry (streamed text's interval for it), this printed:
    //   + actual - expected: [ + 10000 - 3000 ] (the answer's end kept 10 s after its last chunk)
    [
      "a turn's end after streamed text brings the write forward",
      [
        [0, append],
        [1000, turnEnded],
      ],
      60_000,
      [1000 + S],
    ],
    ['nothing changed: nothing written', [], 60_000, []],
  ];
  for (const [name, changes, until, expected] of rows) {
    it(name, () => assert.deepEqual(writes(changes, until), expected));
  }

  it('now() writes at once and forgets what was due', () => {
    const timers = fakeTimers();
    const written: number[] = [];
    const schedule = new SaveSchedule(() => written.push(timers.now()), timers);
    schedule.changed(upsert);
    timers.advanceTo(500);
    schedule.now();
    timers.advanceTo(60_000);
    assert.deepEqual(written, [500]);
  });
});
