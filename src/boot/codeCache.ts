// Compiling the extension's bundle is most of what activating Reins costs: V8 parses some 370 KB
// of JavaScript before a line of it runs (about 20 ms on a 2-core machine; measured in
// BENCHMARKS.md → Activation). V8 can keep what it compiled as a code cache and start from it the
// next time. VS Code's extension host keeps none for extensions (its AMD loader once did), and
// Node's own `module.enableCompileCache()` is process-wide: it would cache every other
// extension's modules too. So the bundle is compiled here, with a cache of its own.
//
// The cache is one file in the extension's global storage, named after what it was made from:
// the bundle's size and time, Reins's version, V8's version and the CPU architecture. V8 checks
// the rest (its flags, the source's length) and rejects a cache that does not fit, which is then
// made again; a cache that cannot be read or written only means a compile without it.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire, wrap } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';

/** What became of the code cache at this activation (the log's activation line says it). */
type CodeCacheUse = 'used' | 'made' | 'rejected' | 'none';

export interface CompiledBundle {
  /** The bundle's exports, as `require(file)` would give them. */
  exports: unknown;
  use: CodeCacheUse;
  /** Writes a cache of what V8 has compiled of the bundle so far, when this activation had none that fitted (else nothing). */
  keep(): void;
}

/**
 * Loads `file` (a CommonJS bundle) as `require` would, compiled with the code cache kept in
 * `cacheDir` (undefined: no cache, a plain `require`). Its `require` resolves from `file`'s
 * folder, so VS Code's interception of `require('vscode')` knows the extension asking.
 */
export function loadBundle(file: string, cacheDir: string | undefined, version: string): CompiledBundle {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- no cache: loaded as VS Code would
  if (!cacheDir) return { exports: require(file) as unknown, use: 'none', keep: () => undefined };
  const source = fs.readFileSync(file, 'utf8');
  const cacheFile = path.join(cacheDir, `${cacheKey(file, version)}.v8cache`);
  const cachedData = readIfThere(cacheFile);
  const script = new vm.Script(wrap(source), { filename: file, cachedData });
  // `cachedDataRejected` is false only when V8 took the cache.
  const use: CodeCacheUse = cachedData === undefined ? 'made' : script.cachedDataRejected === false ? 'used' : 'rejected';
  const module = { exports: {} as unknown, filename: file, id: file, loaded: false };
  const fn = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  fn.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  module.loaded = true;
  return {
    exports: module.exports,
    use,
    keep() {
      if (use === 'used') return;
      writeCache(cacheDir, cacheFile, script.createCachedData());
    },
  };
}

/** Names what the cache was made from: a cache of another bundle, Reins or V8 is never read. */
function cacheKey(file: string, version: string): string {
  const stat = fs.statSync(file);
  const from = [version, stat.size, Math.trunc(stat.mtimeMs), process.versions.v8, process.arch].join('\0');
  return createHash('sha256').update(from).digest('hex').slice(0, 32);
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Replaces the folder's cache with this one: written aside and renamed, so a reader sees a whole file or none. */
function writeCache(dir: string, file: string, data: Buffer): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, data);
    fs.renameSync(temp, file);
    // Caches of earlier versions of Reins (or of another V8) are of no more use.
    // (Another window's temporary file removed meanwhile only fails its rename: it tries again next time.)
    for (const name of fs.readdirSync(dir)) if (path.join(dir, name) !== file) fs.rmSync(path.join(dir, name), { force: true });
  } catch {
    // A cache not written costs the next activation a compile, nothing else.
  }
}
