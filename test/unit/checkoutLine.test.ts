// The line of prompts waiting for another window's turn in the checkout: the pure model as a
// table (state, event) → (state, effects), then its controller against a lock the test holds
// and lets go, and the status derived from it (Stop, the context key, the words shown).
import * as assert from 'node:assert/strict';
import { droppedText, emptyLine, lineView, mustJoin, transition, type LineEvent, type LineState } from '../../src/admission/checkoutLine';
import { CheckoutLine, type LineHost, type LineOutcome } from '../../src/admission/checkoutLineController';
import type { LockHolder, LockAdmission } from '../../src/admission/checkoutLock';
import { deriveStatus } from '../../src/panel/panelStatus';
import { checkoutWaitHead } from '../../media/webview/checkoutWaitList';
import { busyText, composerState, statusLine } from '../../media/webview/statusModel';
import type { PanelStatus } from '../../src/shared/messages';
import { nth, sleep, waitFor } from '../support/helpers';

/** Events applied in order; every effect, in order, as a short string. */
function play(events: LineEvent[], from: LineState = emptyLine): { state: LineState; effects: string[] } {
  let state = from;
  const effects: string[] = [];
  for (const event of events) {
    const t = transition(state, event);
    state = t.state;
    for (const e of t.effects) {
      if (e.kind === 'go') effects.push(`go:${e.id}`);
      else if (e.kind === 'release') effects.push('release');
      else effects.push(`drop:${e.cause.kind}:${e.prompts.map((p) => p.text).join('|')}`);
    }
  }
  return { state, effects };
}

const join = (text: string, holder?: string): LineEvent => ({ type: 'join', text, holder });

describe('checkout line (pure)', () => {
  // The one order. Without the `going` guard of 'taken' (checkoutLine.ts), two rows printed:
  // AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: + [ 'go:1', 'go:2' ] - [ 'go:1' ]
  const rows: [string, LineEvent[], string[], string[]][] = [
    // name, events, effects, texts still waiting
    ['one prompt waits, then goes', [join('a', 'alpha'), { type: 'taken' }], ['go:1'], []],
    ['two go in the order sent', [join('a', 'alpha'), join('b'), { type: 'taken' }, { type: 'ended', id: 1 }, { type: 'taken' }], ['go:1', 'go:2'], []],
    ['the second does not go while the first is going', [join('a', 'alpha'), join('b'), { type: 'taken' }, { type: 'taken' }], ['go:1'], ['b']],
    [
      'an end of another prompt does not let the next go',
      [join('a', 'alpha'), join('b'), { type: 'taken' }, { type: 'ended', id: 2 }, { type: 'taken' }],
      ['go:1'],
      ['b'],
    ],
    ['stop gives back every waiting prompt, in order', [join('a', 'alpha'), join('b'), join('c'), { type: 'stop' }], ['drop:stopped:a|b|c'], []],
    ['stop after the first went gives back the rest', [join('a', 'alpha'), join('b'), { type: 'taken' }, { type: 'stop' }], ['go:1', 'drop:stopped:b'], []],
    ['a checkout taken after a stop is let go', [join('a', 'alpha'), { type: 'stop' }, { type: 'taken' }], ['drop:stopped:a', 'release'], []],
    ['stop with nothing waiting does nothing', [{ type: 'stop' }], [], []],
    ['an unverified holder gives everything back, with why', [join('a', 'alpha'), join('b'), { type: 'refused', why: 'x' }], ['drop:refused:a|b'], []],
    ['the folder conversation ends', [join('a', 'alpha'), { type: 'dispose' }], ['drop:disposed:a'], []],
    ['held changes nothing but the holder', [join('a', 'alpha'), { type: 'held', holder: 'gamma' }], [], ['a']],
  ];
  for (const [name, events, effects, left] of rows) {
    it(name, () => {
      const played = play(events);
      assert.deepEqual(played.effects, effects);
      assert.deepEqual(
        played.state.waiting.map((p) => p.text),
        left,
      );
    });
  }

  it('a prompt sent while others wait or one is going joins the line (it must not pass them)', () => {
    assert.equal(mustJoin(emptyLine), false);
    assert.equal(mustJoin(play([join('a', 'alpha')]).state), true);
    assert.equal(mustJoin(play([join('a', 'alpha'), { type: 'taken' }]).state), true, 'going');
    assert.equal(mustJoin(play([join('a', 'alpha'), { type: 'taken' }, { type: 'ended', id: 1 }]).state), false);
  });

  it('the view names the holder while the head waits for it, and the texts in order', () => {
    assert.equal(lineView(emptyLine), undefined);
    assert.deepEqual(lineView(play([join('a', 'alpha'), join('b')]).state), {
      holder: 'alpha',
      prompts: [
        { id: 1, text: 'a' },
        { id: 2, text: 'b' },
      ],
    });
    // The first went: the second waits for it, not for the other window.
    assert.deepEqual(lineView(play([join('a', 'alpha'), join('b'), { type: 'taken' }]).state), { prompts: [{ id: 2, text: 'b' }] });
  });

  it('an unchanged holder is the same state (the panel is not re-posted every look)', () => {
    const { state } = play([join('a', 'alpha')]);
    assert.equal(transition(state, { type: 'held', holder: 'alpha' }).state, state);
  });
});

