#!/usr/bin/env node
// Installs (once) the offline VS Code host used by the integration tests and `npm start`:
// Node from npm (the major code-server's engines ask for) + code-server from npm, into a cache
// folder (see /work/shared/notes/real-vscode-offline.md for why this and not @vscode/test-electron).
//
//   node test/host/installCodeServer.mjs        install if needed, print the paths
//   import { ensureCodeServer } from './installCodeServer.mjs'
//
// Env: REINS_CODE_SERVER_VERSION = another code-server (e.g. 4.90.3, which is VS Code 1.90.2:
//        the oldest VS Code `engines.vscode` accepts); default DEFAULT_CODE_SERVER_VERSION.
//      REINS_HOST_CACHE = cache folder (default <repo>/.vscode-test/code-server-<version>).
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const DEFAULT_CODE_SERVER_VERSION = '4.139.1';
export const CODE_SERVER_VERSION = process.env.REINS_CODE_SERVER_VERSION || DEFAULT_CODE_SERVER_VERSION;
// The Node each code-server's engines (and postinstall check) ask for, and the VS Code it bundles.
// Versions not listed are looked up on npm (engines.node) when first used. 4.90.3 gets the
// latest Node 20 (the suite's mocha 12 needs require(esm), Node 20.19+), and its kerberos
// module, whose node-addon-api predates Node 20's const node_api_basic_finalize, builds with
// -fpermissive.
const KNOWN = {
  '4.139.1': { node: '24', vscode: '1.139.1' },
  // Its postinstall refuses to run as root under npm unless npm_config_unsafe_perm=true.
  // Its @vscode/ripgrep 1.15.9 downloads rg from GitHub at install: see seedRipgrep().
  // It has no --vscode-option yet: see legacyVscodeOptions.
  '4.90.3': {
    node: '20',
    cxxflags: '-fpermissive',
    vscode: '1.90.2',
    unsafePerm: true,
    ripgrep: { pkg: '1.15.9', tag: 'v13.0.0-10' },
    legacyVscodeOptions: true,
  },
};
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function cacheDir() {
  return resolve(process.env.REINS_HOST_CACHE || join(repo, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`));
}

let nodeVersionCache;
/** The Node (a major or an exact version) that code-server CODE_SERVER_VERSION needs. */
export function nodeVersion() {
  if (nodeVersionCache) return nodeVersionCache;
  if (KNOWN[CODE_SERVER_VERSION]) return (nodeVersionCache = KNOWN[CODE_SERVER_VERSION].node);
  const r = spawnSync('npm', ['view', `code-server@${CODE_SERVER_VERSION}`, 'engines.node'], { env: cleanNpmEnv(), encoding: 'utf8' });
  const major = /(\d+)/.exec(r.stdout ?? '')?.[1];
  if (r.status !== 0 || !major) throw new Error(`cannot tell which Node code-server@${CODE_SERVER_VERSION} needs: ${(r.stderr ?? '').trim()}`);
  return (nodeVersionCache = major);
}

// VS Code server options that code-server passes on with `--vscode-option NAME`. Code-servers
// before that flag pass on every option they know, and reject the others: for them the install
// adds these to the options they know (out/node/cli.js), and they are given as `--NAME`.
const VSCODE_OPTIONS = ['force-disable-user-env', 'enable-smoke-test-driver'];

/** The command-line arguments that hand VS Code server options (from VSCODE_OPTIONS) through code-server. */
export function vscodeOptionArgs(names) {
  for (const n of names) if (!VSCODE_OPTIONS.includes(n)) throw new Error(`not a known VS Code option: ${n}`);
  return KNOWN[CODE_SERVER_VERSION]?.legacyVscodeOptions ? names.map((n) => `--${n}`) : names.flatMap((n) => ['--vscode-option', n]);
}

function teachLegacyVscodeOptions(paths) {
  const cli = join(paths.codeServerDir, 'out', 'node', 'cli.js');
  const text = readFileSync(cli, 'utf8');
  const anchor = 'exports.options = {\n';
  if (!text.includes(anchor)) throw new Error(`${cli}: cannot find its options to add ${VSCODE_OPTIONS.join(', ')}`);
  const added = VSCODE_OPTIONS.map((n) => `    "${n}": { type: "boolean", description: "(added by Reins' test host)" },\n`).join('');
  writeFileSync(cli, text.replace(anchor, anchor + added));
}

/** Paths inside the cache; valid once ensureCodeServer() resolved. */
export function hostPaths(dir = cacheDir()) {
  const nodePkg = join(dir, `node${nodeVersion()}`, 'node_modules', `node-${process.platform}-${process.arch}`);
  const serverPkg = join(dir, 'server', 'node_modules', 'code-server');
  return {
    dir,
    nodeDir: nodePkg,
    node: join(nodePkg, 'bin', 'node'),
    codeServerDir: serverPkg,
    // Run the entry with the cached Node directly: the bin shim would use whatever `node` is on PATH.
    codeServerEntry: join(serverPkg, 'out', 'node', 'entry.js'),
    // code-server writes to XDG dirs even for --version; keep that inside the cache.
    xdg: join(dir, 'xdg'),
    marker: join(dir, '.complete'),
  };
}

/** Environment for running the cached Node / code-server: its node first on PATH, XDG dirs scratch. */
export function hostEnv(paths = hostPaths(), base = process.env) {
  return {
    ...base,
    PATH: `${dirname(paths.node)}${delimiter}${base.PATH ?? ''}`,
    XDG_CONFIG_HOME: join(paths.xdg, 'config'),
    XDG_DATA_HOME: join(paths.xdg, 'data'),
    XDG_CACHE_HOME: join(paths.xdg, 'cache'),
  };
}

// What an outer npm (`npm test`, `npm start`) hands its scripts that a nested `npm install`
// would take as its own configuration. The one that bit: npm_config_user_agent ("npm/11
// node/v20…"), from which code-server's postinstall reads the Node version, so it refused to
// install under `npm test` even with Node 24 first on PATH. Kept: the settings a person sets to
// reach a registry at all (a mirror, a proxy, a CA, a cache folder).
const KEEP_NPM_CONFIG = new Set([
  'registry',
  'cache',
  'proxy',
  'https_proxy',
  'http_proxy',
  'noproxy',
  'no_proxy',
  'cafile',
  'ca',
  'strict_ssl',
  'userconfig',
  'globalconfig',
  'offline',
  'prefer_offline',
]);

/** `base` without the outer npm's variables (npm_config_*, npm_package_*, npm_lifecycle_*, …) and the PATH entries it added. */
export function cleanNpmEnv(base = process.env) {
  const env = {};
  for (const [key, value] of Object.entries(base)) {
    const config = /^npm_config_(.+)$/i.exec(key)?.[1].toLowerCase().replace(/-/g, '_');
    if (config !== undefined ? !KEEP_NPM_CONFIG.has(config) : /^npm_/i.test(key)) continue;
    env[key] = value;
  }
  // npm sets NODE to the Node it runs on, and INIT_CWD to where it was started.
  if (base.npm_node_execpath && base.NODE === base.npm_node_execpath) delete env.NODE;
  if (base.npm_lifecycle_event) delete env.INIT_CWD;
  // npm puts every node_modules/.bin above the package, and its node-gyp shim, first on PATH.
  env.PATH = (base.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && !/[\\/]node_modules[\\/]\.bin$/.test(dir) && !/[\\/]node-gyp-bin$/.test(dir))
    .join(delimiter);
  return env;
}

const log = (msg) => console.log(`[host-install] ${msg}`);

// npm runs in its own process group so that, if we exit early (Ctrl-C, timeout), the whole
// install (npm → postinstall → nested npm → node-gyp) is killed instead of running on orphaned.
function run(cmd, args, opts) {
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, { stdio: 'inherit', detached: true, ...opts });
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    process.once('exit', killGroup);
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      process.off('exit', killGroup);
      if (code === 0) ok();
      else fail(new Error(`${cmd} ${args.join(' ')} exited with ${code ?? signal}`));
    });
  });
}

function capture(cmd, args, opts) {
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? ok(out.trim()) : fail(new Error(`${cmd} failed (${code}): ${out}`))));
  });
}

// A mkdir lock, so two test runs starting together don't install into the same folder.
// It holds the owner's pid: a lock whose owner is dead (Ctrl-C, kill) is taken over.
async function withLock(dir, fn) {
  const lock = `${dir}.lock`;
  const ownerFile = join(lock, 'pid');
  mkdirSync(dirname(lock), { recursive: true });
  for (let waited = 0; ; waited += 2) {
    try {
      mkdirSync(lock);
      writeFileSync(ownerFile, String(process.pid));
      break;
    } catch {
      if (!ownerAlive(ownerFile)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (waited % 30 === 0) log(`waiting for another install (${lock})…`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  const release = () => rmSync(lock, { recursive: true, force: true });
  process.once('exit', release); // also when something calls process.exit() mid-install
  try {
    return await fn();
  } finally {
    process.off('exit', release);
    release();
  }
}

function ownerAlive(ownerFile) {
  let pid;
  try {
    pid = Number(readFileSync(ownerFile, 'utf8'));
  } catch {
    // Just created and pid not written yet, or unreadable: count as alive unless old.
    return Date.now() - (statSync(dirname(ownerFile), { throwIfNoEntry: false })?.mtimeMs ?? 0) < 10_000;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function isComplete(paths) {
  try {
    const m = JSON.parse(readFileSync(paths.marker, 'utf8'));
    return m.codeServer === CODE_SERVER_VERSION && existsSync(paths.node) && existsSync(paths.codeServerEntry);
  } catch {
    return false;
  }
}

/** True when the host for CODE_SERVER_VERSION is cached (nothing to install, nothing to build). */
export function hostInstalled() {
  try {
    return isComplete(hostPaths());
  } catch {
    return false; // an unknown version whose Node could not be looked up: not installed either
  }
}

/**
 * Older @vscode/ripgrep packages download rg from GitHub in their postinstall, which is not
 * reachable; they first look for the release archive in os.tmpdir()/vscode-ripgrep-cache-<version>.
 * Seeds that folder (inside the cache; TMPDIR points there during the install) with an archive
 * holding the rg of the npm package @vscode/ripgrep-universal. Returns that TMPDIR.
 */
async function seedRipgrep(paths, npmEnv, stdio, log) {
  const { pkg, tag } = KNOWN[CODE_SERVER_VERSION].ripgrep;
  const target = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' }[process.arch];
  if (process.platform !== 'linux' || !target) throw new Error(`code-server@${CODE_SERVER_VERSION} can be installed offline on Linux x64/arm64 only`);
  const folder = join(paths.dir, 'ripgrep');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), '{"private":true}\n');
  log('installing @vscode/ripgrep-universal (rg for the offline install)');
  await run('npm', ['install', '@vscode/ripgrep-universal@1.18.0', '--no-audit', '--no-fund', '--no-save', '--loglevel=warn'], {
    cwd: folder,
    env: npmEnv,
    stdio,
  });
  const rgDir = join(folder, 'node_modules', '@vscode', 'ripgrep-universal', 'bin', `linux-${process.arch}`);
  const tmp = join(paths.dir, 'tmp');
  const seeded = join(tmp, `vscode-ripgrep-cache-${pkg}`);
  mkdirSync(seeded, { recursive: true });
  await run('tar', ['czf', join(seeded, `ripgrep-${tag}-${target}.tar.gz`), '-C', rgDir, 'rg'], { stdio });
  return tmp;
}

/** Where a quiet install writes what it did: beside the cache, which an install starts by removing. */
export function installLogPath(paths = hostPaths()) {
  return join(dirname(paths.dir), `${basename(paths.dir)}.install.log`);
}

/**
 * Installs Node and code-server into the cache unless already there; returns hostPaths().
 * quiet: everything the install prints (npm's, the native builds' compiler warnings, the
 * postinstall's) goes to installLogPath() instead, and is shown only when the install fails:
 * the error then names the log and ends with its last lines.
 */
export async function ensureCodeServer({ quiet = false } = {}) {
  const paths = hostPaths();
  if (isComplete(paths)) return paths;
  // Stops at once (or installs them, as root) if the native modules could not be built.
  // (Imported here: prerequisites.mjs imports this module, and a static cycle would deadlock
  // its top-level await.)
  const { ensurePrerequisites } = await import('../../scripts/prerequisites.mjs');
  await ensurePrerequisites('host');
  return withLock(paths.dir, async () => {
    if (isComplete(paths)) return paths; // someone else finished while we waited
    if (!quiet) return install(paths, { stdio: 'inherit', log });
    const logFile = installLogPath(paths);
    const fd = openSync(logFile, 'w');
    try {
      return await install(paths, { stdio: ['ignore', fd, fd], log: (m) => appendFileSync(fd, `[host-install] ${m}\n`) });
    } catch (err) {
      const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-25).join('\n');
      throw new Error(`${err.message}\nThe install's log: ${logFile}; its last lines:\n${tail}`);
    } finally {
      closeSync(fd);
    }
  });
}

