// The pure core under mutation testing and the unit tests that guard it (one place for both:
// stryker.config.json's `mutate` lists the same modules).
//   src/runtime/turnMachine.ts                 test/unit/turnMachine.test.ts, turnMachineEdges.test.ts, turnQueue.test.ts (the queue and steers;
//                                              turnActive's test, oneSource.test.ts, reads the manifest from its
//                                              own place and cannot run from out/mutation)
//   src/admission/folderAdmission.ts                  test/unit/folderAdmission.test.ts
//   src/acp/framing.ts                         test/unit/framing.test.ts, framingEdges.test.ts
//                                              (not the fuzz properties, fuzzFraming.test.ts: their random inputs would
//                                              make a mutant's verdict vary from run to run)
//   src/runtime/leftovers.ts, lines 1-149      test/unit/leftovers.test.ts, leftoverEdges.test.ts (the pure matching; LeftoverWatch runs ps)
//   src/acp/clientMethods/workspacePath.ts     test/process/fsAccess.test.ts (mkfifo), test/unit/workspacePath.test.ts (the path checks, on a real temp folder)
export const TESTS = [
  'unit/turnMachine',
  'unit/turnMachineEdges',
  'unit/turnQueue',
  'unit/folderAdmission',
  'unit/framing',
  'unit/framingEdges',
  'unit/leftovers',
  'unit/leftoverEdges',
  'process/fsAccess',
  'unit/workspacePath',
];
/** Where build.mjs writes each test's bundle (relative to the sandbox; build.mjs keeps the folders under test/). */
export const SPECS = TESTS.map((t) => `out/mutation/${t}.test.js`);
