// *Reins: Select Agent…*: the presets and configured agents with whether each is installed,
// runs through npx, or how to install it (buttons: copy the command, run it in a terminal),
// the demonstration agent, and the ACP Registry's agents, added to `reins.agents` at the version
// the index names. Choosing a preset needs no settings. The registry is fetched while the list is
// open; when it cannot be reached a row says so (and why), choosing it asks again, and the log
// says why in one line.
import * as vscode from 'vscode';
import { askModal } from '../ui/notify';
import { availability, catalog, DEMO_AGENT } from './catalog';
import { commandFinder } from './findCommand';
import { writeAgentEntry, configuredAgents } from './agentSettings';
import { pickerItems, type PickerItem, type RegistryState } from './pickerItems';
import { copyInstall, installActions, runInstall, type Say } from './prepare';
import { presetNamed } from './presets';
import { DEFAULT_REGISTRY_URL, fetchRegistry, registryEntry, type ParsedRegistry, type RegistryAgent } from './registry';
import { oneLine } from '../util/text';

type Item = vscode.QuickPickItem & { source?: PickerItem };

const COPY: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('copy'), tooltip: 'Copy the install command' };
const RUN: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('terminal'), tooltip: 'Run the install command in a terminal' };
const LOG: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('output'), tooltip: 'Show the log' };

/** The registry index, fetched once per window while it answers (it changes daily at most). */
let registryCache: { url: string; at: number; parsed: ParsedRegistry } | undefined;
const REGISTRY_TTL_MS = 60 * 60_000;
/** Offline: not asked again (nor logged again) for a while, unless the user asks; the row says why meanwhile. */
let registryFailure: { url: string; at: number; why: string } | undefined;
const FAILURE_TTL_MS = 10 * 60_000;

function registryUrl(): string {
  const v = vscode.workspace.getConfiguration('reins').get<string>('registryUrl');
  return v === undefined ? DEFAULT_REGISTRY_URL : v.trim();
}

/**
 * The registry's agents, or why it could not be reached (one log line, no notification: the
 * picker's row says it), or undefined when switched off. `retry`: the user asked again, so an
 * earlier failure is not reused.
 */
async function loadRegistry(log: vscode.LogOutputChannel, retry = false): Promise<RegistryState> {
  const url = registryUrl();
  if (!url) return undefined;
  if (registryCache && registryCache.url === url && Date.now() - registryCache.at < REGISTRY_TTL_MS) return { agents: registryCache.parsed.agents };
  const failed = registryFailure;
  if (!retry && failed && failed.url === url && Date.now() - failed.at < FAILURE_TTL_MS) return { failed: failed.why };
  try {
    const parsed = await fetchRegistry(url);
    registryCache = { url, at: Date.now(), parsed };
    registryFailure = undefined;
    log.info(
      `ACP registry: ${parsed.agents.length} agents from ${url}${parsed.skipped.length ? `; skipped ${parsed.skipped.length}: ${parsed.skipped.join('; ')}` : ''}`,
    );
    return { agents: parsed.agents };
  } catch (error) {
    const cause = error instanceof Error ? (error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message) : String(error);
    const why = `${url}: ${oneLine(cause)}`;
    registryFailure = { url, at: Date.now(), why };
    log.info(`ACP registry not reachable (${why}); the agent picker lists the presets`);
    return { failed: why };
  }
}

function toItems(items: PickerItem[]): Item[] {
  return items.map((s): Item => {
    if (s.kind === 'separator') return { label: s.label, kind: vscode.QuickPickItemKind.Separator };
    if (s.kind === 'registry') return { label: `$(cloud-download) ${s.label}`, description: s.description, detail: s.detail, source: s };
    if (s.kind === 'registryRetry')
      return { label: `$(warning) ${s.label}`, description: s.description, detail: s.detail, buttons: [LOG], alwaysShow: true, source: s };
    return {
      label: s.current ? `$(check) ${s.label}` : s.label,
      description: s.description,
      detail: s.detail,
      buttons: s.install ? [COPY, RUN] : undefined,
      source: s,
    };
  });
}

/**
 * Show the picker; resolves with the agent to switch to (a registry agent once added), or
 * undefined. `say`: the folder's answers (answers.ts), for what the picker cannot do itself.
 */