/** The install itself, into an emptied cache folder; `stdio` takes every command's output. */
async function install(paths, { stdio, log }) {
  const started = Date.now();
  const secs = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
  // Half-finished installs are not trusted: start over.
  rmSync(paths.dir, { recursive: true, force: true });
  const nodeFolder = join(paths.dir, `node${nodeVersion()}`);
  for (const d of [nodeFolder, join(paths.dir, 'server'), paths.xdg]) mkdirSync(d, { recursive: true });
  const npmQuiet = ['--no-audit', '--no-fund', '--no-save', '--loglevel=warn'];
  // A nested npm must not take the outer npm's variables (`npm test` runs us) as its own
  // configuration: see cleanNpmEnv. The cached Node goes first on PATH, so /usr/bin/npm runs on it.
  const npmEnv = { ...hostEnv(paths, cleanNpmEnv()), npm_config_update_notifier: 'false' };

  const nodePackage = `node-${process.platform}-${process.arch}@${nodeVersion()}`;
  log(`installing ${nodePackage} into ${nodeFolder}`);
  writeFileSync(join(nodeFolder, 'package.json'), '{"private":true}\n');
  await run('npm', ['install', nodePackage, ...npmQuiet], { cwd: nodeFolder, env: npmEnv, stdio });
  log(`node ${await capture(paths.node, ['--version'])} ready (${secs()})`);

  const ripgrepTmp = KNOWN[CODE_SERVER_VERSION]?.ripgrep ? await seedRipgrep(paths, npmEnv, stdio, log) : undefined;

  log(`installing code-server@${CODE_SERVER_VERSION} (builds native modules; takes a few minutes)…`);
  writeFileSync(join(paths.dir, 'server', 'package.json'), '{"private":true}\n');
  const env = {
    ...npmEnv,
    // Without nodedir node-gyp downloads headers from the internet, which is not reachable.
    npm_config_nodedir: paths.nodeDir,
    // Older code-servers check for it as root; npm 7+ no longer knows it (and says so otherwise).
    ...(process.getuid?.() === 0 && (KNOWN[CODE_SERVER_VERSION] ? KNOWN[CODE_SERVER_VERSION].unsafePerm === true : true)
      ? { npm_config_unsafe_perm: 'true' }
      : {}),
    ...(ripgrepTmp ? { TMPDIR: ripgrepTmp } : {}),
    ...(KNOWN[CODE_SERVER_VERSION]?.cxxflags ? { CXXFLAGS: `${process.env.CXXFLAGS ?? ''} ${KNOWN[CODE_SERVER_VERSION].cxxflags}`.trim() } : {}),
  };
  // Without --foreground-scripts npm builds the native modules side by side (the nested install in
  // code-server's postinstall inherits the setting): measured 164 s against 203 s on two loaded
  // cores. npm then shows a build's output only when it fails.
  await run('npm', ['install', `code-server@${CODE_SERVER_VERSION}`, ...npmQuiet], { cwd: join(paths.dir, 'server'), env, stdio });

  if (KNOWN[CODE_SERVER_VERSION]?.legacyVscodeOptions) teachLegacyVscodeOptions(paths);
  const version = await capture(paths.node, [paths.codeServerEntry, '--version'], { env: hostEnv(paths) });
  log(
    `code-server --version: ${
      version
        .split('\n')
        .filter((l) => /^\d+\./.test(l))
        .join(' ') || version
    }`,
  );
  writeFileSync(
    paths.marker,
    JSON.stringify({ codeServer: CODE_SERVER_VERSION, installedAt: new Date().toISOString(), seconds: (Date.now() - started) / 1000 }) + '\n',
  );
  log(`done in ${secs()}`);
  return paths;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Exit through process.exit so the 'exit' hooks kill npm's group and release the lock.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(sig, () => process.exit(130));
  const t = Date.now();
  ensureCodeServer()
    .then((p) => {
      log(`ready (${((Date.now() - t) / 1000).toFixed(1)} s): node=${p.node} code-server=${p.codeServerEntry}`);
    })
    .catch((err) => {
      console.error(`[host-install] FAILED: ${err.message}`);
      process.exit(1);
    });
}
