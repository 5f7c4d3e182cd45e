// Activation must not load the agent machinery (src/runtime/machineryLoader.ts): vscode-jsonrpc, the
// connection, the runtime run only when the first agent starts. Checked on the built bundle in
// a fresh node: loading dist/reins.js (the bundle dist/extension.js loads at activation) must not
// require 'net', which only vscode-jsonrpc's node transport requires. The `vscode` module is a
// bare stand-in here: nothing is activated, the bundle is only evaluated (activation itself is
// measured in the real host by npm run bench).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const bundle = path.resolve(__dirname, '../../../dist/reins.js');
const entry = path.resolve(__dirname, '../../../dist/extension.js');
/** The members of the real `vscode` module (its namespaces, classes, enums, functions, constants). */
const apiMembers = JSON.stringify([
  ...new Set(
    [
      ...readFileSync(path.resolve(__dirname, '../../../node_modules/@types/vscode/index.d.ts'), 'utf8').matchAll(
        /^\s*export (?:class|enum|namespace|function|const|let) (\w+)/gm,
      ),
    ].map((m) => m[1]),
  ),
]);

const probe = `
const Module = require('module');
const load = Module._load;
const loaded = [];
const any = new Proxy(function () {}, {
  get: (_, key) => (key === '__esModule' ? false : any),
  apply: () => any,
  construct: () => any,
  getPrototypeOf: () => Object.prototype,
});
const members = new Proxy({}, { get: (_, key) => (key === '__esModule' ? false : any) });
// esbuild's interop copies the module's own keys (the API's members, as in the real one) onto
// an object made from its prototype, which answers anything else.
const vscode = Object.setPrototypeOf(Object.fromEntries(JSON.parse(process.argv[2]).map((name) => [name, any])), members);
Module._load = function (request, ...rest) {
  loaded.push(request);
  return request === 'vscode' ? vscode : load.call(this, request, ...rest);
};
require(process.argv[1]);
process.stdout.write(JSON.stringify(loaded));
`;

describe('activation: what loading the bundle runs', () => {
  // Sabotage (folderConversation.ts importing AgentRuntime at the top again, so the bundle evaluates
  // the runtime and vscode-jsonrpc as it loads), this printed:
  //   AssertionError [ERR_ASSERTION]: loading dist/extension.js (now reins.js) required net (vscode-jsonrpc's
  //   transport): /work/wt/bench/dist/extension.js (now reins.js), node:path, vscode, … util, crypto, path, os, fs, crypto, net, …
  it('loading dist/reins.js evaluates none of vscode-jsonrpc (the agent machinery loads with the first agent)', function () {
    if (!existsSync(bundle)) this.skip();
    const run = spawnSync(process.execPath, ['-e', probe, bundle, apiMembers], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const loaded = JSON.parse(run.stdout) as string[];
    assert.ok(loaded.includes('vscode'), 'the probe saw the bundle load');
    assert.ok(!loaded.includes('net') && !loaded.includes('node:net'), `loading dist/reins.js required net (vscode-jsonrpc's transport): ${loaded.join(', ')}`);
  });

  // Sabotage (scripts/esbuild.mjs without its one-vscode-namespace plugin: each importing file
  // gets esbuild's own copy of the API object, a getter per member), this printed:
  //   AssertionError [ERR_ASSERTION]: loading dist/extension.js (now reins.js) required 'vscode' 25 times …
  it('loading dist/reins.js makes one copy of the vscode namespace, not one per file that imports it', function () {
    if (!existsSync(bundle)) this.skip();
    const run = spawnSync(process.execPath, ['-e', probe, bundle, apiMembers], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const times = (JSON.parse(run.stdout) as string[]).filter((r) => r === 'vscode').length;
    assert.equal(times, 1, `loading dist/reins.js required 'vscode' ${times} times (src/vscodeApi.ts says why once)`);
  });

  // Sabotage (src/boot/loader.ts importing activate from '../extension' instead of loading the
  // bundle at activation), this printed:
  //   AssertionError [ERR_ASSERTION]: loading dist/extension.js required more than Node's own modules: node:path, node:path, vscode, …
  it("loading dist/extension.js (the entry) requires Node's own modules only: the bundle waits for activate()", function () {
    if (!existsSync(entry)) this.skip();
    const run = spawnSync(process.execPath, ['-e', probe, entry, apiMembers], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    // The first request is the probe's own require of the entry.
    const loaded = (JSON.parse(run.stdout) as string[]).slice(1);
    const foreign = loaded.filter((r) => !r.startsWith('node:'));
    assert.deepEqual(foreign, [], `loading dist/extension.js required more than Node's own modules: ${loaded.join(', ')}`);
  });
});
