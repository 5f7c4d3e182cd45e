// The transcript's closed groups are readied in idle time (media/webview/groupWarmer.ts): one group
// per idle callback, oldest first, each once however often it is queued, none that left the
// document, none after the transcript was replaced. Played on a fake idle scheduler: a script of
// events, and the groups each idle callback readied.
//
// Sabotage (2 December), run() readying every queued group in one callback, as a loop, printed:
//   AssertionError [ERR_ASSERTION]: three closed groups: readied per callback (and four more rows)
// and add() without its `queued` check printed:
//   AssertionError [ERR_ASSERTION]: queued twice, readied once: readied per callback
//   + actual - expected … +   [ 'a' ], (a second time)
import * as assert from 'node:assert/strict';
import { GroupWarmer, type IdleScheduler } from '../../media/webview/groupWarmer';

class Group {
  isConnected = true;
  constructor(readonly name: string) {}
}

/** Idle callbacks that run only when the script says. */
class ScriptIdle implements IdleScheduler {
  private nextId = 1;
  readonly waiting = new Map<number, () => void>();
  request(run: () => void): unknown {
    const id = this.nextId++;
    this.waiting.set(id, run);
    return id;
  }
  cancel(handle: unknown): void {
    this.waiting.delete(handle as number);
  }
  /** Runs the callbacks waiting now (not those they ask for). */
  idle(): void {
    const now = [...this.waiting];
    this.waiting.clear();
    for (const [, run] of now) run();
  }
}

type Step = { add: string } | { remove: string } | 'idle' | 'clear';

function play(steps: Step[]): string[][] {
  const idle = new ScriptIdle();
  const readied: string[][] = [];
  let current: string[] = [];
  const warmer = new GroupWarmer<Group>((g) => current.push(g.name), idle);
  const groups = new Map<string, Group>();
  const group = (name: string) => groups.get(name) ?? groups.set(name, new Group(name)).get(name)!;
  for (const step of steps) {
    if (step === 'idle') {
      current = [];
      idle.idle();
      if (current.length) readied.push(current);
    } else if (step === 'clear') warmer.clear();
    else if ('add' in step) warmer.add(group(step.add));
    else group(step.remove).isConnected = false;
  }
  // Whatever is left runs to the end: the queue must empty, one group per callback.
  for (let guard = 0; idle.waiting.size > 0 && guard < 100; guard++) {
    current = [];
    idle.idle();
    if (current.length) readied.push(current);
  }
  return readied;
}

const table: { name: string; steps: Step[]; readied: string[][] }[] = [
  { name: 'nothing closed, nothing readied', steps: ['idle', 'idle'], readied: [] },
  { name: 'three closed groups', steps: [{ add: 'a' }, { add: 'b' }, { add: 'c' }], readied: [['a'], ['b'], ['c']] },
  { name: 'queued twice, readied once', steps: [{ add: 'a' }, { add: 'a' }, { add: 'b' }], readied: [['a'], ['b']] },
  { name: 'queued again after it was readied (another width)', steps: [{ add: 'a' }, 'idle', { add: 'a' }], readied: [['a'], ['a']] },
  { name: 'a group that left the document is skipped', steps: [{ add: 'a' }, { add: 'b' }, { remove: 'a' }], readied: [['b']] },
  { name: 'the transcript replaced: nothing queued is readied', steps: [{ add: 'a' }, { add: 'b' }, 'clear', 'idle'], readied: [] },
  { name: 'replaced, then new groups closed', steps: [{ add: 'a' }, 'clear', { add: 'c' }], readied: [['c']] },
  { name: 'groups closed while others wait go after them', steps: [{ add: 'a' }, { add: 'b' }, 'idle', { add: 'c' }], readied: [['a'], ['b'], ['c']] },
];

describe('group warmer (idle readying of closed transcript groups)', () => {
  for (const row of table) {
    it(row.name, () => {
      assert.deepEqual(play(row.steps), row.readied, `${row.name}: readied per callback`);
    });
  }
});
