#!/usr/bin/env node
// What a fresh machine needs before `npm test` / `npm start` can do anything slow, checked in
// milliseconds. As root with apt-get the missing Debian packages are installed (one line says
// so); otherwise the run stops at once with the exact command to run.
//
//   node scripts/prerequisites.mjs test    Node 20.19+, Chromium, and (until the VS Code host is
//                                          cached in .vscode-test/) what code-server's native
//                                          modules build with: Kerberos headers, g++, make, python3
//   node scripts/prerequisites.mjs start   the same without Chromium (you bring the browser)
//   node scripts/prerequisites.mjs host    only the build tools (used by installCodeServer.mjs)
//   import { ensurePrerequisites } from './prerequisites.mjs'
//
// Env: REINS_CHROMIUM (a Chromium other than /usr/bin/chromium), REINS_NO_APT=1 (never install,
// only report).
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

function onPath(cmd) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      // not in this dir
    }
  }
  return false;
}

const executable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Each check: what is missing, in words, and the Debian package that brings it. */
const CHECKS = {
  chromium: () =>
    process.env.REINS_CHROMIUM
      ? executable(process.env.REINS_CHROMIUM) || { what: `Chromium at REINS_CHROMIUM=${process.env.REINS_CHROMIUM}`, pkg: null }
      : executable('/usr/bin/chromium') || { what: 'Chromium (/usr/bin/chromium), the browser that drives the workbench', pkg: 'chromium' },
  kerberos: () =>
    ['/usr/include', '/usr/local/include'].some((d) => existsSync(join(d, 'gssapi', 'gssapi.h'))) || {
      what: "the Kerberos headers (gssapi/gssapi.h) for code-server's kerberos module",
      pkg: 'libkrb5-dev',
    },
  cxx: () => onPath(process.env.CXX || 'g++') || { what: 'a C++ compiler (g++)', pkg: 'g++' },
  make: () => onPath('make') || { what: 'make', pkg: 'make' },
  python3: () => onPath('python3') || { what: 'python3 (node-gyp runs it)', pkg: 'python3' },
};
const BUILD = ['kerberos', 'cxx', 'make', 'python3'];

function nodeTooOld() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major < 20 || (major === 20 && minor < 19);
}

/** The checks a purpose needs; the build tools only while the VS Code host is not cached yet. */
async function checksFor(purpose) {
  if (purpose === 'host') return BUILD;
  const { hostInstalled } = await import('../test/host/installCodeServer.mjs');
  const build = hostInstalled() ? [] : BUILD;
  if (purpose === 'start') return build;
  return ['chromium', ...build];
}

const packagesOf = (list) => [...new Set(list.map((m) => m.pkg).filter(Boolean))];
const missingFor = async (purpose) => (await checksFor(purpose)).map((name) => CHECKS[name]()).filter((r) => r !== true);
const isRoot = () => process.getuid?.() === 0;
const hasApt = () => process.platform === 'linux' && onPath('apt-get');
/** Whether this process may install `missing` itself: as root, with apt-get, every one a known package. */
function installable(missing) {
  return isRoot() && hasApt() && process.env.REINS_NO_APT !== '1' && missing.every((m) => m.pkg);
}

function exitNode() {
  if (nodeTooOld()) {
    console.error(`[prerequisites] Node 20.19 or newer is needed (this is ${process.version}); install it from nodejs.org or your package manager.`);
    process.exit(1);
  }
}

/**
 * Resolves when everything `purpose` needs is there (installing it first as root with apt-get);
 * otherwise prints what is missing and the command that brings it, and exits the process.
 */
export async function ensurePrerequisites(purpose = 'test') {
  exitNode();
  let missing = await missingFor(purpose);
  if (missing.length === 0) return;
  if (installable(missing)) {
    const pkgs = packagesOf(missing);
    const started = Date.now();
    console.log(`[prerequisites] installing ${pkgs.join(' ')} with apt-get (missing: ${missing.map((m) => m.what).join('; ')})…`);
    const ok = await aptInstall(pkgs);
    missing = await missingFor(purpose);
    if (missing.length === 0) {
      console.log(`[prerequisites] ${pkgs.join(' ')} installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      return;
    }
    if (!ok) console.error('[prerequisites] the install did not bring everything');
  }
  exitMissing(missing);
}

/**
 * For `npm test`, which installs what is missing beside its first steps instead of before them
 * (apt-get's minute is mostly the network and dpkg, which a lint on the other core does not
 * slow): resolves at once when everything `purpose` needs is there or can be installed here by
 * ensurePrerequisites; otherwise prints what is missing and exits, before anything has run.
 */
export async function checkPrerequisites(purpose = 'test') {
  exitNode();
  const missing = await missingFor(purpose);
  if (missing.length && !installable(missing)) exitMissing(missing);
}

function exitMissing(missing) {
  console.error(`[prerequisites] missing before anything can start:`);
  for (const m of missing) console.error(`  - ${m.what}`);
  const pkgs = packagesOf(missing);
  const sudo = isRoot() ? '' : 'sudo ';
  if (pkgs.length) {
    console.error(`Run this, then the same npm command again:\n\n  ${sudo}apt-get update && ${sudo}apt-get install -y ${pkgs.join(' ')}\n`);
    if (!hasApt()) console.error('(Those are Debian/Ubuntu package names; elsewhere install the equivalent packages.)');
  }
  if (missing.some((m) => !m.pkg)) console.error('Point REINS_CHROMIUM at an executable Chromium, or unset it to use /usr/bin/chromium.');
  process.exit(1);
}

/** One command's output, collected; shown only if it fails. */
function quietly(cmd, args, env) {
  return new Promise((done) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 20 * 60_000 });
    let out = '';
    const keep = (d) => (out = (out + d).slice(-64_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => done({ ok: false, why: err.message, out }));
    child.on('close', (code, signal) => done({ ok: code === 0, why: `exit ${code ?? signal}`, out }));
  });
}

/** apt-get update + install, quietly; its output is shown only if it fails. */
async function aptInstall(pkgs) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', ...pkgs]]) {
    const r = await quietly('apt-get', args, env);
    if (!r.ok) {
      const tail = r.out.trim().split('\n').slice(-20).join('\n');
      console.error(`\n[prerequisites] apt-get ${args.join(' ')} failed (${r.why}):\n${tail}`);
      return false;
    }
  }
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const purpose = process.argv[2] ?? 'test';
  if (!['test', 'start', 'host'].includes(purpose)) {
    console.error(`usage: node scripts/prerequisites.mjs [test|start|host]`);
    process.exit(2);
  }
  await ensurePrerequisites(purpose);
}
