// The README lists every command and every setting package.json contributes, each with what it
// does: a command in the first cell of a row of a command table (its title or use beside it),
// a setting as the first cell of a row of the settings table (its default and meaning beside
// it). The other way round too: a `reins.x` named there must exist, so a renamed or removed
// command or setting does not stay documented.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const repo = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[]; configuration: { properties: Record<string, unknown> } | { properties: Record<string, unknown> }[] };
};
const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');

const commands = pkg.contributes.commands.map((c) => c.command);
const settings = [pkg.contributes.configuration].flat().flatMap((c) => Object.keys(c.properties));
/** Table rows as [first cell, the rest], the cells' text as written. */
const rows = readme
  .split('\n')
  .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
  .map((l) => {
    const cells = l.split(/(?<!\\)\|/).slice(1, -1);
    return { first: cells[0] ?? '', rest: cells.slice(1).join('|').trim() };
  });
const named = (cell: string) => [...cell.matchAll(/`(reins\.[A-Za-z]+)`/g)].flatMap((m) => m[1] ?? []);

describe('README lists what package.json contributes', () => {
  // Sabotage (the row of `reins.followAgent` removed from the settings table), this test printed:
  //   AssertionError [ERR_ASSERTION]: settings without a row of their own in the README's settings table: reins.followAgent
  it('every setting has a row of its own with a default and a description', () => {
    const missing = settings.filter((s) => !rows.some((r) => r.first.trim() === `\`${s}\`` && r.rest.split('|').every((c) => c.trim() !== '')));
    assert.deepEqual(missing, [], `settings without a row of their own in the README's settings table: ${missing.join(', ')}`);
  });

  // Sabotage (`reins.endLeftovers` taken out of its row's first cell), this test printed:
  //   AssertionError [ERR_ASSERTION]: commands not in the first cell of a README command row: reins.endLeftovers
  it('every command is named in the first cell of a command row, with what it does beside it', () => {
    const missing = commands.filter((c) => !rows.some((r) => named(r.first).includes(c) && r.rest !== ''));
    assert.deepEqual(missing, [], `commands not in the first cell of a README command row: ${missing.join(', ')}`);
  });

  // Sabotage (a row for `reins.closeSession`, which package.json does not contribute), this test
  // printed:
  //   AssertionError [ERR_ASSERTION]: named in the README's tables but not contributed: reins.closeSession
  it('every command or setting the tables name is contributed', () => {
    const known = new Set([...commands, ...settings]);
    const unknown = [...new Set(rows.flatMap((r) => named(r.first)))].filter((n) => !known.has(n));
    assert.deepEqual(unknown, [], `named in the README's tables but not contributed: ${unknown.join(', ')}`);
  });
});
