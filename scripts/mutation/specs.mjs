// The pure core under mutation testing and the unit tests that guard it (one place for both:
// stryker.config.json's `mutate` lists the same modules).
//   src/session/turnMachine.ts                 test/unit/turnMachine.test.ts, turnMachineEdges.test.ts, turnQueue.test.ts (the queue and steers;
//                                              turnActive's test, oneSource.test.ts, reads the manifest from its
//                                              own place and cannot run from out/mutation)
//   src/session/folderGate.ts                  test/unit/folderGate.test.ts
//   src/acp/framing.ts                         test/unit/framing.test.ts, framingEdges.test.ts
//                                              (the fuzz properties take 17 s a run: too slow per mutant)
//   src/session/leftovers.ts, lines 1-149      test/unit/leftovers.test.ts, leftoverEdges.test.ts (the pure matching; LeftoverWatch runs ps)
//   src/acp/clientMethods/workspacePath.ts     fsAccess.test.ts, workspacePath.test.ts (the path checks, on a real temp folder)
export const TESTS = [
  'turnMachine',
  'turnMachineEdges',
  'turnQueue',
  'folderGate',
  'framing',
  'framingEdges',
  'leftovers',
  'leftoverEdges',
  'fsAccess',
  'workspacePath',
];
/** Where build.mjs writes each test's bundle (relative to the sandbox). */
export const SPECS = TESTS.map((t) => `out/mutation/${t}.test.js`);
