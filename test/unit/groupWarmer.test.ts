// The transcript's closed groups are readied in idle time (media/webview/groupWarmer.ts): one group
// per idle callback, oldest first, each once however often it is queued, none that left the
// document, none after the transcript was replaced; "all readied" (the benchmark's mark) once the
// queue is empty. Played on a fake idle scheduler: a script of events, and what each idle callback
// readied.
//
// Sabotage (2 December), each printed:
// - run() readying every queued group in one callback, as a loop: 3 failing,
//   "AssertionError [ERR_ASSERTION]: three closed groups: readied per callback" and two more;
// - the queue as an array without a duplicate check (it is a Set now, which cannot hold a group
//   twice): 1 failing, "AssertionError [ERR_ASSERTION]: queued twice, readied once: readied per callback";
// - clear() not saying `done` (the benchmark would wait for a mark that never comes): 2 failing,
//   "… the transcript replaced: nothing queued is readied, and nothing is left to wait for: the
//   story + actual - expected + 'busy' - 'busy done'".
import * as assert from 'node:assert/strict';
import { GroupWarmer, type IdleScheduler } from '../../media/webview/groupWarmer';
import { TYPING_PAUSE_MS, TypingPause } from '../../media/webview/typingPause';

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

/**
 * What each idle callback readied, and the whole story in order: the groups readied, `busy` when
 * readying started and `done` when all was readied (the benchmark's mark).
 */
function play(steps: Step[]): { perCallback: string[][]; story: string } {
  const idle = new ScriptIdle();
  const perCallback: string[][] = [];
  const story: string[] = [];
  let current: string[] = [];
  const warmer = new GroupWarmer<Group>(
    (g) => {
      current.push(g.name);
      story.push(g.name);
    },
    idle,
    { busy: () => story.push('busy'), drained: () => story.push('done') },
  );
  const groups = new Map<string, Group>();
  const group = (name: string) => groups.get(name) ?? groups.set(name, new Group(name)).get(name)!;
  const runIdle = () => {
    current = [];
    idle.idle();
    if (current.length) perCallback.push(current);
  };
  for (const step of steps) {
    if (step === 'idle') runIdle();
    else if (step === 'clear') warmer.clear();
    else if ('add' in step) warmer.add(group(step.add));
    else group(step.remove).isConnected = false;
  }
  // Whatever is left runs to the end: the queue must empty, one group per callback.
  for (let guard = 0; idle.waiting.size > 0 && guard < 100; guard++) runIdle();
  return { perCallback, story: story.join(' ') };
}

const table: { name: string; steps: Step[]; perCallback: string[][]; story: string }[] = [
  { name: 'nothing closed, nothing readied', steps: ['idle', 'idle'], perCallback: [], story: '' },
  { name: 'three closed groups', steps: [{ add: 'a' }, { add: 'b' }, { add: 'c' }], perCallback: [['a'], ['b'], ['c']], story: 'busy a b c done' },
  { name: 'queued twice, readied once', steps: [{ add: 'a' }, { add: 'a' }, { add: 'b' }], perCallback: [['a'], ['b']], story: 'busy a b done' },
  {
    name: 'queued again after it was readied (another width)',
    steps: [{ add: 'a' }, 'idle', { add: 'a' }],
    perCallback: [['a'], ['a']],
    story: 'busy a done busy a done',
  },
  { name: 'a group that left the document is skipped', steps: [{ add: 'a' }, { add: 'b' }, { remove: 'a' }], perCallback: [['b']], story: 'busy b done' },
  {
    name: 'the transcript replaced: nothing queued is readied, and nothing is left to wait for',
    steps: [{ add: 'a' }, { add: 'b' }, 'clear', 'idle'],
    perCallback: [],
    story: 'busy done',
  },
  { name: 'replaced, then new groups closed', steps: [{ add: 'a' }, 'clear', { add: 'c' }], perCallback: [['c']], story: 'busy done busy c done' },
  {
    name: 'groups closed while others wait go after them',
    steps: [{ add: 'a' }, { add: 'b' }, 'idle', { add: 'c' }],
    perCallback: [['a'], ['b'], ['c']],
    story: 'busy a b c done',
  },
];

