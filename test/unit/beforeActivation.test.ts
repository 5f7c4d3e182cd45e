// What the workbench shows from package.json alone, before Reins activates: the views' and the
// keybindings' `when` clauses evaluated with the context keys VS Code knows then (settings as
// `config.*`, none of Reins' own). The Reins view must not be an empty body then (its welcome is
// drawn from viewsWelcome), and Ctrl+Alt+R must run a command that needs no extension host.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: {
    views: Record<string, { id: string; when?: string }[]>;
    viewsWelcome: { view: string; when?: string }[];
    keybindings: { command: string; key: string; when?: string }[];
  };
};

type Context = Record<string, string | boolean | undefined>;

/** A `when` clause of the forms package.json uses: `!`, `&&`, `||`, parentheses, `==`/`!=` with a quoted string. */
function evaluate(when: string | undefined, context: Context): boolean {
  if (when === undefined) return true;
  const tokens = when.match(/\(|\)|&&|\|\||!=|==|!|'[^']*'|[\w.]+/g) ?? [];
  let i = 0;
  const or = (): boolean => {
    let value = and();
    while (tokens[i] === '||') {
      i++;
      value = and() || value;
    }
    return value;
  };
  const and = (): boolean => {
    let value = not();
    while (tokens[i] === '&&') {
      i++;
      value = not() && value;
    }
    return value;
  };
  const not = (): boolean => {
    if (tokens[i] === '!') {
      i++;
      return !not();
    }
    if (tokens[i] === '(') {
      i++;
      const value = or();
      assert.equal(tokens[i++], ')', when);
      return value;
    }
    const key = tokens[i++]!;
    if (tokens[i] === '==' || tokens[i] === '!=') {
      const op = tokens[i++];
      const literal = tokens[i++]!.replace(/^'|'$/g, '');
      return (String(context[key] ?? '') === literal) === (op === '==');
    }
    return !!context[key];
  };
  const value = or();
  assert.equal(i, tokens.length, `unparsed: ${when}`);
  return value;
}

const views = Object.values(manifest.contributes.views).flat();
const visibleViews = (context: Context) => views.filter((v) => evaluate(v.when, context)).map((v) => v.id);
const ctrlAltR = (context: Context) =>
  manifest.contributes.keybindings.filter((k) => k.key === 'ctrl+alt+r' && evaluate(k.when, context)).map((k) => k.command);

const settings = { 'config.reins.defaultAgent': '', 'config.reins.openIn': 'sideBar' };

describe('before Reins activates: what package.json alone shows', () => {
  // With the views' `when` on reins.firstRun only (as before), this printed:
  //   AssertionError: Expected values to be strictly deep-equal: + actual ['reins.view'] - expected ['reins.welcome']
  // (the conversation's webview view, an empty body until Reins activates and resolves it).
  it('the Reins view shows its welcome (viewsWelcome, without a condition on Reins keys), not an empty body', () => {
    assert.deepEqual(visibleViews(settings), ['reins.welcome']);
    const welcome = manifest.contributes.viewsWelcome.filter((w) => w.view === 'reins.welcome');
    assert.ok(welcome.length > 0 && welcome.every((w) => evaluate(w.when, settings)));
  });

  it('with a default agent set, the conversation view (activating Reins on view) instead', () => {
    assert.deepEqual(visibleViews({ ...settings, 'config.reins.defaultAgent': 'goose' }), ['reins.view']);
  });

  it('once activated, reins.firstRun chooses between the welcome and the conversation', () => {
    assert.deepEqual(visibleViews({ ...settings, 'reins.activated': true, 'reins.firstRun': true }), ['reins.welcome']);
    assert.deepEqual(visibleViews({ ...settings, 'reins.activated': true, 'reins.firstRun': false }), ['reins.view']);
    assert.deepEqual(visibleViews({ ...settings, 'config.reins.defaultAgent': 'goose', 'reins.activated': true, 'reins.firstRun': false }), ['reins.view']);
  });

  // With the one binding to reins.openPanel (as before): "+ actual ['reins.openPanel'] - expected ['workbench.view.extension.reins']".
  it("Ctrl+Alt+R: the workbench's own command before activation, reins.openPanel after it or for editor tabs", () => {
    assert.deepEqual(ctrlAltR(settings), ['workbench.view.extension.reins']);
    assert.deepEqual(ctrlAltR({ ...settings, 'reins.activated': true }), ['reins.openPanel']);
    assert.deepEqual(ctrlAltR({ ...settings, 'config.reins.openIn': 'editor' }), ['reins.openPanel']);
  });
});
