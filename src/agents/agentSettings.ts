// Writing an agent into `reins.agents` where VS Code will read it. The setting is
// `machine-overridable`: in a remote window (SSH, Dev Containers, WSL, Codespaces, code-server)
// VS Code ignores it in the local User settings and reads it from the Remote (machine) settings
// or the workspace. The API has no "remote" target, but VS Code routes a
// `ConfigurationTarget.Global` write of a machine or machine-overridable setting to the Remote
// settings when the window is remote (WorkspaceService.toEditableConfigurationTarget: scope
// MACHINE / MACHINE_OVERRIDABLE → USER_REMOTE; VS Code 1.47 still wrote it to the local file,
// microsoft/vscode#102543). So: Global, unless the workspace already defines that agent (a
// workspace value of a name overrides the user's, so the write goes where it takes effect);
// afterwards the value is read back, and a write that did not take effect is said.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { DEMO_AGENT, findAgent } from './catalog';
import type { AgentEntry } from './catalog';
import { section } from '../config';

export interface WriteOutcome {
  /** Where it went, as the Settings editor names it. */
  where: string;
  /** Read back: the effective value is the one written. */
  applied: boolean;
}

function globalTargetName(remoteName = vscode.env.remoteName): string {
  return remoteName ? `Remote [${remoteName}] settings` : 'User settings';
}

export async function writeAgentEntry(name: string, entry: object, log: vscode.LogOutputChannel): Promise<WriteOutcome> {
  const config = vscode.workspace.getConfiguration('reins');
  const inspected = config.inspect<Record<string, unknown>>('agents');
  const inWorkspace = inspected?.workspaceValue?.[name] !== undefined;
  const target = inWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  // Only that level's own value plus this entry: the merged value would copy the other
  // levels' agents into it.
  const own = (inWorkspace ? inspected?.workspaceValue : inspected?.globalValue) ?? {};
  await config.update('agents', { ...own, [name]: entry }, target);
  const where = inWorkspace ? 'Workspace settings' : globalTargetName();
  const effective = vscode.workspace.getConfiguration('reins').get<Record<string, unknown>>('agents')?.[name];
  const applied = JSON.stringify(effective) === JSON.stringify(entry);
  if (applied) log.info(`wrote reins.agents["${name}"] to the ${where}`);
  else log.warn(`wrote reins.agents["${name}"] to the ${where}, but VS Code reads another value for it (a folder's settings may define it)`);
  return { where, applied };
}

export interface ResolvedAgent {
  name: string;
  entry: AgentEntry;
  /** The scripted demonstration agent that ships with Reins (no model, works offline). */
  demo: boolean;
}

export function configuredAgents(): Record<string, AgentEntry> {
  return section().get<Record<string, AgentEntry>>('agents', {}) ?? {};
}

/** The agent to use: the one named, else `reins.defaultAgent`, else the only one, else the demo. */
export function resolveAgent(extensionPath: string, name?: string): ResolvedAgent | undefined {
  const agents = configuredAgents();
  const wanted = name ?? (section().get<string>('defaultAgent') || undefined) ?? (Object.keys(agents).length === 1 ? Object.keys(agents)[0] : undefined);
  // Presets are known by name with no settings; a reins.agents entry of that name overrides.
  const known = wanted ? findAgent(agents, wanted) : undefined;
  if (wanted && known) return { name: wanted, entry: known.entry, demo: false };
  if (wanted && wanted !== DEMO_AGENT) return undefined;
  return { name: DEMO_AGENT, entry: demoAgentEntry(extensionPath), demo: true };
}

/**
 * The scripted agent in demonstration mode, run by the editor's own Node. In desktop VS Code
 * `process.execPath` is Electron, which behaves as Node only with ELECTRON_RUN_AS_NODE.
 */
function demoAgentEntry(extensionPath: string): AgentEntry {
  return {
    command: process.execPath,
    args: [path.join(extensionPath, 'dist', 'scripted-agent.js'), '--demo'],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  };
}
