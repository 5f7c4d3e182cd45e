// The values a user gave for an agent's `env_var` sign-in method, kept in VS Code's
// SecretStorage (the OS keychain, or its encrypted store), one secret per agent, and passed in
// that agent's environment on every start. Never logged, never written to settings. The names
// of the agents that have values are kept beside them (not secret) so that Sign Out can list
// them: `SecretStorage.keys()` is newer than the VS Code this extension supports.
import type * as vscode from 'vscode';

const KEY_PREFIX = 'reins.signIn.env/';
const INDEX_KEY = 'reins.signIn.agents';

export class AgentSecrets {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
  ) {}

  /** Agents with stored values. */
  agents(): string[] {
    return [...(this.state.get<string[]>(INDEX_KEY) ?? [])].sort();
  }

  async get(agent: string): Promise<Record<string, string>> {
    const raw = await this.secrets.get(KEY_PREFIX + agent);
    if (!raw) return {};
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (typeof parsed !== 'object' || parsed === null) return {};
      return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
    } catch {
      return {};
    }
  }

  /** Add (or replace) values for this agent; the others it has stay. */
  async set(agent: string, values: Record<string, string>): Promise<void> {
    const merged = { ...(await this.get(agent)), ...values };
    await this.secrets.store(KEY_PREFIX + agent, JSON.stringify(merged));
    const names = new Set(this.agents());
    names.add(agent);
    await this.state.update(INDEX_KEY, [...names]);
  }

  /** Forget one agent's values; true if it had any. */
  async clear(agent: string): Promise<boolean> {
    const had = this.agents().includes(agent) || (await this.secrets.get(KEY_PREFIX + agent)) !== undefined;
    await this.secrets.delete(KEY_PREFIX + agent);
    await this.state.update(
      INDEX_KEY,
      this.agents().filter((a) => a !== agent),
    );
    return had;
  }

  async clearAll(): Promise<string[]> {
    const names = this.agents();
    for (const a of names) await this.secrets.delete(KEY_PREFIX + a);
    await this.state.update(INDEX_KEY, []);
    return names;
  }
}

const perContext = new WeakMap<vscode.ExtensionContext, AgentSecrets>();

/** The store for this extension (one per context, so every folder conversation shares it). */
export function agentSecrets(context: vscode.ExtensionContext): AgentSecrets {
  let s = perContext.get(context);
  if (!s) {
    s = new AgentSecrets(context.secrets, context.globalState);
    perContext.set(context, s);
  }
  return s;
}
