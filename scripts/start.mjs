#!/usr/bin/env node
// `npm start [folder]`: build Reins and open it in VS Code on a demo folder, to try it by hand.
//   - desktop VS Code (`code` on PATH): `code --extensionDevelopmentPath=<repo> <folder>`
//   - otherwise (servers, containers, offline machines): the cached code-server (installed on
//     first use, quietly, see test/host/installCodeServer.mjs), run as a user runs it with Reins
//     installed (scripts/userHost.mjs), and the address to open in your browser.
// The demo folder, code-server's user data and its extensions live in one folder kept between
// runs, outside the clone (scripts/userHost.mjs startHome(): ~/.local/share/reins-start on Linux).
// Env: REINS_PORT (default 8080), REINS_START_HOME (that folder), REINS_START_HOST=code-server
// (code-server even where desktop `code` is on PATH), REINS_CODE_SERVER_VERSION (see
// test/host/installCodeServer.mjs), REINS_HOST_VERBOSE=1 (code-server's output here too).
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupAll, shuttingDown } from '../test/host/codeServer.mjs';
import { CODE_SERVER_VERSION, hostInstalled } from '../test/host/installCodeServer.mjs';
import { ensurePrerequisites } from './prerequisites.mjs';
import { demoFolder, ensureDemoFolder, startHome, startUserCodeServer } from './userHost.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (m) => console.log(`[start] ${m}`);

function onPath(cmd) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return join(dir, cmd);
    } catch {
      // not in this dir
    }
  }
  return null;
}

const code = process.env.REINS_START_HOST === 'code-server' ? null : onPath('code');
// Before anything slow: without desktop VS Code, the code-server host needs its build tools
// the first time (installed as root, otherwise the exact command is printed and we stop).
if (!code) await ensurePrerequisites('start');

if (spawnSync(process.execPath, ['scripts/esbuild.mjs'], { cwd: repo, stdio: 'inherit' }).status !== 0) {
  console.error('[start] build failed');
  process.exit(1);
}

const home = startHome();
const demo = !process.argv[2];
const folder = demo ? demoFolder(home) : resolve(process.argv[2]);
if (demo) {
  const made = ensureDemoFolder(home, join(repo, 'test/fixtures/workspace'));
  if (made === 'created') log(`created the demo folder ${folder} (a git repository of its own, so Undo can be tried)`);
  if (made === 'created-without-git') log(`created the demo folder ${folder} (git is not installed: Undo needs it)`);
}
if (!existsSync(folder)) {
  console.error(`[start] folder not found: ${folder}`);
  process.exit(1);
}

if (code) {
  log(`opening ${folder} in desktop VS Code (${code})`);
  const child = spawn(code, [`--extensionDevelopmentPath=${repo}`, folder], { stdio: 'inherit' });
  child.on('exit', (c) => process.exit(c ?? 1));
} else {
  const port = Number(process.env.REINS_PORT || 8080);
  if (!hostInstalled()) log(`installing VS Code's server (code-server ${CODE_SERVER_VERSION}) once: about 2–4 min…`);
  let server;
  try {
    server = await startUserCodeServer({ repo, folder, home, port, trusted: demo });
  } catch (err) {
    console.error(`[start] ${err.message}`);
    await cleanupAll();
    process.exit(1);
  }
  // The address first: it is what the user came for (and what a script waits for).
  console.log(`[start] open ${server.url}/?folder=${encodeURIComponent(folder).replaceAll('%2F', '/')} in a browser
  Reins is installed there as an extension linked to this clone: after \`npm run build\`, run
  "Developer: Reload Window". code-server listens on 127.0.0.1 only (no password); from another
  machine forward the port: ssh -L ${port}:127.0.0.1:${port} …  Settings and the demo folder are
  kept in ${home} (code-server's output: ${server.logFile}). Ctrl-C stops it.`);
  const { code: exitCode, signal } = await server.exited;
  // After Ctrl-C the signal handler in codeServer.mjs stops everything and exits.
  if (!shuttingDown) {
    const tail = server.output().slice(-20).join('\n');
    console.error(`[start] code-server exited by itself (${exitCode ?? signal}); its last lines:\n${tail}`);
    await server.stop();
    process.exit(1);
  }
}
