// `npm start`'s code-server, run as a user runs it: no smoke-test driver (with it the workbench
// drops toasts, so every notification Reins shows would reach only the notification centre), no
// test-only flags, Reins installed (a link to this clone, so that `npm run build` and "Developer:
// Reload Window" take the new build), and one home folder kept between runs for the user data
// (settings, the walkthrough's progress, sign-ins), the extensions and the demo folder.
// The tests keep the driven mode: test/host/codeServer.mjs startCodeServer().
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchCodeServer } from '../test/host/codeServer.mjs';
import { ensureCodeServer, hostEnv } from '../test/host/installCodeServer.mjs';

/**
 * Where `npm start` keeps what must outlive a run: REINS_START_HOME, else the OS's per-user data
 * folder. Not inside the clone: the demo folder must be a git repository of its own (inside the
 * clone, VS Code's Git asks about the parent repository, and in an ignored folder every change
 * the agent makes is one git ignores, so Undo never has anything to undo), and the settings must
 * survive a fresh clone or `git clean`.
 */
export function startHome(env = process.env) {
  if (env.REINS_START_HOME) return resolve(env.REINS_START_HOME);
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'reins-start');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'reins-start');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'reins-start');
}

/** The demo folder inside `home`. */
export const demoFolder = (home) => join(home, 'demo-workspace');

/**
 * Creates the demo folder once from `fixture`: a git repository of its own with one commit (its
 * author set in that repository only, so that it works on a machine without a git identity), so
 * that its status is clean and Undo has a base. Returns 'created', 'created-without-git' (git is
 * not installed) or 'kept'. Made in a temporary folder and renamed, so an interrupted run leaves
 * no half-made demo behind.
 */
export function ensureDemoFolder(home, fixture) {
  const folder = demoFolder(home);
  if (existsSync(folder)) return 'kept';
  mkdirSync(home, { recursive: true });
  const tmp = `${folder}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(fixture, tmp, { recursive: true });
  const git = (...args) => spawnSync('git', args, { cwd: tmp, encoding: 'utf8' });
  const hasGit = !git('--version').error;
  if (hasGit) {
    for (const args of [
      ['init', '--quiet'],
      ['config', 'user.name', 'Reins demo'],
      ['config', 'user.email', 'demo@reins.invalid'],
      ['add', '--all'],
      ['commit', '--quiet', '--no-gpg-sign', '--message', 'The demo folder as Reins ships it'],
    ]) {
      const r = git(...args);
      if (r.status !== 0) throw new Error(`git ${args.join(' ')} in ${tmp} failed: ${(r.stderr || r.stdout).trim()}`);
    }
  }
  renameSync(tmp, folder);
  return hasGit ? 'created' : 'created-without-git';
}

/**
 * Settings written once, when the user data is new; after that they are the user's. Only what
 * this offline host needs: no telemetry or update checks (they cannot reach their servers), and
 * VS Code's own Chat off (no model behind it here, and it would take the secondary side bar the
 * Reins view sits in).
 */
const FIRST_SETTINGS = {
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'chat.disableAIFeatures': true,
};

/**
 * Installs the extension at `repo` into `extensionsDir` as a link to it, replacing a link an
 * earlier run (maybe from another clone) left. The extensions list (extensions.json) VS Code
 * writes on its first scan is brought up to date too, since it does not scan again.
 */
export function linkExtension(extensionsDir, repo) {
  const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const id = `${manifest.publisher}.${manifest.name}`;
  const name = `${id}-${manifest.version}`;
  mkdirSync(extensionsDir, { recursive: true });
  for (const entry of readdirSync(extensionsDir)) {
    if (entry.startsWith(`${id}-`) && lstatSync(join(extensionsDir, entry)).isSymbolicLink()) rmSync(join(extensionsDir, entry));
  }
  const link = join(extensionsDir, name);
  symlinkSync(repo, link, process.platform === 'win32' ? 'junction' : 'dir');
  const list = join(extensionsDir, 'extensions.json');
  if (!existsSync(list)) return; // VS Code scans the folder on its first start
  const entries = JSON.parse(readFileSync(list, 'utf8')).filter((e) => e?.identifier?.id?.toLowerCase() !== id.toLowerCase());
  entries.push({ identifier: { id }, version: manifest.version, location: { $mid: 1, path: link, scheme: 'file' }, relativeLocation: name });
  writeFileSync(list, JSON.stringify(entries));
}

/**
 * Starts code-server on `folder` for a person at a browser. `trusted`: the folder opens trusted
 * (the demo folder, which `npm start` made itself); any other folder goes through workspace
 * trust as it would for a user. What code-server prints goes to `<home>/code-server.log`.
 * Returns launchCodeServer()'s server plus { logFile }.
 */
export async function startUserCodeServer({ repo, folder, home, port, host = '127.0.0.1', trusted = false, verbose = !!process.env.REINS_HOST_VERBOSE }) {
  const paths = await ensureCodeServer({ quiet: true });
  const userData = join(home, 'user-data');
  const extensionsDir = join(home, 'extensions');
  if (!existsSync(join(userData, 'User', 'settings.json'))) {
    mkdirSync(join(userData, 'User'), { recursive: true });
    writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(FIRST_SETTINGS, null, 2) + '\n');
  }
  linkExtension(extensionsDir, repo);
  const logFile = join(home, 'code-server.log');
  const logFd = openSync(logFile, 'w');
  const args = [
    // Its config file in the home too (not ~/.config/code-server): nothing of it is needed after the run.
    '--config',
    join(home, 'code-server.yaml'),
    '--user-data-dir',
    userData,
    '--extensions-dir',
    extensionsDir,
    ...(trusted ? ['--disable-workspace-trust'] : []),
    folder,
  ];
  // The user's own environment (XDG folders included, where agents keep their configuration),
  // with the host's Node first on PATH.
  const env = {
    ...hostEnv(paths),
    XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME,
    XDG_DATA_HOME: process.env.XDG_DATA_HOME,
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
  };
  for (const key of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME']) if (env[key] === undefined) delete env[key];
  const server = await launchCodeServer({
    paths,
    args,
    env,
    host,
    port,
    verbose,
    onLine: (line) => writeFileSync(logFd, `${line}\n`),
  });
  return { ...server, logFile };
}