/** A checkout held by another window until `free()`; each take is counted. */
function fakeLock(agent = 'alpha') {
  const holder: LockHolder = { version: 1, pid: 1, start: 's', window: 'w', agent, folder: '/repo', root: '/repo', phase: 'running', since: 0 };
  let verdict: LockAdmission = { open: false, why: 'running', holder };
  return {
    holder,
    take: async (): Promise<LockAdmission> => verdict,
    free: () => (verdict = { open: true }),
    unverify: () => (verdict = { open: false, why: 'unverified', holder: { ...holder, phase: 'unverified' } }),
  };
}

const made: CheckoutLine[] = [];

/** `outcome`, or a failure once a second has passed (a prompt left waiting must fail the test, not hang it). */
function within(outcome: Promise<LineOutcome>): Promise<LineOutcome> {
  return Promise.race([outcome, sleep(1000).then((): never => assert.fail('the prompt is still waiting'))]);
}

function makeLine(lock: ReturnType<typeof fakeLock>, busy = () => false) {
  const given: { text: string; why: string; files: string[] }[] = [];
  let changes = 0;
  let releases = 0;
  const host: LineHost = {
    take: lock.take,
    release: () => releases++,
    ownTurnBusy: busy,
    unverifiedText: (h) => `${h.agent} did not confirm its stop.`,
    dropped: (prompts, cause, holder) =>
      given.push({ text: prompts.map((p) => p.text).join('\n\n'), why: droppedText(prompts, cause, holder), files: prompts.flatMap((p) => p.files ?? []) }),
    changed: () => changes++,
  };
  const line = new CheckoutLine(host, 10);
  made.push(line);
  return { line, given, changes: () => changes, releases: () => releases };
}