describe('group warmer (idle readying of closed transcript groups)', () => {
  for (const row of table) {
    it(row.name, () => {
      const { perCallback, story } = play(row.steps);
      assert.deepEqual(perCallback, row.perCallback, `${row.name}: readied per callback`);
      assert.equal(story, row.story, `${row.name}: the story`);
    });
  }
});

describe('group warmer while frames are due (an answer streams)', () => {
  /** Each idle callback given one period: how long it is, or the timeout. */
  function streaming(periods: ({ ms: number } | 'timeout')[], framesDue: () => boolean): string[] {
    const readied: string[] = [];
    let waiting: ((p: { didTimeout: boolean; timeRemaining(): number }) => void) | undefined;
    const idle: IdleScheduler = {
      request: (run) => (waiting = run),
      cancel: () => (waiting = undefined),
    };
    const warmer = new GroupWarmer<Group>((g) => readied.push(g.name), idle, { busy: () => undefined, drained: () => readied.push('done') }, framesDue);
    warmer.add(new Group('a'));
    warmer.add(new Group('b'));
    for (const period of periods) {
      const run = waiting;
      waiting = undefined;
      run?.(period === 'timeout' ? { didTimeout: true, timeRemaining: () => 0 } : { didTimeout: false, timeRemaining: () => period.ms });
    }
    return readied;
  }

  // Sabotage (run() without its framesDue check): 2 failing, this one printing
  //   AssertionError [ERR_ASSERTION]: only the long idle periods ready a group
  //   + actual - expected  [ 'a', + 'b', + 'done' ]
  // (each group readied by the first two callbacks, the timeout and a 12 ms period), and the next.
  it('readies a group only in an idle period with no frame due, never by the timeout or between two frames', () => {
    const readied = streaming(['timeout', { ms: 12 }, 'timeout', { ms: 45 }, { ms: 3 }], () => true);
    assert.deepEqual(readied, ['a'], 'only the long idle periods ready a group');
  });

  it('once the turn ended, the timeout and short periods ready groups again, as before', () => {
    let due = true;
    const readied = streaming(['timeout', { ms: 3 }], () => due);
    assert.deepEqual(readied, []);
    due = false;
    assert.deepEqual(
      streaming(['timeout', { ms: 3 }], () => due),
      ['a', 'b', 'done'],
    );
  });
});

describe('idle work while the user types (media/webview/typingPause.ts)', () => {
  /** A keydown target and a clock the test moves. */
  function keyboard() {
    let now = 0;
    let press: (() => void) | undefined;
    const pause = new TypingPause({ addEventListener: (_type: string, listener: unknown) => (press = listener as () => void) }, () => now);
    return { pause, key: () => press?.(), at: (ms: number) => (now = ms) };
  }

  it('typing from a key until TYPING_PAUSE_MS after the last one', () => {
    const k = keyboard();
    assert.equal(k.pause.typing, false, 'no key yet');
    k.at(100);
    k.key();
    k.at(100 + TYPING_PAUSE_MS - 1);
    assert.equal(k.pause.typing, true, 'within the pause');
    k.key();
    k.at(100 + TYPING_PAUSE_MS + 10);
    assert.equal(k.pause.typing, true, 'a later key starts the pause again');
    k.at(100 + 2 * TYPING_PAUSE_MS);
    assert.equal(k.pause.typing, false, 'stopped typing');
  });

  // Sabotage (run() without its typing check): "AssertionError [ERR_ASSERTION]: nothing readied
  // while the user types  + actual - expected  [ + 'a' ]".
  it('the warmer readies no group while the user types, even in a long idle period, and goes on once they stop', () => {
    const readied: string[] = [];
    let waiting: ((p: { didTimeout: boolean; timeRemaining(): number }) => void) | undefined;
    const idle: IdleScheduler = { request: (run) => (waiting = run), cancel: () => (waiting = undefined) };
    let typing = true;
    const warmer = new GroupWarmer<Group>(
      (g) => readied.push(g.name),
      idle,
      { busy: () => undefined, drained: () => readied.push('done') },
      () => false,
      () => typing,
    );
    warmer.add(new Group('a'));
    const period = () => {
      const run = waiting;
      waiting = undefined;
      run?.({ didTimeout: false, timeRemaining: () => 49 });
    };
    period();
    period();
    assert.deepEqual(readied, [], 'nothing readied while the user types');
    typing = false;
    period();
    assert.deepEqual(readied, ['a', 'done']);
  });
});
