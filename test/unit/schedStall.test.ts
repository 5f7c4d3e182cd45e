// The streaming bench's split of a stall into the main thread running and waiting for a core
// (test/bench/schedStall.ts): a stall's share is read off counters sampled every few ms, linear
// between two samples, on the clock the frame's stalls are mapped to (its timeOrigin + now).
import * as assert from 'node:assert/strict';
import { shareOf } from '../bench/schedStall';
import { nth } from '../support/helpers';

/** Samples every `every` ms over [0, end], the counters given as functions of time. */
function sampled(end: number, every: number, ran: (t: number) => number, waited: (t: number) => number) {
  const out = [];
  for (let t = 0; t <= end; t += every) out.push({ t: 1_000_000 + t, ranMs: ran(t), waitedMs: waited(t) });
  return out;
}
const ORIGIN = 1_000_000 - 40; // the frame's performance.now() 40 is t = 0 here

describe('bench: a stall split into running and waiting (schedStall.ts)', () => {
  it('a busy loop of 150 ms reads as 150 ms ran; a wait for a core as waited', () => {
    // Running from 100 to 250, then runnable but waiting from 300 to 400.
    const samples = sampled(
      500,
      5,
      (t) => Math.min(150, Math.max(0, t - 100)),
      (t) => Math.min(100, Math.max(0, t - 300)),
    );
    const shares = shareOf(samples, ORIGIN, [
      [140, 150],
      [340, 100],
    ]);
    const busy = nth(shares, 0, 'the shares');
    const starved = nth(shares, 1, 'the shares');
    assert.equal(Math.round(busy.ranMs), 150);
    assert.equal(Math.round(busy.waitedMs), 0);
    assert.equal(Math.round(starved.ranMs), 0);
    assert.equal(Math.round(starved.waitedMs), 100);
  });

  it('between two samples far apart, the counters are read linearly (the sampler may itself be late)', () => {
    const samples = [
      { t: 1_000_000, ranMs: 0, waitedMs: 0 },
      { t: 1_000_100, ranMs: 100, waitedMs: 40 },
    ];
    const share = nth(shareOf(samples, ORIGIN, [[65, 50]]), 0, 'the shares');
    assert.equal(share.ranMs, 50);
    assert.equal(share.waitedMs, 20);
    // Sabotage (at() reading the sample at or after t instead of between the two), this printed:
    // "Expected values to be strictly equal: 0 !== 50".
  });

  it('a stall past the last sample counts what was sampled, never a negative time', () => {
    const samples = sampled(
      100,
      5,
      (t) => t,
      () => 0,
    );
    const share = nth(shareOf(samples, ORIGIN, [[120, 80]]), 0, 'the shares');
    assert.ok(share.ranMs >= 0 && share.ranMs <= 80, String(share.ranMs));
  });
});
