// The core's event: every listener called once per fire, a failing one not stopping the others,
// and a listener added or removed while firing taking effect from the next fire (one listener
// or several: one has a path of its own, without the copy).
//
// Sabotage (fire() iterating the live set for one listener, `for (const l of this.listeners)`),
// this printed:
//   AssertionError [ERR_ASSERTION]: one listener, one added while firing: calls ["a","b"], want ["a"]
import * as assert from 'node:assert/strict';
import { Emitter } from '../../src/util/emitter';

describe('emitter', () => {
  for (const count of [1, 2]) {
    const label = count === 1 ? 'one listener' : 'two listeners';
    it(`${label}, one added while firing: called from the next fire only`, () => {
      const e = new Emitter<number>();
      const calls: string[] = [];
      let added = false;
      e.event(() => {
        calls.push('a');
        if (!added) {
          added = true;
          e.event(() => calls.push('b'));
        }
      });
      if (count === 2) e.event(() => calls.push('c'));
      e.fire(1);
      const want = count === 1 ? ['a'] : ['a', 'c'];
      assert.deepEqual(calls, want, `${label}, one added while firing: calls ${JSON.stringify(calls)}, want ${JSON.stringify(want)}`);
      calls.length = 0;
      e.fire(2);
      assert.deepEqual(calls.sort(), [...want, 'b'].sort());
    });
  }

  it('a failing listener does not stop the others; a disposed one is not called', () => {
    const e = new Emitter<string>();
    const seen: string[] = [];
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (err: unknown) => errors.push(err);
    try {
      e.event(() => {
        throw new Error('boom');
      });
      const gone = e.event(() => seen.push('gone'));
      e.event((v) => seen.push(v));
      gone.dispose();
      e.fire('x');
    } finally {
      console.error = original;
    }
    assert.deepEqual(seen, ['x']);
    assert.equal(errors.length, 1);
  });
});
