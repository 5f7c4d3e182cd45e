// Facts read in more than one place come from one source: the settings' defaults and clamps
// (readRuntimeSettings and settingMinimums, the manifest's defaults and minimums), "a turn is active" (turnActive), and the
// whenBusy values (WHEN_BUSY).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WHEN_BUSY, whenBusyOf } from '../../src/api';
import { defaultRuntimeSettings, readRuntimeSettings, settingMinimums } from '../../src/runtime/runtimeOptions';
import { turnActive, type TurnState } from '../../src/runtime/turnMachine';

const repo = path.resolve(__dirname, '../../..');
type Setting = { default?: unknown; minimum?: number };
const manifest = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Setting> } | { properties: Record<string, Setting> }[] };
};
const configuration = manifest.contributes.configuration;
const properties = Object.assign({}, ...(Array.isArray(configuration) ? configuration : [configuration]).map((c) => c.properties)) as Record<string, Setting>;

describe('one source for each fact', () => {
  it("the settings' defaults are the manifest's", () => {
    // What VS Code gives when the user set nothing (the manifest's default) reads as the runtime's defaults.
    const fromManifest = readRuntimeSettings(<T>(key: string, fallback: T) => (properties[`reins.${key}`]?.default ?? fallback) as T);
    assert.deepEqual(fromManifest, defaultRuntimeSettings);
    // And a setting missing from the configuration reads as the same defaults.
    assert.deepEqual(
      readRuntimeSettings(<T>(_key: string, fallback: T) => fallback),
      defaultRuntimeSettings,
    );
  });

  it('clamps what would not work, the same for every reader', () => {
    const values: Record<string, unknown> = {
      settleTimeoutSeconds: 0,
      busyRetrySeconds: -1,
      turnTimeoutMinutes: -5,
      maxToolCallsPerTurn: -2,
      initializeTimeoutSeconds: 0,
    };
    const s = readRuntimeSettings(<T>(key: string, fallback: T) => (values[key] ?? fallback) as T);
    // Sabotage (the settle clamp taken out of readRuntimeSettings): "Expected values to be strictly equal: 0 !== 1000";
    // (the clamp back at 0.1 s): "100 !== 1000".
    assert.equal(s.settleTimeoutMs, 1000);
    assert.equal(s.busyRetryMs, 0);
    assert.equal(s.turnTimeoutMs, 0);
    assert.equal(s.maxToolCallsPerTurn, 0);
    assert.equal(s.initializeTimeoutMs, 1000);
  });

  it("the clamps are the manifest's minimums, and a value below one reads as it", () => {
    for (const [key, least] of Object.entries(settingMinimums)) {
      // Sabotage (settingMinimums.settleTimeoutSeconds back at 0.1 while the manifest says 1):
      // "reins.settleTimeoutSeconds: the manifest's minimum is not the clamp 1 !== 0.1".
      assert.equal(properties[`reins.${key}`]?.minimum, least, `reins.${key}: the manifest's minimum is not the clamp`);
    }
    // Each setting just below its minimum reads as the minimum (the reader uses the table, not a copy).
    // Sabotage (readRuntimeSettings clamping the settle budget at a literal 0.1): "Expected values to be
    // strictly deep-equal", settleTimeoutMs 500 where 1000 was expected.
    const below = readRuntimeSettings(
      <T>(key: string, fallback: T) => (key in settingMinimums ? settingMinimums[key as keyof typeof settingMinimums] - 0.5 : fallback) as T,
    );
    const least = readRuntimeSettings(
      <T>(key: string, fallback: T) => (key in settingMinimums ? settingMinimums[key as keyof typeof settingMinimums] : fallback) as T,
    );
    assert.deepEqual(below, least);
  });

  it('a turn is active while sending, running and stopping; not idle, not unverified', () => {
    const stop = { turnId: 1, cause: 'user' as const, requestedAt: 0, cancelsSent: 1 };
    const rows: [TurnState, boolean][] = [
      [{ phase: 'idle' }, false],
      [{ phase: 'waiting', turnId: 1, attempt: 1, retryDeadline: 0 }, true],
      [{ phase: 'running', turnId: 1, attempt: 0 }, true],
      [{ phase: 'stopping', turnId: 1, stop }, true],
      [{ phase: 'unverified', turnId: 1, stop }, false],
    ];
    for (const [turn, active] of rows) assert.equal(turnActive(turn), active, turn.phase);
  });

  it('whenBusy: a known value passes, anything else is ask; the README names every value', () => {
    for (const w of WHEN_BUSY) assert.equal(whenBusyOf(w), w);
    // Sabotage (whenBusyOf returning its argument unchecked): "Expected values to be strictly equal: + 'nonsense' - 'ask'".
    for (const bad of ['nonsense', undefined, 3, null, { whenBusy: 'keep' }]) assert.equal(whenBusyOf(bad), 'ask');
    const readme = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
    for (const w of WHEN_BUSY) assert.ok(readme.includes(`'${w}'`), `README does not name whenBusy '${w}'`);
  });
});
