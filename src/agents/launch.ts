// From an agent entry to the process to start: the command found the way the user's shell
// would find it (findCommand.ts), npx standing in for an npm-distributed preset that is not
// installed, and the stored sign-in values added to its environment. A command found nowhere
// is a failure that names the install hint, before anything is spawned. No `vscode` here.
import * as path from 'node:path';
import type { AgentLaunch } from '../acp/agentProcess';
import type { Logger } from '../util/logger';
import { availability, type CatalogAgent } from './catalog';
import type { CommandFinder, Found } from './findCommand';
import type { Preset } from './presets';

export type PreparedLaunch = { ok: true; launch: AgentLaunch } | { ok: false; message: string; preset?: Preset };

/**
 * A command found through the login shell runs with its own folder first on PATH: an nvm or
 * Homebrew script starts with `#!/usr/bin/env node`, and that node is next to it, not on the
 * extension host's PATH.
 */
function withDirOnPath(env: Record<string, string>, found: Found): Record<string, string> {
  if (found.via !== 'login-shell') return env;
  const base = env.PATH ?? process.env.PATH ?? '';
  return { ...env, PATH: [path.dirname(found.path), base].filter(Boolean).join(path.delimiter) };
}

export async function prepareLaunch(
  agent: Pick<CatalogAgent, 'name' | 'entry' | 'preset'> & { configured?: boolean },
  cwd: string,
  /** Stored sign-in values (agents/secrets.ts); they win over the entry's `env`. Never logged. */
  signInEnv: Record<string, string>,
  finder: CommandFinder,
  log: Logger,
): Promise<PreparedLaunch> {
  const { entry } = agent;
  const env = { ...entry.env, ...signInEnv };
  const av = (await availability([{ ...agent, configured: agent.configured ?? true }], finder)).get(agent.name);
  if (av?.kind === 'installed') {
    const { found } = av;
    if (found.via === 'login-shell') {
      log.info(
        `agent ${agent.name}: \`${entry.command}\` is not on the extension host's PATH; using ${found.path}, found through the login shell (${found.shell})`,
      );
      return { ok: true, launch: { command: found.path, args: entry.args ?? [], env: withDirOnPath(env, found), cwd } };
    }
    return { ok: true, launch: { command: entry.command, args: entry.args ?? [], env, cwd } };
  }
  if (av?.kind === 'npx') {
    const args = [...av.npxArgs, ...(entry.args ?? [])];
    log.info(
      `agent ${agent.name}: \`${entry.command}\` is not installed; running it through npx (${av.npx.path} ${args.join(' ')}); the first start downloads it`,
    );
    return { ok: true, launch: { command: av.npx.path, args, env: withDirOnPath(env, av.npx), cwd } };
  }
  const shell = finder.loginShell();
  const where = `on the extension host's PATH${shell ? ` or through your login shell (${shell})` : ''}`;
  log.warn(`agent ${agent.name}: \`${entry.command}\` was not found ${where}`);
  return { ok: false, message: `\`${entry.command}\` was not found ${where}.`, preset: agent.preset };
}
