// What *Reins: Select Agent…* lists, as plain data: every agent with whether it is installed
// (and where), runs through npx, or how to install it; then what the ACP Registry offers. The
// QuickPick itself (picker.ts) only draws these. No `vscode` here.
import * as os from 'node:os';
import type { Availability, CatalogAgent } from './catalog';
import type { RegistryAgent } from './registry';
import { presetBrief } from '../session/agentQuirks';
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
  | { kind: 'registry'; agent: RegistryAgent; label: string; description: string; detail: string; addable: boolean };

export const DEMO_DESCRIPTION = 'scripted demonstration agent (offline, no model)';

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

export function agentItem(agent: CatalogAgent, a: Availability | undefined, current: string): Extract<PickerItem, { kind: 'agent' }> {
  const commandLine = [agent.entry.command, ...(agent.entry.args ?? [])].join(' ');
  const missing = a?.kind === 'missing';
  const parts = [
    agent.preset && agent.preset.name === agent.name ? agent.preset.title : undefined,
    agent.configured ? 'reins.agents' : undefined,
    availabilityText(a, agent.preset?.npmPackage),
  ];
  const about = agent.preset && [agent.preset.requirement, presetBrief(agent.preset.name)].filter(Boolean).join('; ');
  const detail = missing && agent.preset ? `Install: ${agent.preset.install}` : [commandLine, about].filter(Boolean).join(' — ');
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

export function registryItem(agent: RegistryAgent): Extract<PickerItem, { kind: 'registry' }> {
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

/** Configured agents and presets, the demo, then the registry (if it answered). */
export function pickerItems(
  agents: CatalogAgent[],
  av: Map<string, Availability> | undefined,
  current: string,
  registry: RegistryAgent[] | undefined,
): PickerItem[] {
  const items: PickerItem[] = [];
  const configured = agents.filter((a) => a.configured);
  const presets = agents.filter((a) => !a.configured);
  if (configured.length > 0) items.push({ kind: 'separator', label: 'reins.agents' }, ...configured.map((a) => agentItem(a, av?.get(a.name), current)));
  if (presets.length > 0) items.push({ kind: 'separator', label: 'Presets' }, ...presets.map((a) => agentItem(a, av?.get(a.name), current)));
  if (!agents.some((a) => a.name === 'demo'))
    items.push({ kind: 'agent', name: 'demo', label: 'demo', description: DEMO_DESCRIPTION, current: current === 'demo' });
  if (registry && registry.length > 0) items.push({ kind: 'separator', label: 'ACP Registry: add at its current version' }, ...registry.map(registryItem));
  return items;
}
