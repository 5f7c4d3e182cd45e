// Text Reins did not write, shown where VS Code reads markup of its own: the status bar draws
// `$(name)` as an icon (src/statusBar.ts). An agent's name is a settings key a cloned folder may
// set. Checked against VS Code's own reading (its pattern, copied from iconLabels.ts). In the
// real host: the hostile smoke's status bar check (test/host/hostileProbes.mjs).
//
// Sabotage (2 December: escapeIcons returning its text unchanged), this printed:
//   1) escapeIcons … no icon is drawn from the text: AssertionError: $(zap) Claude  + [ 'zap' ] - []
//   2) … keeps an already escaped \$(zap): + '$(zap)' - '\\$(zap)'
import * as assert from 'node:assert/strict';
import { escapeIcons } from '../../src/util/text';

/** renderLabelWithIcons: the icons VS Code would draw and the text it would show. */
function asStatusBarDraws(label: string): { icons: string[]; text: string } {
  const icons: string[] = [];
  const text = label.replace(/(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)/g, (_m, escaped: string | undefined, name: string) => {
    if (escaped) return `$(${name})`;
    icons.push(name);
    return '';
  });
  return { icons, text };
}

const HOSTILE_NAME = '<img src=x>$(zap) [run](command:workbench.action.terminal.new) \u202Ename';

describe('escapeIcons: $(name) in a status bar text shown as text', () => {
  it('no icon is drawn from the text, and it reads as written', () => {
    for (const name of ['$(zap) Claude', 'a$(sync~spin)b', '$(warning)$(zap)', HOSTILE_NAME]) {
      const drawn = asStatusBarDraws(escapeIcons(name));
      assert.deepEqual(drawn.icons, [], name);
      assert.equal(drawn.text, name);
    }
  });

  it('leaves text that VS Code would not draw as an icon alone', () => {
    for (const name of ['goose', 'cost $(5 dollars)', '$()', '$ (zap)', 'price $5']) assert.equal(escapeIcons(name), name);
  });

  it('keeps an already escaped \\$(zap) reading as written', () => {
    assert.equal(asStatusBarDraws(escapeIcons('\\$(zap)')).text, '\\$(zap)');
  });
});
