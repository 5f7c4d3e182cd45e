// The code cache of src/boot/codeCache.ts, each load in a process of its own (the probe says why).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const probe = path.join(__dirname, 'codeCacheProbe.entry.js');

function load(file: string, cacheDir: string, version = '1.0.0'): { use: string; answer: unknown } {
  const run = spawnSync(process.execPath, [probe, file, cacheDir, version], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as { use: string; answer: unknown };
}

describe('code cache (src/boot/codeCache.ts)', () => {
  let dir: string;
  let bundle: string;
  let cache: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'reins-code-cache-'));
    bundle = path.join(dir, 'bundle.js');
    cache = path.join(dir, 'storage', 'code-cache');
    // The bundle requires a file beside it: its require resolves from its own folder.
    writeFileSync(path.join(dir, 'helper.js'), 'module.exports = 41;\n');
    writeFileSync(bundle, `"use strict";\nexports.answer = require('./helper.js') + 1;\nfunction unused() { return ${'1 + '.repeat(2000)}1; }\n`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Sabotage (loadBundle compiling without `cachedData`, so every load is a fresh compile), this printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: … + use: 'rejected' - use: 'used'
  it('is made at the first load, used at the next, and the bundle runs the same', () => {
    assert.deepEqual(load(bundle, cache), { use: 'made', answer: 42 });
    assert.equal(readdirSync(cache).length, 1);
    assert.deepEqual(load(bundle, cache), { use: 'used', answer: 42 });
  });

  // Sabotage (cacheKey() without the bundle's size and time), this printed:
  //   AssertionError [ERR_ASSERTION]: … + answer: 42, use: 'used' - answer: 43, use: 'made'
  // V8 took the old cache for a source of the same length, and the old code ran: V8 checks the
  // source's length, not its text, which is why the key names the file's size and time.
  it('is not read for a rebuilt bundle, and the old one is removed', () => {
    load(bundle, cache);
    const [old] = readdirSync(cache);
    writeFileSync(bundle, `"use strict";\nexports.answer = require('./helper.js') + 2;\nfunction unused() { return ${'1 + '.repeat(2000)}1; }\n`);
    utimesSync(bundle, new Date(), new Date(Date.now() + 5_000));
    assert.deepEqual(load(bundle, cache), { use: 'made', answer: 43 });
    assert.deepEqual(readdirSync(cache).length, 1);
    assert.notEqual(readdirSync(cache)[0], old);
  });

  it('is not read by another version of Reins', () => {
    load(bundle, cache, '1.0.0');
    assert.equal(load(bundle, cache, '1.0.1').use, 'made');
  });

  it('a damaged cache is rejected by V8, the bundle runs, and the cache is made again', () => {
    load(bundle, cache);
    const [name = 'none'] = readdirSync(cache);
    writeFileSync(path.join(cache, name), Buffer.alloc(4096, 7));
    assert.deepEqual(load(bundle, cache), { use: 'rejected', answer: 42 });
    assert.deepEqual(load(bundle, cache), { use: 'used', answer: 42 });
  });

  it('a cache that cannot be written costs nothing but the cache', () => {
    writeFileSync(path.join(dir, 'storage'), 'a file where the folder would be');
    assert.deepEqual(load(bundle, cache), { use: 'made', answer: 42 });
    assert.deepEqual(load(bundle, cache), { use: 'made', answer: 42 });
  });

  it('without a storage folder, the bundle is required as usual', () => {
    assert.deepEqual(load(bundle, ''), { use: 'none', answer: 42 });
  });
});
