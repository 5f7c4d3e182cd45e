// What *Reins: Select Agent…* lists, as plain data: every agent with whether it is installed
// (and where), runs through npx, or how to install it (what a user needs to choose; what Reins
// does about each agent's quirks is the README's table, not the picker's business); the
// demonstration agent, always; then what the ACP Registry offers, or why it is missing, with a
// retry. The QuickPick itself (picker.ts) only draws these. No `vscode` here.
import * as os from 'node:os';
import { DEMO_AGENT, type Availability, type CatalogAgent } from './catalog';
import type { RegistryAgent } from './registry';
import { escapeIcons } from '../util/text';

export type PickerItem =
  | { kind: 'separator'; label: string }
  | {
      kind: 'agent';
      name: string;
      label: string;
      description: string;
      detail?: string;
      /** Not installed and no npx: accepting it offers the install command instead of switching. */
      install?: string;
      current: boolean;
    }
  | { kind: 'registry'; agent: RegistryAgent; label: string; description: string; detail: string; addable: boolean }
  /** The registry could not be reached: why, and choosing it asks again. */
  | { kind: 'registryRetry'; label: string; description: string; detail: string };

/** The demonstration agent's row: what it is, in words a user picks it by. */
export const DEMO_LABEL = 'Demo (offline, scripted)';
const DEMO_DESCRIPTION = 'built in: no model, no account, no install';
const DEMO_DETAIL = 'A scripted agent that shows a turn, a tool call, a permission request and a confirmed Stop.';

/** What the ACP Registry came to while the picker is open. */
export type RegistryState =
  /** Not fetched (reins.registryUrl is empty), or still loading: no row. */
  | undefined
  | { agents: RegistryAgent[] }
  /** Unreachable (offline, an error, not an index): the reason, as the log has it. */
  | { failed: string };

function tilde(p: string): string {
  const home = os.homedir();
  return home && p.startsWith(home + '/') ? `~${p.slice(home.length)}` : p;
}

/** "installed: /usr/bin/goose", "runs through npx (npm @google/gemini-cli)", "not installed". */
export function availabilityText(a: Availability | undefined, npmPackage?: string): string {
  if (!a) return 'checking…';
  switch (a.kind) {
    case 'installed':
      return a.found.via === 'login-shell' ? `installed: ${tilde(a.found.path)} (found through your login shell)` : `installed: ${tilde(a.found.path)}`;
    case 'npx':
      return `not installed: runs through npx${npmPackage ? ` (npm ${npmPackage})` : ''}, downloaded on first use`;
    case 'missing':
      return 'not installed';
  }
}

/**
 * The row's second line: how to install it when it is not installed (the command), else what runs,
 * and what it needs besides its package.
 */
function howItRuns(agent: CatalogAgent, a: Availability | undefined): string {
  const commandLine = [agent.entry.command, ...(agent.entry.args ?? [])].join(' ');
  const preset = agent.preset;
  const needs = preset?.requirement;
  switch (a?.kind) {
    case undefined:
      return [commandLine, needs].filter(Boolean).join(' — ');
    case 'installed':
      return [commandLine, needs].filter(Boolean).join(' — ');
    case 'npx':
      return [`Install to skip the download: ${preset?.install ?? commandLine}`, needs].filter(Boolean).join(' — ');
    case 'missing':
      return preset
        ? [`Install: ${preset.install}`, needs].filter(Boolean).join(' — ')
        : `\`${commandLine}\` was not found: set its command (an absolute path works) in reins.agents.`;
  }
}

export function agentItem(agent: CatalogAgent, a: Availability | undefined, current: string): Extract<PickerItem, { kind: 'agent' }> {
  const missing = a?.kind === 'missing';
  const parts = [
    agent.preset && agent.preset.name === agent.name ? agent.preset.title : undefined,
    agent.configured ? 'reins.agents' : undefined,
    availabilityText(a, agent.preset?.npmPackage),
  ];
  const detail = howItRuns(agent, a);
  // VS Code draws `$(…)` in a quick pick's texts as an icon: a name is a settings key and a command
  // line may hold `$(date)`, shown as written (escapeIcons).
  return {
    kind: 'agent',
    name: agent.name,
    label: escapeIcons(agent.name),
    description: escapeIcons(parts.filter(Boolean).join(' · ')),
    detail: escapeIcons(detail),
    install: missing ? agent.preset?.install : undefined,
    current: agent.name === current,
  };
}

function registryItem(agent: RegistryAgent): Extract<PickerItem, { kind: 'registry' }> {
  const how = agent.launch
    ? `${agent.launch.command} ${agent.launch.args.join(' ')}`
    : agent.archive
      ? `binary only (${agent.archive}): Reins does not download archives`
      : 'binary only, none for this platform';
  return {
    kind: 'registry',
    agent,
    // The registry's texts, as written (escapeIcons).
    label: escapeIcons(agent.name),
    description: escapeIcons(`${agent.version} · ${agent.distributions.join(', ')} · ACP Registry`),
    detail: escapeIcons([agent.description, how].filter(Boolean).join(' — ')),
    addable: agent.launch !== undefined,
  };
}

/** The demonstration agent's row (always offered: trying Reins again needs no agent). */
function demoItem(current: string): Extract<PickerItem, { kind: 'agent' }> {
  return { kind: 'agent', name: DEMO_AGENT, label: DEMO_LABEL, description: DEMO_DESCRIPTION, detail: DEMO_DETAIL, current: current === DEMO_AGENT };
}

/** The row that says the registry is missing, and why; choosing it asks again. */
function registryRetryItem(why: string): Extract<PickerItem, { kind: 'registryRetry' }> {
  return {
    kind: 'registryRetry',
    label: 'The ACP Registry could not be reached',
    description: 'select to try again · the log says more',
    // The reason quotes a URL and an error: shown as written (escapeIcons).
    detail: escapeIcons(why),
  };
}

/** Configured agents, the demo, the presets, then the registry (its agents, or why it is missing). */
export function pickerItems(agents: CatalogAgent[], av: Map<string, Availability> | undefined, current: string, registry: RegistryState): PickerItem[] {
  const items: PickerItem[] = [];
  const configured = agents.filter((a) => a.configured);
  const presets = agents.filter((a) => !a.configured);
  if (configured.length > 0) items.push({ kind: 'separator', label: 'reins.agents' }, ...configured.map((a) => agentItem(a, av?.get(a.name), current)));
  // Before the seven presets: a quick pick shows about eight rows, and below them the demo was never seen.
  if (!agents.some((a) => a.name === DEMO_AGENT)) items.push({ kind: 'separator', label: 'Built in' }, demoItem(current));
  if (presets.length > 0) items.push({ kind: 'separator', label: 'Presets' }, ...presets.map((a) => agentItem(a, av?.get(a.name), current)));
  if (registry && 'failed' in registry) items.push({ kind: 'separator', label: 'ACP Registry' }, registryRetryItem(registry.failed));
  else if (registry && registry.agents.length > 0)
    items.push({ kind: 'separator', label: 'ACP Registry: add at its current version' }, ...registry.agents.map(registryItem));
  return items;
}
