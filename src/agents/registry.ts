// The ACP Registry: the protocol's own catalogue of agents, a JSON index served from a CDN
// (https://github.com/agentclientprotocol/registry, FORMAT.md and agent.schema.json there):
//   { "version": "1.0.0", "agents": [ { id, name, version, description, repository?, website?,
//     authors?, license?, icon?, distribution: { npx?: {package, cmd?, args?, env?},
//     uvx?: {package, cmd?, args?, env?}, binary?: { "linux-x86_64": {archive, cmd, args?, env?} } } } ] }
// Reins lists it in the agent picker and adds an entry at the version the index names, so that
// an agent added today starts the same package tomorrow. Entries that do not validate are
// skipped, never guessed at. No `vscode` here.

export const DEFAULT_REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

type Distribution = 'npx' | 'uvx' | 'binary';

export interface RegistryAgent {
  id: string;
  name: string;
  version: string;
  description: string;
  website?: string;
  /** The distributions the index offers, in Reins's order of preference. */
  distributions: Distribution[];
  /** How Reins would start it (npx or uvx, pinned); undefined when only a binary is offered. */
  launch?: { command: 'npx' | 'uvx'; args: string[]; env?: Record<string, string>; via: 'npx' | 'uvx' };
  /** For a binary-only agent on this platform: its archive (Reins does not download archives). */
  archive?: string;
}

export interface ParsedRegistry {
  agents: RegistryAgent[];
  /** Entries left out because they did not validate, with why (for the log). */
  skipped: string[];
}

const ID = /^[a-z][a-z0-9-]*$/;
const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*$/;
/** An npm or PyPI package spec: never an option (a leading '-' would be read by npx/uvx as one). */
const PACKAGE = /^(@[a-z0-9][\w.-]*\/)?[A-Za-z0-9][\w.-]*(\[[\w,.-]+\])?((@|==)[0-9A-Za-z.+-]+)?$/;
const CMD = /^[A-Za-z0-9][\w.+-]*$/;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const stringMap = (v: unknown): v is Record<string, string> => isObj(v) && Object.values(v).every((s) => typeof s === 'string');

/** The registry's platform key for this machine (`linux-x86_64`, `darwin-aarch64`, …). */
export function platformKey(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  const os = platform === 'win32' ? 'windows' : platform;
  const cpu = arch === 'x64' ? 'x86_64' : arch === 'arm64' ? 'aarch64' : arch;
  return `${os}-${cpu}`;
}

/**
 * The package at an exact version: kept if the index pinned one (`pkg@1.4.0`, `pkg==1.4.0`),
 * else pinned at the entry's `version` (an unpinned name or a tag such as `@latest` would start
 * whatever is newest on the day).
 */
export function pin(pkg: string, version: string, kind: 'npx' | 'uvx'): string {
  const sep = kind === 'npx' ? '@' : '==';
  // npx: the '@' of a scope is not a version separator.
  const at = kind === 'npx' ? pkg.lastIndexOf('@') : pkg.indexOf('==');
  const name = at > 0 ? pkg.slice(0, at) : pkg;
  const given = at > 0 ? pkg.slice(at + sep.length) : undefined;
  return given !== undefined && VERSION.test(given) ? pkg : `${name}${sep}${version}`;
}

function packageLaunch(kind: 'npx' | 'uvx', d: unknown, version: string): RegistryAgent['launch'] | string {
  if (!isObj(d) || typeof d.package !== 'string' || !PACKAGE.test(d.package)) return `${kind}.package is missing or not a package name`;
  if (d.args !== undefined && !strings(d.args)) return `${kind}.args is not a list of strings`;
  if (d.env !== undefined && !stringMap(d.env)) return `${kind}.env is not a map of strings`;
  if (d.cmd !== undefined && (typeof d.cmd !== 'string' || !CMD.test(d.cmd))) return `${kind}.cmd is not a command name`;
  const pkg = pin(d.package, version, kind);
  const args = d.args ?? [];
  // -y: npx must not ask "Ok to proceed?" on the agent's stdin, which is the ACP stream.
  const head = kind === 'npx' ? (d.cmd ? ['-y', '--package', pkg, d.cmd] : ['-y', pkg]) : d.cmd ? ['--from', pkg, d.cmd] : [pkg];
  return { command: kind, via: kind, args: [...head, ...args], env: d.env };
}

function parseAgent(a: unknown, platform: string): RegistryAgent | string {
  if (!isObj(a)) return 'not an object';
  const { id, name, version, description, website, distribution } = a;
  if (typeof id !== 'string' || !ID.test(id)) return `id ${JSON.stringify(id)} is not a registry id`;
  if (typeof name !== 'string' || !name) return `${id}: no name`;
  if (typeof version !== 'string' || !VERSION.test(version)) return `${id}: version ${JSON.stringify(version)} is not a version`;
  if (!isObj(distribution)) return `${id}: no distribution`;
  const agent: RegistryAgent = {
    id,
    name,
    version,
    description: typeof description === 'string' ? description : '',
    website: typeof website === 'string' ? website : undefined,
    distributions: [],
  };
  for (const kind of ['npx', 'uvx'] as const) {
    if (distribution[kind] === undefined) continue;
    const launch = packageLaunch(kind, distribution[kind], version);
    if (typeof launch === 'string') return `${id}: ${launch}`;
    agent.distributions.push(kind);
    agent.launch ??= launch;
  }
  if (isObj(distribution.binary)) {
    agent.distributions.push('binary');
    const target = distribution.binary[platform];
    if (isObj(target) && typeof target.archive === 'string') agent.archive = target.archive;
  }
  if (agent.distributions.length === 0) return `${id}: no distribution Reins knows (npx, uvx, binary)`;
  return agent;
}

/** Parse the index; what does not validate is skipped and said. Throws only if it is no index at all. */
export function parseRegistry(json: unknown, platform = platformKey()): ParsedRegistry {
  if (!isObj(json) || !Array.isArray(json.agents)) throw new Error('not an ACP registry index (no "agents" list)');
  const agents: RegistryAgent[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  json.agents.forEach((raw, i) => {
    const parsed = parseAgent(raw, platform);
    if (typeof parsed === 'string') skipped.push(`agents[${i}]: ${parsed}`);
    else if (seen.has(parsed.id)) skipped.push(`agents[${i}]: ${parsed.id} is listed twice`);
    else {
      seen.add(parsed.id);
      agents.push(parsed);
    }
  });
  agents.sort((x, y) => x.name.localeCompare(y.name));
  return { agents, skipped };
}

/** The index is small; anything much larger is not it. */
const MAX_BYTES = 4 * 1024 * 1024;

export interface FetchOptions {
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

/** Fetch and parse the index. Rejects (offline, timeout, not JSON, too large) with a one-line reason. */
export async function fetchRegistry(url: string, o: FetchOptions = {}): Promise<ParsedRegistry> {
  const doFetch = o.fetchImpl ?? fetch;
  const response = await doFetch(url, { signal: AbortSignal.timeout(o.timeoutMs ?? 5_000), headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`);
  const text = await response.text();
  if (text.length > MAX_BYTES) throw new Error(`${url} sent ${text.length} bytes; an index is smaller`);
  return parseRegistry(JSON.parse(text));
}

/** The `reins.agents` entry that starts a registry agent at the version the index named. */
export function registryEntry(agent: RegistryAgent): { command: string; args: string[]; env?: Record<string, string> } | undefined {
  if (!agent.launch) return undefined;
  const { command, args, env } = agent.launch;
  return env && Object.keys(env).length > 0 ? { command, args: [...args], env: { ...env } } : { command, args: [...args] };
}
