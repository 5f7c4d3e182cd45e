// Entry point the VS Code extension host loads (extensionTestsPath) to run the integration
// suite. The same file serves @vscode/test-electron and code-server (test/host/run.mjs).
//
// Env: REINS_TEST_GREP   only run tests whose title matches this pattern;
//      REINS_TEST_INVERT=1  with it, only those that do not (run.mjs's second suite window).
//      REINS_TEST_OUTPUT file to append the reporter output to as well (the code-server runner
//                        prints it if the workbench's console forwarding lost the report).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';

// mocha 12 is an ES module package whose entry re-exports lib/mocha.cjs; requiring the .cjs
// directly works in every extension host (no dependence on require(esm) support).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Mocha = require('mocha/lib/mocha.cjs') as typeof import('mocha');

export function run(): Promise<void> {
  formatReport(process.env.REINS_TEST_OUTPUT);
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec' });
  if (process.env.REINS_TEST_GREP) mocha.grep(process.env.REINS_TEST_GREP);
  if (process.env.REINS_TEST_GREP && process.env.REINS_TEST_INVERT === '1') mocha.invert();

  // Test files are bundled next to this file (out/test/integration/*.test.js).
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));

  return new Promise((resolve, reject) => {
    try {
      mocha.run((failures) => {
        if (failures > 0) reject(new Error(`${failures} integration test(s) failed.`));
        else resolve();
      });
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

/**
 * Sends mocha's report to the console as finished lines, and copies it into `file` if given.
 * Needed because the extension host forwards console calls' raw arguments (under code-server the
 * spec reporter arrived as "%s%s,  ,smoke") and its console methods cannot be reassigned (VS Code
 * installs them with a no-op setter), so mocha's Base.consoleLog is the place to hook.
 */
function formatReport(file: string | undefined): void {
  (Mocha.reporters.Base as unknown as { consoleLog: typeof console.log }).consoleLog = (...args: unknown[]) => {
    const text = format(...args);
    if (file) {
      try {
        fs.appendFileSync(file, text + '\n');
      } catch {
        // The runner may have gone; losing the copy must not fail the tests.
      }
    }
    console.log(text);
  };
}
