#!/usr/bin/env node
// Installs (once) the offline VS Code host used by the integration tests and `npm start`:
// Node 24 from npm + code-server from npm, into a cache folder (see
// /work/shared/notes/real-vscode-offline.md for why this and not @vscode/test-electron).
//
//   node test/host/installCodeServer.mjs        install if needed, print the paths
//   import { ensureCodeServer } from './installCodeServer.mjs'
//
// Env: REINS_HOST_CACHE = cache folder (default <repo>/.vscode-test/code-server-<version>).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const CODE_SERVER_VERSION = '4.139.1';
const NODE_MAJOR = '24';
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function cacheDir() {
  return resolve(process.env.REINS_HOST_CACHE || join(repo, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`));
}

/** Paths inside the cache; valid once ensureCodeServer() resolved. */
export function hostPaths(dir = cacheDir()) {
  const nodePkg = join(dir, 'node24', 'node_modules', `node-${process.platform}-${process.arch}`);
  const serverPkg = join(dir, 'server', 'node_modules', 'code-server');
  return {
    dir,
    nodeDir: nodePkg,
    node: join(nodePkg, 'bin', 'node'),
    codeServerDir: serverPkg,
    // Run the entry with Node 24 directly: the bin shim would use whatever `node` is on PATH.
    codeServerEntry: join(serverPkg, 'out', 'node', 'entry.js'),
    // code-server writes to XDG dirs even for --version; keep that inside the cache.
    xdg: join(dir, 'xdg'),
    marker: join(dir, '.complete'),
  };
}

/** Environment for running Node 24 / code-server: its node first on PATH, XDG dirs scratch. */
export function hostEnv(paths = hostPaths(), base = process.env) {
  return {
    ...base,
    PATH: `${dirname(paths.node)}:${base.PATH ?? ''}`,
    XDG_CONFIG_HOME: join(paths.xdg, 'config'),
    XDG_DATA_HOME: join(paths.xdg, 'data'),
    XDG_CACHE_HOME: join(paths.xdg, 'cache'),
  };
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
      code === 0 ? ok() : fail(new Error(`${cmd} ${args.join(' ')} exited with ${code ?? signal}`));
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

/** Installs Node 24 and code-server into the cache unless already there; returns hostPaths(). */
export async function ensureCodeServer({ quiet = false } = {}) {
  const paths = hostPaths();
  if (isComplete(paths)) return paths;
  return withLock(paths.dir, async () => {
    if (isComplete(paths)) return paths; // someone else finished while we waited
    const started = Date.now();
    const secs = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
    // Half-finished installs are not trusted: start over.
    rmSync(paths.dir, { recursive: true, force: true });
    for (const d of ['node24', 'server', 'xdg']) mkdirSync(join(paths.dir, d), { recursive: true });
    const npmQuiet = ['--no-audit', '--no-fund', '--no-save', '--loglevel=warn'];
    const stdio = quiet ? 'ignore' : 'inherit';

    log(`installing node-${process.platform}-${process.arch}@${NODE_MAJOR} into ${paths.dir}/node24`);
    writeFileSync(join(paths.dir, 'node24', 'package.json'), '{"private":true}\n');
    await run('npm', ['install', `node-${process.platform}-${process.arch}@${NODE_MAJOR}`, ...npmQuiet],
      { cwd: join(paths.dir, 'node24'), stdio });
    log(`node ${await capture(paths.node, ['--version'])} ready (${secs()})`);

    log(`installing code-server@${CODE_SERVER_VERSION} (builds native modules; takes a few minutes)…`);
    writeFileSync(join(paths.dir, 'server', 'package.json'), '{"private":true}\n');
    const env = {
      ...hostEnv(paths),
      // Without nodedir node-gyp downloads headers from the internet, which is not reachable.
      npm_config_nodedir: paths.nodeDir,
      // npm prints the noisy native build output only with --foreground-scripts; keep progress visible.
      npm_config_update_notifier: 'false',
    };
    await run('npm', ['install', `code-server@${CODE_SERVER_VERSION}`, '--foreground-scripts', ...npmQuiet],
      { cwd: join(paths.dir, 'server'), env, stdio });

    const version = await capture(paths.node, [paths.codeServerEntry, '--version'], { env: hostEnv(paths) });
    log(`code-server --version: ${version.split('\n').filter((l) => /^\d+\./.test(l)).join(' ') || version}`);
    writeFileSync(paths.marker, JSON.stringify({ codeServer: CODE_SERVER_VERSION, installedAt: new Date().toISOString(), seconds: (Date.now() - started) / 1000 }) + '\n');
    log(`done in ${secs()}`);
    return paths;
  });
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
