// Backpressure on the agent's stdout (src/acp/readFlow.ts), as a table: a script of messages
// queued, handled, the clock moving on and the connection closing, and what the stream was told.
// No real time: the stall guard's timer is a fake one the script fires.
//
// Sabotage notes (each guard removed by hand once, the unit tests run, what they printed):
// - No pause (queued() never calling input.pause()): 11 failing, the first "over the message
//   limit (1,000 by default): it pauses: Expected values to be strictly deep-equal: + [] - ['pause']".
// - Resuming at the first message handled (the quarter check in handled() made `true`): 2 failing,
//   "it resumes at a quarter of the messages, not before" and "a quarter of the messages but not of
//   the bytes: still paused": "+ 'resume'".
// - No stall guard (armStall() setting no timer): 2 failing, "nothing handled for the stall time:
//   it resumes anyway: … - 'resume'" and the row after it.
// - The counts not started afresh after the guard (the old sizes kept): "after the stall guard,
//   what it let go cannot count below nothing: … - 'pause'".
// - Not released on close (close() doing nothing): 3 failing, "closed while paused: it resumes:
//   … - 'resume'", "closed: nothing pauses it again" and "no timer is left …".
// - Cancel notifications counted: "cancel notifications are not counted …: + ['pause'] - []".
import * as assert from 'node:assert/strict';
import { ReadFlow, type FlowLimits, type FlowTimers } from '../../src/acp/readFlow';

const limits: FlowLimits = { maxMessages: 8, maxBytes: 1000, resumeShare: 0.25, stallMs: 1000 };

/** A step of the script: `q N×B`: N messages of B bytes queued; `h N`: the N oldest handled; `tick`: the stall timer fires; `close`. */
type Step = string;

class FakeTimers implements FlowTimers {
  pending: (() => void) | undefined;
  setTimeout(fn: () => void): unknown {
    this.pending = fn;
    return fn;
  }
  clearTimeout(handle: unknown): void {
    if (this.pending === handle) this.pending = undefined;
  }
  fire(): void {
    const fn = this.pending;
    this.pending = undefined;
    fn?.();
  }
}

/** Runs the script; returns what the stream was told (pause / resume), in order. */
function run(steps: Step[]): { calls: string[]; flow: ReadFlow; timers: FakeTimers } {
  const calls: string[] = [];
  const timers = new FakeTimers();
  const flow = new ReadFlow({ pause: () => calls.push('pause'), resume: () => calls.push('resume') }, limits, timers);
  const waiting: object[] = [];
  for (const step of steps) {
    const [verb, arg = ''] = step.split(' ');
    if (verb === 'q') {
      const [n, bytes] = arg.split('×').map(Number);
      for (let i = 0; i < n!; i++) {
        const m = { jsonrpc: '2.0', method: 'session/update' };
        waiting.push(m);
        flow.queued(m, bytes!);
      }
    } else if (verb === 'cancel') {
      flow.queued({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 1 } }, 10);
    } else if (verb === 'h') {
      for (let i = 0; i < Number(arg); i++) flow.handled(waiting.shift()!);
    } else if (verb === 'tick') timers.fire();
    else if (verb === 'close') flow.close();
    else throw new Error(`unknown step ${step}`);
  }
  return { calls, flow, timers };
}

const rows: { name: string; steps: Step[]; calls: string[] }[] = [
  { name: 'up to the limits: it reads on', steps: ['q 7×10', 'q 1×900'], calls: [] },
  { name: 'over the message limit (1,000 by default): it pauses', steps: ['q 9×10'], calls: ['pause'] },
  { name: 'over the byte limit (4 MB by default): it pauses', steps: ['q 1×600', 'q 1×500'], calls: ['pause'] },
  { name: 'paused once, however much more comes before the pause takes', steps: ['q 9×10', 'q 20×10'], calls: ['pause'] },
  { name: 'it resumes at a quarter of the messages, not before', steps: ['q 10×10', 'h 1', 'h 6'], calls: ['pause'] },
  { name: 'at a quarter of the messages: it resumes', steps: ['q 10×10', 'h 8'], calls: ['pause', 'resume'] },
  { name: 'a quarter of the messages but not of the bytes: still paused', steps: ['q 1×20', 'q 1×990', 'h 1'], calls: ['pause'] },
  { name: 'paused and resumed again as often as it fills', steps: ['q 9×10', 'h 9', 'q 9×10'], calls: ['pause', 'resume', 'pause'] },
  { name: 'nothing handled for the stall time: it resumes anyway', steps: ['q 9×10', 'tick'], calls: ['pause', 'resume'] },
  { name: 'after the stall guard, counted afresh: what was counted before does not hold it', steps: ['q 9×10', 'tick', 'q 8×10'], calls: ['pause', 'resume'] },
  { name: 'after the stall guard, what it let go cannot count below nothing', steps: ['q 9×10', 'tick', 'h 9', 'q 9×10'], calls: ['pause', 'resume', 'pause'] },
  { name: 'closed while paused: it resumes', steps: ['q 9×10', 'close'], calls: ['pause', 'resume'] },
  { name: 'closed: nothing pauses it again', steps: ['close', 'q 20×10'], calls: [] },
  { name: 'cancel notifications are not counted (the library acts on them as they come)', steps: ['q 8×10', 'cancel', 'cancel'], calls: [] },
];

describe('read flow: backpressure on the agent’s output', () => {
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(run(row.steps).calls, row.calls);
    });
  }

  it('no timer is left once it resumed or closed', () => {
    for (const steps of [
      ['q 9×10', 'h 9'],
      ['q 9×10', 'close'],
      ['q 9×10', 'tick'],
    ]) {
      assert.equal(run(steps).timers.pending, undefined, steps.join(', '));
    }
  });

  it('the backlog is what was queued and not handled', () => {
    const { flow } = run(['q 5×10', 'h 2', 'q 1×7']);
    assert.deepEqual(flow.backlog, { messages: 4, bytes: 37 });
    assert.equal(flow.paused, false);
  });
});