describe('checkout line (controller)', () => {
  afterEach(() => made.splice(0).forEach((line) => line.dispose()));

  it('two waiting prompts go in the order sent, the second only after the first ended', async () => {
    const lock = fakeLock();
    const { line } = makeLine(lock);
    const went: string[] = [];
    const send = async (text: string, outcome: Promise<LineOutcome>) => {
      const o = await outcome;
      if (!o.go) return;
      went.push(text);
      await sleep(30); // the turn
      line.ended(o.id);
    };
    const first = send('first', line.join('first', undefined, 'alpha'));
    const second = send('second', line.join('second', undefined));
    await sleep(40);
    assert.deepEqual(went, [], 'nothing goes while the other window holds the checkout');
    lock.free();
    await Promise.all([first, second]);
    assert.deepEqual(went, ['first', 'second']);
    assert.equal(line.view, undefined);
  });

  it("the head waits for this folder's own turn before it looks", async () => {
    const lock = fakeLock();
    lock.free();
    let busy = true;
    const { line } = makeLine(lock, () => busy);
    let went = false;
    void line.join('a', undefined, 'alpha').then((o) => (went = o.go));
    await sleep(50);
    assert.equal(went, false);
    busy = false;
    await waitFor('the prompt to go', () => went, 2000);
  });

  it('stop ends the wait: nothing goes, the texts come back together in the order sent, with their files', async () => {
    const lock = fakeLock();
    const { line, given, releases } = makeLine(lock);
    const a = line.join('first', ['file:///repo/a.ts'], 'alpha');
    const b = line.join('second', undefined);
    await sleep(30);
    assert.equal(line.stop(), true);
    // With the stop not reaching the line (CheckoutLine.stop dispatching nothing):
    // AssertionError [ERR_ASSERTION]: the prompt is still waiting
    assert.deepEqual(await within(a), { go: false, reason: 'stopped while waiting for another window' });
    assert.equal((await within(b)).go, false);
    assert.deepEqual(given, [
      {
        text: 'first\n\nsecond',
        why: 'Stopped waiting for alpha in another window: your 2 prompts were not sent; they are back in the input box, in the order you sent them.',
        files: ['file:///repo/a.ts'],
      },
    ]);
    lock.free();
    await sleep(40);
    assert.equal(releases(), 0, 'no look after the stop, nothing taken');
    assert.equal(line.view, undefined);
    assert.equal(line.stop(), false, 'a second stop finds nothing waiting');
  });

  it("the other window's unverified stop ends the wait, saying why", async () => {
    const lock = fakeLock();
    const { line, given } = makeLine(lock);
    const a = line.join('a', undefined, 'alpha');
    lock.unverify();
    assert.equal((await within(a)).go, false);
    assert.match(
      nth(given, 0, 'the prompts given back').why,
      /^alpha did not confirm its stop\. Waiting ended: your prompt was not sent; it is back in the input box\.$/,
    );
  });
});

describe('checkout line (what the user sees)', () => {
  const derived = (line?: { holder?: string; prompts: { id: number; text: string }[] }) =>
    deriveStatus({
      agentName: 'beta',
      demo: false,
      folderName: 'sub',
      trusted: true,
      agent: 'ready',
      turn: { phase: 'idle' },
      gate: { open: true },
      line,
      now: 0,
    });

  // Without the `|| i.line !== undefined` in panelStatus.ts: AssertionError: expected true, got false
  // (so no Stop button, no Escape, and reins.turnActive, which follows canStop, false).
  it('a waiting prompt can be stopped, and the status says what it waits for', () => {
    const s = derived({ holder: 'alpha', prompts: [{ id: 1, text: 'B: hello' }] });
    assert.equal(s.canStop, true);
    assert.equal(s.canSend, true, 'another prompt joins the line');
    assert.equal(s.detail, 'Waiting for alpha in another window');
    assert.equal(derived().canStop, false);
  });

  it('the panel: not "Ready", the busy line, the placeholder and the heading', () => {
    const view = { holder: 'alpha', prompts: [{ id: 1, text: 'B: hello' }] };
    const status = { ...derived(view), queued: [], canSteer: false, whenBusy: 'ask', checkoutWait: view } as PanelStatus;
    assert.deepEqual(statusLine(status), { label: 'Waiting…', tone: 'busy', text: 'Waiting for alpha in another window' });
    assert.equal(busyText(status), 'Waiting for alpha in another window');
    assert.match(composerState(status).placeholder, /^Waiting for alpha in another window — Enter sends this after the waiting prompts, Esc gives them back$/);
    assert.equal(checkoutWaitHead(view), "Sent when alpha's turn in the other window ends. Stop gives it back.");
    assert.equal(
      checkoutWaitHead({ holder: 'alpha', prompts: [...view.prompts, { id: 2, text: 'B: again' }] }),
      "2 prompts, sent in this order when alpha's turn in the other window ends. Stop gives them back.",
    );
  });
});
