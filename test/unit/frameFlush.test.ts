// The transcript draws batched text at most once per animation frame, however late the frames
// come, and by a timer only while the webview is hidden (it gets no frames then). Played on a
// fake clock: a script of events, and the draws each frame saw.
//
// Sabotage (frameFlush.ts's schedule() setting the timer whether hidden or not, as before the
// fix), this printed:
//   AssertionError [ERR_ASSERTION]: late frames while shown: draws per frame [2,2]
//   AssertionError [ERR_ASSERTION]: shown again: no timer, only frames draw: draws (1 !== 0)
import * as assert from 'node:assert/strict';
import { FrameFlush, HIDDEN_FLUSH_MS, KEY_FRAME_MS, type FrameClock } from '../../media/webview/frameFlush';

type Event = 'append' | { elapse: number } | 'frame' | 'hide' | 'show' | 'key';

/** A clock whose frames come only when the script says, and whose timers fire as time passes. */
class ScriptClock implements FrameClock {
  now = 0;
  isHidden = false;
  private nextId = 1;
  readonly frames = new Map<number, (time: number) => void>();
  readonly timers = new Map<number, { at: number; run: () => void }>();
  requestFrame(run: (time: number) => void): number {
    const id = this.nextId++;
    this.frames.set(id, run);
    return id;
  }
  cancelFrame(id: number): void {
    this.frames.delete(id);
  }
  setTimer(run: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.now + ms, run });
    return id;
  }
  clearTimer(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  hidden(): boolean {
    return this.isHidden;
  }
  elapse(ms: number): void {
    this.now += ms;
    for (const [id, t] of [...this.timers]) {
      if (t.at > this.now || !this.timers.has(id)) continue;
      this.timers.delete(id);
      t.run();
    }
  }
  frame(): void {
    const due = [...this.frames.values()];
    this.frames.clear();
    for (const run of due) run(this.now);
  }
}

/** Plays `events`; returns how many draws happened between frames (the last count: after the last frame). */
function play(events: Event[], keepDirty = false): { drawsPerFrame: number[]; draws: number } {
  const clock = new ScriptClock();
  let draws = 0;
  let lastKey = -Infinity;
  const flush = new FrameFlush(
    () => {
      draws++;
      if (keepDirty) flush.schedule(); // a long answer asks for the next frame too
    },
    clock,
    () => lastKey,
  );
  const drawsPerFrame: number[] = [];
  let sinceFrame = 0;
  for (const e of events) {
    const before = draws;
    if (e === 'append') flush.schedule();
    else if (e === 'key') lastKey = clock.now;
    else if (e === 'frame') clock.frame();
    else if (e === 'hide') clock.isHidden = true;
    else if (e === 'show') clock.isHidden = false;
    else clock.elapse(e.elapse);
    sinceFrame += draws - before;
    if (e === 'frame') {
      drawsPerFrame.push(sinceFrame);
      sinceFrame = 0;
    }
  }
  return { drawsPerFrame, draws };
}

describe('frame flush: at most one draw per frame', () => {
  const table: { name: string; events: Event[]; drawsPerFrame?: number[]; draws: number }[] = [
    { name: 'appends in one frame draw once', events: ['append', 'append', 'append', 'frame'], drawsPerFrame: [1], draws: 1 },
    { name: 'nothing appended, nothing drawn', events: ['frame', 'frame'], drawsPerFrame: [0, 0], draws: 0 },
    {
      name: 'late frames while shown',
      // (a starved renderer: more text arrives while the frame is 400 ms late)
      events: ['append', { elapse: 400 }, 'append', 'frame', 'append', { elapse: 900 }, 'append', 'frame'],
      drawsPerFrame: [1, 1],
      draws: 2,
    },
    { name: 'hidden: the timer draws without frames', events: ['hide', 'append', { elapse: HIDDEN_FLUSH_MS }], draws: 1 },
    { name: 'hidden: not before its time', events: ['hide', 'append', { elapse: HIDDEN_FLUSH_MS - 1 }], draws: 0 },
    {
      name: 'hidden, then a frame after all: one draw, the timer forgotten',
      events: ['hide', 'append', 'frame', { elapse: HIDDEN_FLUSH_MS * 2 }],
      drawsPerFrame: [1],
      draws: 1,
    },
    { name: 'shown again: no timer, only frames draw', events: ['hide', 'show', 'append', { elapse: 1000 }], draws: 0 },
    // Sabotage (run() without its key check): "a key's frame paints the key alone: draws per
    // frame [1,0]  + actual - expected  [ + 1, + 0 - 0, - 1 ]".
    {
      name: "a key's frame paints the key alone",
      events: ['append', { elapse: 5 }, 'key', { elapse: 5 }, 'frame', { elapse: 17 }, 'frame'],
      drawsPerFrame: [0, 1],
      draws: 1,
    },
    {
      name: 'a key a frame or more before the frame: drawn at once',
      events: ['key', { elapse: KEY_FRAME_MS }, 'append', 'frame'],
      drawsPerFrame: [1],
      draws: 1,
    },
    {
      name: 'keys in every frame (a key held down): the draw waits one frame, never two in a row',
      events: ['append', 'key', 'frame', 'key', 'frame', 'append', { elapse: 17 }, 'key', 'frame', 'key', 'frame'],
      drawsPerFrame: [0, 1, 0, 1],
      draws: 2,
    },
    { name: 'hidden: the timer draws, keys or not', events: ['hide', 'append', 'key', { elapse: HIDDEN_FLUSH_MS }], draws: 1 },
  ];
  for (const row of table)
    it(row.name, () => {
      const got = play(row.events);
      if (row.drawsPerFrame) assert.deepEqual(got.drawsPerFrame, row.drawsPerFrame, `${row.name}: draws per frame ${JSON.stringify(got.drawsPerFrame)}`);
      assert.equal(got.draws, row.draws, `${row.name}: draws`);
    });

  it('a long answer drawn over several frames: one slice per frame, late or not', () => {
    const got = play(['append', 'frame', { elapse: 700 }, 'frame', 'frame', { elapse: 300 }, 'frame'], true);
    assert.deepEqual(got.drawsPerFrame, [1, 1, 1, 1]);
  });

  it('cancel forgets the draw asked for', () => {
    const clock = new ScriptClock();
    clock.isHidden = true;
    let draws = 0;
    const flush = new FrameFlush(() => draws++, clock);
    flush.schedule();
    flush.cancel();
    clock.frame();
    clock.elapse(HIDDEN_FLUSH_MS);
    assert.equal(draws, 0);
  });
});
