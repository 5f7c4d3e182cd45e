// Reins' own memory of one folder's sessions, kept in the workspace's storage (the editor hands
// in a `KeyValue`; VS Code's Memento is one): which session the folder had last (reopened after
// a window reload, a restart or a crash), and, for agents that can load or resume sessions but
// cannot list them, the sessions Reins created there, so that the picker has something to show.
// Pure: no `vscode`.

/** What VS Code's `Memento` offers, and all this needs of it. */
export interface KeyValue {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export interface KnownSession {
  sessionId: string;
  title?: string;
  /** ISO 8601: when Reins last saw the session in use. */
  updatedAt: string;
}

/** The folder's session when the window last had it. */
export interface CurrentSession {
  agent: string;
  sessionId: string;
}

interface Stored {
  current?: CurrentSession;
  /** Per agent name (session ids belong to one agent), newest first. */
  byAgent: Record<string, KnownSession[]>;
}

/** Sessions kept per agent and folder; the oldest go first. */
const MAX_KNOWN_SESSIONS = 50;
const MAX_TITLE = 200;

export class SessionStore {
  private readonly key: string;

  constructor(
    private readonly kv: KeyValue,
    folderKey: string,
    private readonly now: () => Date = () => new Date(),
    private readonly limit = MAX_KNOWN_SESSIONS,
  ) {
    this.key = `reins.sessions:${folderKey}`;
  }

  get current(): CurrentSession | undefined {
    const c = this.read().current;
    return c && typeof c.agent === 'string' && typeof c.sessionId === 'string' ? c : undefined;
  }

  /** The folder's session now (`undefined`: none to reopen, e.g. after New Session with no agent running). */
  setCurrent(current: CurrentSession | undefined): Thenable<void> {
    const stored = this.read();
    if (stored.current?.agent === current?.agent && stored.current?.sessionId === current?.sessionId) return Promise.resolve();
    return this.write({ ...stored, current });
  }

  /** The sessions Reins created with `agent` in this folder, newest first. */
  list(agent: string): KnownSession[] {
    const list = this.read().byAgent[agent];
    return Array.isArray(list) ? list.filter((s) => typeof s?.sessionId === 'string').map((s) => ({ ...s })) : [];
  }

  /** A session in use now (created, loaded, prompted): first in the list; `title` if known. */
  remember(agent: string, sessionId: string, title?: string): Thenable<void> {
    const stored = this.read();
    const before = this.list(agent);
    const old = before.find((s) => s.sessionId === sessionId);
    const entry: KnownSession = { sessionId, updatedAt: this.now().toISOString() };
    const keptTitle = title?.trim() ? title.trim().slice(0, MAX_TITLE) : old?.title;
    if (keptTitle) entry.title = keptTitle;
    const list = [entry, ...before.filter((s) => s.sessionId !== sessionId)].slice(0, this.limit);
    return this.write({ ...stored, byAgent: { ...stored.byAgent, [agent]: list } });
  }

  /** A new title for a session already known (the agent's session_info_update); others are ignored. */
  retitle(agent: string, sessionId: string, title: string | null): Thenable<void> {
    const stored = this.read();
    const list = this.list(agent);
    const entry = list.find((s) => s.sessionId === sessionId);
    if (!entry) return Promise.resolve();
    if (title?.trim()) entry.title = title.trim().slice(0, MAX_TITLE);
    else delete entry.title;
    return this.write({ ...stored, byAgent: { ...stored.byAgent, [agent]: list } });
  }

  /** The agent said it does not know this session (or it was deleted): gone from the list, and not reopened. */
  forget(agent: string, sessionId: string): Thenable<void> {
    const stored = this.read();
    const list = this.list(agent).filter((s) => s.sessionId !== sessionId);
    const current = stored.current?.agent === agent && stored.current.sessionId === sessionId ? undefined : stored.current;
    return this.write({ current, byAgent: { ...stored.byAgent, [agent]: list } });
  }

  private read(): Stored {
    const value = this.kv.get<Stored>(this.key);
    return value && typeof value === 'object' && value.byAgent && typeof value.byAgent === 'object' ? value : { byAgent: {} };
  }

  private write(value: Stored): Thenable<void> {
    return this.kv.update(this.key, value);
  }
}

/** A KeyValue in memory: for tests and for windows with no workspace storage. */
export class MemoryKeyValue implements KeyValue {
  private readonly map = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    const v = this.map.get(key);
    return v === undefined ? undefined : (structuredClone(v) as T);
  }
  update(key: string, value: unknown): Thenable<void> {
    if (value === undefined) this.map.delete(key);
    else this.map.set(key, structuredClone(value));
    return Promise.resolve();
  }
}
