// Stryker's buildCommand: bundles the unit tests of the mutated modules (specs.mjs) from the
// sandbox's instrumented sources into out/mutation/, where mochaRunner.mjs loads them.
import * as esbuild from 'esbuild';
import { TESTS } from './specs.mjs';

await esbuild.build({
  entryPoints: TESTS.map((t) => `test/${t}.test.ts`),
  outdir: 'out/mutation',
  outbase: 'test',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'es2022',
  sourcemap: false,
  logLevel: 'warning',
  external: ['vscode', 'mocha'],
});