export async function pickAgent(current: string, log: vscode.LogOutputChannel, say: Say): Promise<string | undefined> {
  const agents = catalog(configuredAgents());
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = 'Reins: select the agent for this folder';
  qp.placeholder = `Now: ${current}. Presets need no settings; registry agents are added to reins.agents.`;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.busy = true;
  let av: Awaited<ReturnType<typeof availability>> | undefined;
  let registry: RegistryState;
  const render = () => {
    const activeLabel = qp.activeItems[0]?.label;
    qp.items = toItems(pickerItems(agents, av, current, registry));
    // Once the user has typed, VS Code highlights the first row that matches: the highlight read
    // here can be from before the typing (the window tells the extension host a moment later), and
    // put back it took Enter to the wrong row. The answers smoke typed "my-goose" after "ACP
    // Registry", availability landed in between, and Enter retried the registry (whose row stays
    // whatever is typed) instead of saying my-goose is not installed.
    if (qp.value !== '') return;
    // Keep the highlighted row when the list grows under the user; at first, the agent that runs now.
    const same =
      activeLabel === undefined ? qp.items.find((i) => i.source?.kind === 'agent' && i.source.current) : qp.items.find((i) => i.label === activeLabel);
    if (same) qp.activeItems = [same];
  };
  render();
  const loads = [
    availability(agents, commandFinder).then((a) => {
      av = a;
      render();
    }),
    loadRegistry(log).then((r) => {
      registry = r;
      render();
    }),
  ];
  void Promise.allSettled(loads).then(() => (qp.busy = false));

  /** The registry's row was chosen: asked again, the list stays open and fills in when it answers. */
  const retryRegistry = () => {
    if (qp.busy) return;
    qp.busy = true;
    log.info('ACP registry: asked again from the agent picker');
    void loadRegistry(log, true)
      .then((r) => {
        registry = r;
        render();
      })
      .finally(() => (qp.busy = false));
  };

  const chosen = await new Promise<PickerItem | undefined>((resolve) => {
    qp.onDidTriggerItemButton(({ item, button }) => {
      if (button === LOG) return log.show(true);
      const name = item.source?.kind === 'agent' ? item.source.name : undefined;
      const preset = name ? presetNamed(name) : undefined;
      if (!preset) return;
      if (button === COPY) void copyInstall(preset, say);
      else runInstall(preset);
    });
    qp.onDidAccept(() => {
      // Single selection: the highlighted row is the choice (selectedItems may not be synced yet).
      const source = (qp.selectedItems[0] ?? qp.activeItems[0])?.source;
      if (source?.kind === 'registryRetry') return retryRegistry();
      resolve(source);
      qp.hide();
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (!chosen || chosen.kind === 'separator' || chosen.kind === 'registryRetry') return undefined;
  if (chosen.kind === 'registry') return addFromRegistry(chosen.agent, log, say);
  if (chosen.install && chosen.name !== DEMO_AGENT) {
    // Not installed, and npm does not have it: switching would only fail. Say how to install.
    say('warning', `${chosen.name} is not installed. Install it with \`${chosen.install}\`, then select it again.`, installActions(chosen.name));
    return undefined;
  }
  return chosen.name;
}

/** Add a registry agent to reins.agents at the version the index names, then switch to it. */
async function addFromRegistry(agent: RegistryAgent, log: vscode.LogOutputChannel, say: Say): Promise<string | undefined> {
  const entry = registryEntry(agent);
  if (!entry) {
    say(
      'warning',
      `${agent.name} is distributed as a binary archive only${agent.archive ? ` (${agent.archive})` : ''}. Reins does not download archives: install it yourself and add its command to reins.agents.`,
      [{ action: 'openSettings', label: 'Open Settings' }],
    );
    return undefined;
  }
  const existing = configuredAgents()[agent.id];
  if (existing && JSON.stringify(existing) !== JSON.stringify(entry)) {
    const replace = await askModal(
      `reins.agents already has "${agent.id}". Replace it with ${agent.name} ${agent.version} from the ACP Registry?`,
      {},
      'Replace',
    );
    if (replace !== 'Replace') return undefined;
  }
  const outcome = await writeAgentEntry(agent.id, entry, log);
  if (!outcome.applied) {
    say('warning', `Added ${agent.id} to the ${outcome.where}, but VS Code reads another value for it. Check reins.agents in your folder's settings.`, [
      { action: 'openSettings', label: 'Open Settings' },
    ]);
    return undefined;
  }
  say('info', `Added ${agent.name} ${agent.version} to reins.agents in the ${outcome.where}.`);
  return agent.id;
}
