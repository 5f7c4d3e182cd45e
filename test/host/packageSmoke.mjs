#!/usr/bin/env node
// `npm run test:package`: the .vsix a user would install. Packs it (npm run package), installs
// it into a fresh code-server with `--install-extension`, and drives its panel as a person
// would (the UI smoke: a prompt to the demonstration agent, its answer, a permission click).
// Proves the allow-listed package holds everything the extension needs at run time.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupAll, startCodeServer } from './codeServer.mjs';
import { ensureCodeServer } from './installCodeServer.mjs';
import { runUiSmoke } from './uiSmoke.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const log = (m) => console.log(`[package] ${m}`);
const vsix = join(repo, 'reins.vsix');

async function main() {
  if (!process.argv.includes('--no-build')) {
    log('npm run package');
    const built = spawnSync('npm', ['run', '--silent', 'package'], { cwd: repo, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('npm run package failed');
  }
  if (!existsSync(vsix)) throw new Error(`no ${vsix}`);
  const paths = await ensureCodeServer({ quiet: true });
  const workspace = mkdtempSync(join(tmpdir(), 'reins-pkg-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), workspace, { recursive: true });
  const server = await startCodeServer({ folder: workspace });
  try {
    // The same code-server, the same extensions dir the running server reads.
    const install = spawnSync(
      paths.node,
      [paths.codeServerEntry, '--install-extension', vsix, '--extensions-dir', join(server.scratch, 'extensions'), '--user-data-dir', join(server.scratch, 'user-data')],
      { env: server.env, encoding: 'utf8' },
    );
    log(install.stdout.trim().split('\n').filter((l) => /install/i.test(l)).join(' ') || '(no output)');
    if (install.status !== 0) throw new Error(`--install-extension failed:\n${install.stderr}`);
    // No extensionDevelopmentPath: the workbench runs the installed copy.
    await runUiSmoke({ server, workspace, extensionDevelopmentPath: null });
    log('PASS: the installed package opens its panel and talks to the demonstration agent');
  } finally {
    await server.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch(async (err) => {
  console.error(`[package] FAILED: ${err.message}`);
  process.exitCode = 1;
}).finally(cleanupAll);
