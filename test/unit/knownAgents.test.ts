// The one table of agent behaviour (src/runtime/knownAgents.ts): the README's agent section is
// that table, and each row's scripted scenarios exist and are driven by a test.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentItem } from '../../src/agents/pickerItems';
import { PRESETS } from '../../src/agents/presets';
import { KNOWN_AGENTS, knownRows, presetRow, knownAgentsMarkdown } from '../../src/runtime/knownAgents';
import { outOfStepRecovery } from '../../src/runtime/outOfStep';

const root = path.resolve(__dirname, '../../..');
const BEGIN = '<!-- agent-quirks:begin (generated from src/runtime/knownAgents.ts; test/unit/knownAgents.test.ts checks it) -->';
const END = '<!-- agent-quirks:end -->';

describe('agent quirks: the one table', () => {
  // Sabotage (one word of the README's goose row changed), this printed:
  //   AssertionError [ERR_ASSERTION]: README.md's agent table differs from src/runtime/knownAgents.ts; put this between the markers: …
  it("is the README's agent section, word for word", () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const start = readme.indexOf(BEGIN);
    const end = readme.indexOf(END);
    assert.ok(start >= 0 && end > start, `README.md has the markers ${BEGIN} … ${END}`);
    const inReadme = readme.slice(start + BEGIN.length, end).trim();
    assert.equal(
      inReadme,
      knownAgentsMarkdown(),
      `README.md's agent table differs from src/runtime/knownAgents.ts; put this between the markers:\n${knownAgentsMarkdown()}`,
    );
  });

  it('names, for every row, scenarios that exist and that a test drives', () => {
    const tests = ['test/unit', 'test/process', 'test/integration']
      .flatMap((dir) => fs.readdirSync(path.join(root, dir)).map((f) => path.join(root, dir, f)))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => fs.readFileSync(f, 'utf8'));
    for (const row of KNOWN_AGENTS) {
      assert.ok(row.scenarios.length > 0, `${row.agent}: no scenario`);
      for (const scenario of row.scenarios) {
        const file = path.join(root, 'test/fixtures/scriptedAgent/scenarios', `${scenario}.json`);
        assert.ok(fs.existsSync(file), `${row.agent}: ${file} is missing`);
        assert.ok(
          tests.some((t) => t.includes(`'${scenario}'`) || t.includes(`${scenario}.json`)),
          `${row.agent}: no test drives the scenario ${scenario}`,
        );
      }
    }
  });

  it('finds rows by agentInfo name and version, and only those', () => {
    assert.deepEqual(
      knownRows({ name: 'goose', version: '1.9.0' }).map((r) => r.agent),
      ['goose'],
    );
    assert.deepEqual(
      knownRows({ name: '@zed-industries/claude-agent-acp', version: '0.23.1' }).map((r) => r.agent),
      ['claude-agent-acp'],
    );
    assert.deepEqual(knownRows({ name: '@zed-industries/claude-agent-acp', version: '0.24.0' }), [], 'a version not seen');
    assert.deepEqual(
      knownRows({ name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' }).map((r) => r.agent),
      ['claude-agent-acp (0.101)'],
    );
    assert.deepEqual(knownRows({ name: 'reins-scripted-agent', version: '1.0.0' }), [], 'rows for any agent are not matched by name');
    assert.deepEqual(knownRows(undefined), []);
  });

  it("every preset's behaviour is its row in the table; the picker says what a user needs, not the quirks", () => {
    for (const preset of PRESETS) {
      // Sabotage (codex's row without its `preset`): "codex: no row of the table names this preset".
      assert.ok(presetRow(preset.name), `${preset.name}: no row of the table names this preset`);
    }
    for (const row of KNOWN_AGENTS.filter((r) => r.preset)) {
      assert.ok(
        PRESETS.some((p) => p.name === row.preset),
        `${row.agent}: no preset named ${row.preset}`,
      );
    }
    // Beside an installed agent the picker shows what runs and what it needs; how Reins copes with
    // its cancel is the README's table (a user choosing an agent needs neither "0.23 answers one
    // turn behind after a stop" nor "leaves a cancelled command running").
    // Sabotage (the row's note back beside the command): "+ 'codex-acp — leaves a cancelled command running: Reins finds and ends it' - 'codex-acp'".
    const codex = PRESETS.find((p) => p.name === 'codex')!;
    const item = agentItem({ name: 'codex', entry: { command: codex.command, args: codex.args }, preset: codex, configured: false }, undefined, 'demo');
    assert.equal(item.detail, 'codex-acp');
    const pi = PRESETS.find((p) => p.name === 'pi')!;
    const piItem = agentItem({ name: 'pi', entry: { command: pi.command, args: pi.args }, preset: pi, configured: false }, undefined, 'demo');
    assert.equal(piItem.detail, 'pi-acp — needs Node 22.19 or later');
  });

  it('the out-of-step recovery comes from the table', () => {
    assert.equal(outOfStepRecovery({ name: '@zed-industries/claude-agent-acp', version: '0.23.1' }), 'resend');
    assert.equal(outOfStepRecovery({ name: 'goose' }), 'none');
    // 0.101 answers in step after a stop (npm run test:agents, claude.test.ts): nothing to recover.
    assert.equal(outOfStepRecovery({ name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' }), 'none');
  });
});
