// Every message from the webview is checked against the typed union before the host uses it
// (src/panel/webviewInput.ts). Properties (fast-check): each valid message of each type passes
// unchanged; any value at all is answered (accepted or refused with a reason), never thrown;
// a valid message with one field made the wrong type, or made too large, is refused.
//
// Sabotage (done once by hand, then restored): `text()` in webviewInput.ts made to accept any
// value (`return undefined;` before its checks) failed three tests, e.g.
//   1) a field of the wrong type is refused: Property failed after 1 tests … Counterexample:
//      [{"type":"searchFiles","requestId":0,"query":""},…] logs: {"type":"searchFiles","requestId":0,"query":null}
//      AssertionError: Expected values to be strictly equal: true !== false
// and removing the size bound (`v.length > max` → `false`) failed "a prompt over the limit is
// refused and handed back" with `true !== false`.
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { checkWebviewMessage, MAX_FILES, MAX_SHORT, MAX_TEXT } from '../../src/panel/webviewInput';
import type { PanelAction, WebviewToHost } from '../../src/shared/messages';
import { nth } from '../support/helpers';

const ACTIONS: PanelAction[] = [
  'openLog',
  'aboutStop',
  'checkAgain',
  'forceStop',
  'newSession',
  'selectAgent',
  'restartAgent',
  'endLeftovers',
  'setMode',
  'selectModel',
  'signIn',
  'openSettings',
  'installAgent',
  'copyInstall',
  'undoTurn',
  'manageTrust',
  'openFolder',
];

const str = fc.string({ unit: 'grapheme', maxLength: 60 });
const nat = fc.nat({ max: 1_000_000 });

/** One valid message of every type the union has. */
const valid: fc.Arbitrary<WebviewToHost> = fc.oneof(
  fc.constant({ type: 'ready' as const }),
  fc.constant({ type: 'stop' as const }),
  fc.record(
    { type: fc.constant('send' as const), text: str, files: fc.option(fc.array(str, { maxLength: 5 }), { nil: undefined }) },
    { requiredKeys: ['type', 'text'] },
  ),
  fc.record({ type: fc.constant('permission' as const), requestId: str, optionId: str }),
  // `arg`: a notice button's argument (an agent, a sign-in method, a setting).
  fc.record({ type: fc.constant('action' as const), action: fc.constantFrom(...ACTIONS), arg: str }, { requiredKeys: ['type', 'action'] }),
  fc.record(
    {
      type: fc.constant('uiState' as const),
      draft: str,
      scroll: fc.record(
        { top: fc.double({ noNaN: true, noDefaultInfinity: true }), following: fc.boolean(), fraction: fc.double({ min: 0, max: 1, noNaN: true }) },
        { requiredKeys: ['top', 'following'] },
      ),
    },
    { requiredKeys: ['type', 'draft'] },
  ),
  fc.record({ type: fc.constant('openDiff' as const), toolCallId: str, index: nat }),
  fc.record({ type: fc.constant('openLocation' as const), path: str, line: fc.integer({ min: 1, max: 1_000_000 }) }, { requiredKeys: ['type', 'path'] }),
  fc.record({ type: fc.constant('searchFiles' as const), requestId: nat, query: str }),
  fc.record({ type: fc.constant('openLink' as const), href: str }),
);

/** Values no field takes (a string field is not given the string). */
const WRONG: unknown[] = [null, true, 0.5, -3, {}, [1], 'str', Number.NaN];
const wrongFor = (v: unknown): unknown[] => WRONG.filter((w) => typeof v !== 'string' || typeof w !== 'string');

