#!/usr/bin/env node
// `npm run test:package`: the .vsix a user would install. Packs it (npm run package), installs
// it into a fresh code-server with `--install-extension`, and drives its panel as a person
// would (packageWalk.mjs: the welcome's demo, a prompt, its answer, a permission click, a
// confirmed stop, every packed file used). Proves the allow-listed package holds everything the
// extension needs at run time. Before that: vsce printed no warning, the README's pictures exist,
// and Open VSX would accept the package (test/host/openVsx.mjs).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupAll, startCodeServer } from './codeServer.mjs';
import { ensureCodeServer } from './installCodeServer.mjs';
import { checkOpenVsx } from './openVsx.mjs';
import { runPackageWalk } from './packageWalk.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const log = (m) => console.log(`[package] ${m}`);
const vsix = join(repo, 'reins.vsix');

/** `vsce package` (npm run package), which must print no warning (the marketplace shows the same ones). */
function packageWithoutWarnings() {
  log('npm run package');
  const built = spawnSync('npm', ['run', '--silent', 'package'], { cwd: repo, encoding: 'utf8' });
  process.stdout.write(built.stdout);
  process.stderr.write(built.stderr);
  if (built.status !== 0) throw new Error('npm run package failed');
  const warnings = `${built.stdout}\n${built.stderr}`.split('\n').filter((l) => /\bwarn(ing)?\b/i.test(l));
  if (warnings.length) throw new Error(`vsce package printed warnings:\n${warnings.join('\n')}`);
}

/**
 * The README's pictures are files in the repository (vsce points the marketplace page at them in
 * the repository), taken by the view smoke. Sabotage (docs/images/reviewed-diff.png removed): this
 * printed "the README shows pictures that are not in the repository: docs/images/reviewed-diff.png".
 */
function readmeImagesExist() {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g)].map((m) => m[1]).filter((u) => !/^https?:/.test(u));
  if (images.length === 0) throw new Error('the README shows no picture');
  const missing = images.filter((i) => !existsSync(join(repo, i)));
  if (missing.length) throw new Error(`the README shows pictures that are not in the repository: ${missing.join(', ')}`);
}

async function main() {
  if (!process.argv.includes('--no-build')) packageWithoutWarnings();
  readmeImagesExist();
  if (!existsSync(vsix)) throw new Error(`no ${vsix}`);
  await checkOpenVsx(vsix, repo);
  if (process.argv.includes('--check-only')) return log("PASS: packed without warnings; the README's pictures are in the repository; Open VSX would accept it");
  const paths = await ensureCodeServer({ quiet: true });
  const workspace = mkdtempSync(join(tmpdir(), 'reins-pkg-ws-'));
  cpSync(join(repo, 'test/fixtures/workspace'), workspace, { recursive: true });
  // In a tab, as the UI smoke expects (its Stop is in the editor title); a fresh user, so it goes through the welcome.
  const server = await startCodeServer({ folder: workspace, settings: { 'reins.openIn': 'editor' } });
  try {
    // The same code-server, the same extensions dir the running server reads.
    const install = spawnSync(
      paths.node,
      [
        paths.codeServerEntry,
        '--install-extension',
        vsix,
        '--extensions-dir',
        join(server.scratch, 'extensions'),
        '--user-data-dir',
        join(server.scratch, 'user-data'),
      ],
      { env: server.env, encoding: 'utf8' },
    );
    log(
      install.stdout
        .trim()
        .split('\n')
        .filter((l) => /install/i.test(l))
        .join(' ') || '(no output)',
    );
    if (install.status !== 0) throw new Error(`--install-extension failed:\n${install.stderr}`);
    await runPackageWalk({ server, workspace, extensionsDir: join(server.scratch, 'extensions') });
    log('PASS: the installed package opens its panel and talks to the demonstration agent');
  } finally {
    await server.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}

main()
  .catch(async (err) => {
    console.error(`[package] FAILED: ${err.message}`);
    process.exitCode = 1;
  })
  .finally(cleanupAll);
