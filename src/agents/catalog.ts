// Every agent Reins can start: the presets, with `reins.agents` adding agents and overriding
// presets by name; and for each, whether it can start here (installed, or runnable through
// npx) and how. No `vscode` here: config.ts reads the setting and hands it in.
import type { CommandFinder, Found } from './findCommand';
import { PRESETS, presetFor, type Preset } from './presets';
import type { QuirkSettings } from '../runtime/quirks';
/** The name under which the demonstration agent is always available. */
export const DEMO_AGENT = 'demo';

/** A `reins.agents` entry as written: `command` may be left out for a preset's name. */
export type ConfiguredEntry = Partial<AgentEntry>;

export interface CatalogAgent {
  name: string;
  entry: AgentEntry;
  /** The preset it is (by name) or runs (by command), for the install hint and npx. */
  preset?: Preset;
  /** Named in `reins.agents`. */
  configured: boolean;
}

/**
 * A configured entry over a preset of the same name: its own `command` replaces the preset's
 * command and arguments (a different program takes different ones); without a command it keeps
 * the preset's program and changes the rest (`"claude": { "env": { … } }`).
 */
export function mergeEntry(preset: Preset | undefined, configured: ConfiguredEntry | undefined): AgentEntry | undefined {
  if (!configured) return preset && { command: preset.command, args: [...preset.args], ...preset.quirks };
  if (configured.command) return { ...preset?.quirks, ...configured, command: configured.command, args: configured.args ?? [] };
  if (!preset) return undefined; // no command and nothing to inherit one from
  return { ...preset.quirks, ...configured, command: preset.command, args: configured.args ?? [...preset.args] };
}

/** Presets first (in their order), then the configured agents that are not presets. */
export function catalog(configured: Record<string, ConfiguredEntry>): CatalogAgent[] {
  const out: CatalogAgent[] = [];
  for (const preset of PRESETS) {
    const entry = mergeEntry(preset, configured[preset.name]);
    if (entry) out.push({ name: preset.name, entry, preset, configured: configured[preset.name] !== undefined });
  }
  for (const [name, c] of Object.entries(configured)) {
    if (out.some((a) => a.name === name)) continue;
    const entry = mergeEntry(undefined, c);
    if (entry) out.push({ name, entry, preset: presetFor(name, entry.command), configured: true });
  }
  return out;
}

export function findAgent(configured: Record<string, ConfiguredEntry>, name: string): CatalogAgent | undefined {
  return catalog(configured).find((a) => a.name === name);
}

/** Whether npx may stand in for an agent that is not installed: a preset's own command only. */
function npxFallback(agent: CatalogAgent): string[] | undefined {
  const p = agent.preset;
  return p?.npx && agent.entry.command === p.command ? p.npx : undefined;
}

export type Availability =
  | { kind: 'installed'; found: Found }
  /** Not installed, but npm has it and npx is here: it runs through npx (downloaded on first use). */
  | { kind: 'npx'; npx: Found; npxArgs: string[] }
  | { kind: 'missing' };

/** Whether each agent can start here, with one login-shell lookup for all of them. */
export async function availability(agents: CatalogAgent[], finder: CommandFinder): Promise<Map<string, Availability>> {
  const commands = agents.map((a) => a.entry.command);
  if (agents.some((a) => npxFallback(a))) commands.push('npx');
  const found = await finder.findMany(commands);
  const out = new Map<string, Availability>();
  for (const a of agents) {
    const f = found.get(a.entry.command);
    const npxArgs = npxFallback(a);
    const npx = found.get('npx');
    out.set(a.name, f ? { kind: 'installed', found: f } : npxArgs && npx ? { kind: 'npx', npx, npxArgs } : { kind: 'missing' });
  }
  return out;
}

export interface AgentEntry extends QuirkSettings {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}
