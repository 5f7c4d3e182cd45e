#!/usr/bin/env node
// `npm start [folder]`: build Reins and open it in a VS Code "[Extension Development Host]"
// on a demo folder, to try it by hand.
//   - desktop VS Code (`code` on PATH): `code --extensionDevelopmentPath=<repo> <folder>`
//   - otherwise (servers, containers, offline machines): the cached code-server (installed on
//     first use, see test/host/installCodeServer.mjs) and a URL to open in your browser.
// Env: REINS_PORT (default 8080), REINS_CODE_SERVER_VERSION (see test/host/installCodeServer.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePrerequisites } from './prerequisites.mjs';

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

const code = onPath('code');
// Before anything slow: without desktop VS Code, the code-server host needs its build tools
// the first time (installed as root, otherwise the exact command is printed and we stop).
if (!code) await ensurePrerequisites('start');

log('building (node scripts/esbuild.mjs)…');
if (spawnSync(process.execPath, ['scripts/esbuild.mjs'], { cwd: repo, stdio: 'inherit' }).status !== 0) {
  console.error('[start] build failed');
  process.exit(1);
}

const folder = resolve(process.argv[2] ?? join(repo, '.vscode-test', 'demo-workspace'));
if (!process.argv[2] && !existsSync(folder)) {
  // Seeded once, then kept: what you do in the demo folder survives restarts.
  cpSync(join(repo, 'test/fixtures/workspace'), folder, { recursive: true });
  log(`created demo folder ${folder}`);
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
  // Imported lazily: only this path needs code-server.
  const host = await import('../test/host/codeServer.mjs');
  const port = Number(process.env.REINS_PORT || 8080);
  log(`no desktop \`code\` on PATH: starting code-server on 127.0.0.1:${port} (first run installs it, ~2–4 min)…`);
  const server = await host.startCodeServer({ folder, port, verbose: true });
  const url = host.workbenchUrl(server, { folder, extensionDevelopmentPath: repo });
  console.log(`
[start] Reins is loaded in an [Extension Development Host]. Open this URL in a browser:

  ${url}

  The server listens on 127.0.0.1 only (no password); from another machine forward the port:
  ssh -L ${port}:127.0.0.1:${port} …  After \`npm run build\`, run "Developer: Reload Window"
  in the browser. Ctrl-C stops the server.
`);
  const { code: exitCode, signal } = await server.exited;
  // After Ctrl-C the signal handler in codeServer.mjs stops everything and exits.
  if (!host.shuttingDown) {
    console.error(`[start] code-server exited by itself (${exitCode ?? signal})`);
    await server.stop();
    process.exit(1);
  }
}
