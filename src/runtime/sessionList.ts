// session/list, every page: the request is repeated with the answer's `nextCursor` until an
// answer has none (session-list.mdx, "Pagination"). Pure: the page fetcher is handed in. An
// agent whose cursors never end, or come round again, cannot keep Reins asking forever.
import type { ListSessionsResponse } from '@agentclientprotocol/sdk';

/** One session as the picker and `reins.listSessions` show it. */
export interface ListedSession {
  sessionId: string;
  title?: string;
  /** ISO 8601, as the agent said it. */
  updatedAt?: string;
}

export interface ListLimits {
  /** Pages asked for at most (the spec leaves page sizes to the agent). */
  maxPages: number;
  /** Sessions kept at most; a picker has no use for more. */
  maxSessions: number;
}

const DEFAULT_LIST_LIMITS: ListLimits = { maxPages: 50, maxSessions: 1000 };

export interface ListOutcome {
  sessions: ListedSession[];
  pages: number;
  /** Set when the list was cut short, saying why (for the log). */
  incomplete?: string;
}

/**
 * Every page, in the agent's order; a session listed twice (pages that shifted while we read)
 * once. `cwd`: entries that name another folder are left out, in case the agent ignored the
 * filter (loading them here would run them in the wrong folder).
 */
export async function listAllSessions(
  fetchPage: (cursor: string | undefined) => Promise<ListSessionsResponse>,
  cwd: string | undefined,
  limits: ListLimits = DEFAULT_LIST_LIMITS,
): Promise<ListOutcome> {
  const sessions: ListedSession[] = [];
  const seenIds = new Set<string>();
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    if (pages >= limits.maxPages) return { sessions, pages, incomplete: `stopped after ${pages} pages` };
    const page = await fetchPage(cursor);
    pages++;
    for (const info of Array.isArray(page?.sessions) ? page.sessions : []) {
      if (typeof info?.sessionId !== 'string' || info.sessionId === '' || seenIds.has(info.sessionId)) continue;
      if (cwd !== undefined && typeof info.cwd === 'string' && info.cwd !== '' && !samePath(info.cwd, cwd)) continue;
      seenIds.add(info.sessionId);
      sessions.push(listed(info));
      if (sessions.length >= limits.maxSessions) return { sessions, pages, incomplete: `stopped at ${sessions.length} sessions` };
    }
    const next = page?.nextCursor;
    // Missing (or null, or empty) means the end; an empty cursor would ask for the first page again.
    if (typeof next !== 'string' || next === '') return { sessions, pages };
    if (seenCursors.has(next)) return { sessions, pages, incomplete: `the agent gave cursor ${JSON.stringify(next.slice(0, 40))} twice` };
    seenCursors.add(next);
    cursor = next;
  }
}

function listed(info: ListSessionsResponse['sessions'][number]): ListedSession {
  const out: ListedSession = { sessionId: info.sessionId };
  if (typeof info.title === 'string' && info.title.trim()) out.title = info.title.trim().slice(0, 200);
  if (typeof info.updatedAt === 'string' && info.updatedAt) out.updatedAt = info.updatedAt;
  return out;
}

/** Newest first (by `updatedAt`; those without one last, in their order). */
export function newestFirst(sessions: ListedSession[]): ListedSession[] {
  const time = (s: ListedSession) => (s.updatedAt ? Date.parse(s.updatedAt) : NaN);
  return sessions
    .map((s, i) => ({ s, i, t: time(s) }))
    .sort((a, b) => (Number.isNaN(a.t) ? (Number.isNaN(b.t) ? a.i - b.i : 1) : Number.isNaN(b.t) ? -1 : b.t - a.t || a.i - b.i))
    .map((x) => x.s);
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/[\\/]+$/, '');
  return norm(a) === norm(b);
}

/** "just now", "5 minutes ago", "3 hours ago", "yesterday", else the date: for the picker. */
export function describeWhen(iso: string | undefined, now = Date.now()): string | undefined {
  const t = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(t)) return undefined;
  const minutes = Math.floor((now - t) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'} ago`;
  if (hours < 48) return 'yesterday';
  return new Date(t).toISOString().slice(0, 10);
}
