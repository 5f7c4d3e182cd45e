// The bundle's one copy of the `vscode` namespace: scripts/esbuild.mjs resolves every
// `import * as vscode from 'vscode'` of the extension to this module. Left to itself, esbuild
// gives each importing file its own copy of the API object (a getter per member, ~25 files ×
// hundreds of members, made while the bundle loads, before activate() runs).
// test/process/activationLoad.test.ts checks that the bundle requires 'vscode' once.
export * from 'vscode';
