// test/unit starts no process: its .mocharc.json loads these root hooks, which make every
// child_process function throw and fail the test that called it, naming the call. What needs a
// real process (the scripted agent, a shell, git, ps) belongs in test/process/, so that the unit
// tests stay a loop of seconds that no load on the machine can make flaky.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

/** What the current test tried to start (the first call is enough to name the test's mistake). */
let attempt: string | undefined;

// The module object itself, which every bundle's `import … from 'node:child_process'` reads its
// functions from at call time.
const functions = childProcess as unknown as Record<string, unknown>;
for (const name of STARTERS) {
  functions[name] = (...args: unknown[]) => {
    const command = [args[0], ...(Array.isArray(args[1]) ? args[1] : [])].map(String).join(' ').slice(0, 120);
    attempt ??= `${name}(${command})`;
    throw new Error(`a unit test starts no process (${name}: ${command}); move the test to test/process/`);
  };
}
// The same for ES modules that import child_process by name.
syncBuiltinESMExports();

export const mochaHooks: Mocha.RootHookObject = {
  beforeEach() {
    attempt = undefined;
  },
  afterEach(this: Mocha.Context) {
    const what = attempt;
    attempt = undefined;
    // The code under test may have caught the error above and passed all the same: fail it here.
    // (A copy of test/process/processTree.test.ts put in test/unit printed: Error: a unit test
    // starts no process (spawn: sleep 41.5); move the test to test/process/.)
    if (what !== undefined && this.currentTest?.state !== 'failed') {
      throw new Error(`this test tried to start a process, ${what}: a unit test starts none; move it to test/process/`);
    }
  },
};