describe('webview messages checked before use', () => {
  it('every valid message of every type passes unchanged', () => {
    fc.assert(
      fc.property(valid, (m) => {
        const checked = checkWebviewMessage(m);
        assert.ok(checked.ok, !checked.ok ? checked.reason : '');
        assert.equal(checked.message, m);
      }),
      { numRuns: 2000 },
    );
  });

  it('any value is answered, never thrown: accepted as a known type or refused with a reason', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything({ maxDepth: 3 }), fc.record({ type: fc.oneof(str, fc.anything()) })), (raw) => {
        const checked = checkWebviewMessage(raw);
        if (checked.ok) assert.equal(checked.message, raw);
        else assert.ok(checked.reason.length > 0);
      }),
      { numRuns: 5000 },
    );
  });

  it('a field of the wrong type is refused', () => {
    fc.assert(
      fc.property(
        valid.filter((m) => Object.keys(m).length > 1),
        fc.nat(),
        fc.nat(),
        fc.context(),
        (m, pickField, pickValue, ctx) => {
          const fields = Object.keys(m).filter((k) => k !== 'type');
          const field = nth(fields, pickField % fields.length, 'fields');
          const wrong = wrongFor((m as unknown as Record<string, unknown>)[field]);
          const bad = wrong[pickValue % wrong.length];
          const broken = { ...m, [field]: bad };
          ctx.log(JSON.stringify(broken));
          const checked = checkWebviewMessage(broken);
          assert.equal(checked.ok, false);
          assert.match(!checked.ok ? checked.reason : '', new RegExp(`^${m.type}: `));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('unknown types and actions, missing fields and non-objects are refused with the reason', () => {
    const cases: [unknown, RegExp][] = [
      [{ type: 'runShell', command: 'rm -rf /' }, /unknown message type "runShell"/],
      [{ type: 'toString' }, /unknown message type "toString"/],
      [{ type: '__proto__' }, /unknown message type/],
      [{ type: 'action', action: 'deleteEverything' }, /unknown action "deleteEverything"/],
      [{ type: 'action', action: 'constructor' }, /unknown action "constructor"/],
      [{ type: 'send' }, /send: text is undefined, not a string/],
      [{ type: 'openDiff', toolCallId: 't', index: -1 }, /index is -1, not an integer ≥ 0/],
      [{ type: 'openDiff', toolCallId: 't', index: 0.5 }, /not an integer/],
      [{ type: 'openLocation', path: '/a', line: 0 }, /line: not an integer ≥ 1/],
      [{ type: 'uiState', draft: '', scroll: { top: Infinity, following: true } }, /top is not a finite number/],
      [{ type: 'searchFiles', requestId: Number.NaN, query: '' }, /requestId is NaN/],
      [null, /not an object: null/],
      [[{ type: 'ready' }], /not an object: a list/],
      ['ready', /not an object: "ready"/],
      [undefined, /not an object: undefined/],
    ];
    for (const [raw, reason] of cases) {
      const checked = checkWebviewMessage(raw);
      assert.equal(checked.ok, false, JSON.stringify(raw));
      assert.match(!checked.ok ? checked.reason : '', reason);
    }
  });

  it('a prompt over the limit is refused and handed back; other oversize fields are refused', () => {
    const huge = 'x'.repeat(MAX_TEXT + 1);
    const send = checkWebviewMessage({ type: 'send', text: huge });
    assert.equal(send.ok, false);
    assert.equal(!send.ok && send.text, huge, 'the refused prompt goes back to the input box');
    assert.match(!send.ok ? send.reason : '', /text is 1000001 characters \(limit 1000000\)/);
    assert.equal(checkWebviewMessage({ type: 'send', text: 'x'.repeat(MAX_TEXT) }).ok, true, 'at the limit it passes');

    const oversize: unknown[] = [
      { type: 'uiState', draft: huge },
      { type: 'send', text: 'hi', files: Array.from({ length: MAX_FILES + 1 }, () => 'file:///a') },
      { type: 'send', text: 'hi', files: ['y'.repeat(MAX_SHORT + 1)] },
      { type: 'permission', requestId: 'r'.repeat(MAX_SHORT + 1), optionId: 'o' },
      { type: 'searchFiles', requestId: 1, query: 'q'.repeat(MAX_SHORT + 1) },
      { type: 'openLocation', path: 'p'.repeat(MAX_SHORT + 1) },
      { type: 'action', action: 'installAgent', arg: 'a'.repeat(MAX_SHORT + 1) },
      { type: 'openLink', href: `https://example.com/${'l'.repeat(MAX_SHORT)}` },
    ];
    for (const raw of oversize) {
      const checked = checkWebviewMessage(raw);
      assert.equal(checked.ok, false, JSON.stringify(raw).slice(0, 80));
      assert.equal(!checked.ok && checked.text, undefined, 'only a prompt is handed back');
    }
  });

  it('a message whose fields throw when read is refused, not thrown', () => {
    const hostile = {
      type: 'send',
      get text(): string {
        throw new Error('boom');
      },
    };
    const checked = checkWebviewMessage(hostile);
    assert.equal(checked.ok, false);
    assert.match(!checked.ok ? checked.reason : '', /unreadable message: boom/);
  });
});
