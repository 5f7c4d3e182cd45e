// A StrykerJS test runner that runs our mocha 12 unit tests in the worker process itself.
// Stryker 9's own mocha runner wants mocha < 12, and Stryker 10 needs Node 22; this one needs
// neither. Each run loads the tests' esbuild bundles (built from the instrumented sources by
// `node scripts/mutation/build.mjs`) afresh with the mutant already switched on, so static
// mutants (top-level constants) are tested too; an infinite loop is caught by Stryker's hit
// limit or its timeout, which ends this process.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { commonTokens, declareClassPlugin, PluginKind } from '@stryker-mutator/api/plugin';
import { DryRunStatus, TestStatus, determineHitLimitReached, toMutantRunResult } from '@stryker-mutator/api/test-runner';
import { SPECS } from './specs.mjs';

const require = createRequire(import.meta.url);
// mocha 12 is ES module first; its CommonJS build is what can be required again and again.
const Mocha = require('mocha/lib/mocha.cjs');

class ReinsMochaRunner {
  static inject = [commonTokens.logger];

  constructor(logger) {
    this.log = logger;
    this.files = SPECS.map((spec) => resolve(spec));
  }

  capabilities() {
    return { reloadEnvironment: true };
  }

  async dryRun() {
    return this.run(undefined, undefined);
  }

  async mutantRun(options) {
    return toMutantRunResult(await this.run(options.activeMutant.id, options.hitLimit), true);
  }

  /** One mocha run over freshly loaded bundles, `mutant` switched on before they load. */
  async run(mutant, hitLimit) {
    const ns = (globalThis.__stryker__ ??= {});
    ns.activeMutant = mutant;
    ns.mutantCoverage = { static: {}, perTest: {} };
    ns.hitLimit = hitLimit;
    ns.hitCount = hitLimit === undefined ? undefined : 0;
    for (const file of this.files) delete require.cache[file];
    const mocha = new Mocha({ reporter: function Silent() {}, timeout: 10_000, bail: mutant !== undefined });
    for (const file of this.files) mocha.addFile(file);
    const tests = [];
    let errorMessage;
    try {
      await new Promise((done) => {
        const runner = mocha.run(() => done());
        runner.on('pass', (t) => tests.push({ id: t.fullTitle(), name: t.fullTitle(), status: TestStatus.Success, timeSpentMs: t.duration ?? 0 }));
        runner.on('fail', (t, err) =>
          tests.push({
            id: t.fullTitle(),
            name: t.fullTitle(),
            status: TestStatus.Failed,
            timeSpentMs: t.duration ?? 0,
            failureMessage: String(err?.message ?? err),
          }),
        );
      });
    } catch (err) {
      errorMessage = `mocha could not run: ${err?.stack ?? err}`;
    } finally {
      mocha.dispose();
    }
    const timeout = determineHitLimitReached(ns.hitCount, ns.hitLimit);
    if (timeout) return timeout;
    if (errorMessage) return { status: DryRunStatus.Error, errorMessage };
    return { status: DryRunStatus.Complete, tests, mutantCoverage: ns.mutantCoverage };
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, 'reins-mocha', ReinsMochaRunner)];
