// Sessions that outlive a turn and a process, for a scenario with a `sessions` block: what the
// agent sent per session (every session/update, and each prompt as a user_message_chunk or, in
// ACP v2, its user_message acknowledgement) is
// remembered and replayed on session/load; session/resume, session/list (paged),
// session/close and session/delete as the spec has them (session-setup.mdx, session-list.mdx,
// session-delete.mdx). The memory is in this process, or in `sessions.file` (JSON lines,
// appended synchronously) so that a restarted agent still knows its sessions.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { SessionUpdate } from '@agentclientprotocol/sdk' with { 'resolution-mode': 'import' };
import { INVALID_PARAMS, type Id, type Peer, type RpcError } from './peer';
import type { Recorder } from './recorder';
import { isObj } from './scenarioCheck';
import { firstLine } from '../util/text';

export interface SessionsOptions {
  /** agentCapabilities.loadSession: session/load replays the session. */
  load?: boolean;
  /** sessionCapabilities.resume: session/resume reopens it without a replay. */
  resume?: boolean;
  /** sessionCapabilities.list, with this many sessions per page (default 50). */
  list?: boolean;
  pageSize?: number;
  close?: boolean;
  delete?: boolean;
  /** Where the sessions are kept across restarts (JSON lines); default: this process only. */
  file?: string;
  /** That many sessions (`old-1` … `old-n`, no history) exist before the first session/new. */
  seed?: number;
  /** A pause before each replayed update (a long replay, to stop or race). */
  replayIntervalMs?: number;
  /**
   * That session's replay holds after `after` updates: it writes `<file>.held` and goes on once
   * `file` exists (the bench measures the host at rest halfway through a long replay).
   */
  replayHold?: { sessionId: string; after: number; file: string };
}

/** ACP's -32002 (as codex-acp answers for a session it does not have). */
const RESOURCE_NOT_FOUND = -32002;

interface Known {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt: string;
  history: SessionUpdate[];
}

/** What one line of the file says. */
type Line = { s: { sessionId: string; cwd: string; title?: string; updatedAt: string } } | { u: { sessionId: string; update: SessionUpdate } } | { d: string };

/** The live side of a session, which the server owns (its turns). */
export interface LiveSessions {
  /** The session runs in this process from now on; what its answer carries (modes, config options). */
  open(sessionId: string, cwd: string): Record<string, unknown>;
  /** Ends the session's turns as a cancel would, and forgets it; false if it is not open. */
  close(sessionId: string): boolean;
}

const notFound = (sessionId: unknown): RpcError => ({ code: RESOURCE_NOT_FOUND, message: 'Resource not found', data: `unknown session ${String(sessionId)}` });
const invalid = (data: string): RpcError => ({ code: INVALID_PARAMS, message: 'Invalid params', data });

export class SessionBook {
  private readonly known = new Map<string, Known>();
  private notify: (method: string, params: unknown) => void = () => {};

  constructor(
    readonly options: SessionsOptions,
    private readonly rec: Recorder,
  ) {
    for (let i = 1; i <= (options.seed ?? 0); i++) {
      // Oldest first: `old-1` was used longest ago.
      this.known.set(`old-${i}`, {
        sessionId: `old-${i}`,
        cwd: '',
        title: `Earlier session ${i}`,
        updatedAt: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        history: [],
      });
    }
    if (options.file) this.readFile(options.file);
  }

  /**
   * ACP v2 agreed: session/load is gone (the server refuses it as unknown), session/resume with
   * `replayFrom: { type: "start" }` loads, and resume, list and close are the baseline.
   */
  v2 = false;

  /** The methods this book answers (the server sends the others their usual way). */
  handles(method: string): boolean {
    const o = this.options;
    if (this.v2) return method === 'session/resume' || method === 'session/list' || method === 'session/close' || (method === 'session/delete' && !!o.delete);
    return (
      (method === 'session/load' && !!o.load) ||
      (method === 'session/resume' && !!o.resume) ||
      (method === 'session/list' && !!o.list) ||
      (method === 'session/close' && !!o.close) ||
      (method === 'session/delete' && !!o.delete)
    );
  }

  /** `sessionCapabilities` as initialize says it: `{}` for each method offered. */
  capabilities(): Record<string, object> {
    const caps: Record<string, object> = {};
    for (const name of ['resume', 'list', 'close', 'delete'] as const) if (this.options[name]) caps[name] = {};
    return caps;
  }

  /**
   * Every session/update the peer sends is remembered for its session; the replay goes out
   * through the original `notify`, so that it is not remembered twice.
   */
  tap(peer: Peer): void {
    const notify = peer.notify.bind(peer);
    this.notify = notify;
    peer.notify = (method, params) => {
      if (method === 'session/update' && isObj(params) && typeof params.sessionId === 'string' && isObj(params.update)) {
        this.remember(params.sessionId, params.update as SessionUpdate);
      }
      notify(method, params);
    };
  }

  /** A fresh id, unique across restarts (the file's sessions count). */
  nextId(): string {
    let n = 0;
    for (const id of this.known.keys()) n = Math.max(n, Number(/^sess-(\d+)$/.exec(id)?.[1] ?? 0));
    return `sess-${n + 1}`;
  }

  created(sessionId: string, cwd: string): void {
    const entry: Known = { sessionId, cwd, updatedAt: new Date().toISOString(), history: [] };
    this.known.set(sessionId, entry);
    this.write({ s: meta(entry) });
  }

  /**
   * A prompt arrived: remembered as the user's message; the first one titles the session.
   * `acknowledged`: the agent sends the message itself (ACP v2's `user_message`), and that update
   * is what is remembered and replayed: a chunk as well would show the prompt twice.
   */
  prompted(sessionId: string, text: string, acknowledged = false): void {
    const entry = this.known.get(sessionId);
    if (!entry) return;
    if (!acknowledged) this.remember(sessionId, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text } });
    if (entry.title === undefined && text.trim()) {
      entry.title = firstLine(text.trim()).slice(0, 60);
      // Sent (and so remembered) like the title updates real agents send after a first prompt.
      this.notifyTap(sessionId, { sessionUpdate: 'session_info_update', title: entry.title, updatedAt: entry.updatedAt });
    }
  }

  handle(id: Id, method: string, params: unknown, live: LiveSessions, peer: Peer): void {
    const p = isObj(params) ? params : {};
    const answer = (result: unknown) => peer.respond(id, result);
    const fail = (error: RpcError) => peer.fail(id, error);
    switch (method) {
      case 'session/load':
      case 'session/resume': {
        if (typeof p.sessionId !== 'string' || typeof p.cwd !== 'string' || !Array.isArray(p.mcpServers)) {
          return fail(invalid('sessionId and cwd must be strings, mcpServers an array'));
        }
        const entry = this.known.get(p.sessionId);
        if (!entry) {
          this.rec.event(method === 'session/load' ? 'load-unknown' : 'resume-unknown', { sessionId: p.sessionId });
          return fail(notFound(p.sessionId));
        }
        const fields = live.open(entry.sessionId, p.cwd);
        const replayFrom = isObj(p.replayFrom) ? p.replayFrom.type : undefined;
        if (method === 'session/resume' && replayFrom === 'start') this.rec.event('resume-replay', { sessionId: entry.sessionId });
        if (method === 'session/resume' && replayFrom !== 'start') {
          this.rec.event('session-resumed', { sessionId: entry.sessionId });
          return answer(fields);
        }
        void this.replay(entry).then(() => {
          this.rec.event('session-loaded', { sessionId: entry.sessionId, replayed: entry.history.length });
          // With nothing to say, as the spec's example does: null.
          answer(Object.keys(fields).length > 0 ? fields : null);
        });
        return;
      }
      case 'session/list':
        return this.list(p, answer, fail);
      case 'session/close': {
        if (typeof p.sessionId !== 'string') return fail(invalid('sessionId must be a string'));
        const closed = live.close(p.sessionId);
        this.rec.event('session-closed', { sessionId: p.sessionId, wasOpen: closed });
        return closed ? answer({}) : fail(notFound(p.sessionId));
      }
      case 'session/delete': {
        if (typeof p.sessionId !== 'string') return fail(invalid('sessionId must be a string'));
        // Deleting what does not exist succeeds silently (session-delete.mdx).
        const existed = this.known.delete(p.sessionId);
        if (existed) this.write({ d: p.sessionId });
        this.rec.event('session-deleted', { sessionId: p.sessionId, existed });
        return answer({});
      }
    }
  }

  private list(p: Record<string, unknown>, answer: (r: unknown) => void, fail: (e: RpcError) => void): void {
    if (p.cwd !== undefined && p.cwd !== null && typeof p.cwd !== 'string') return fail(invalid('cwd must be a string'));
    let offset = 0;
    if (p.cursor !== undefined && p.cursor !== null) {
      const m = typeof p.cursor === 'string' ? /^page:(\d+)$/.exec(Buffer.from(p.cursor, 'base64').toString()) : null;
      if (!m) return fail(invalid(`invalid cursor ${JSON.stringify(p.cursor)}`));
      offset = Number(m[1]);
    }
    // Newest first; seeded sessions (no cwd) belong to every folder.
    const all = [...this.known.values()]
      .filter((s) => typeof p.cwd !== 'string' || s.cwd === '' || s.cwd === p.cwd)
      .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
    const size = Math.max(1, this.options.pageSize ?? 50);
    const page = all.slice(offset, offset + size);
    const next = offset + size < all.length ? Buffer.from(`page:${offset + size}`).toString('base64') : undefined;
    this.rec.event('session-list', { cursor: p.cursor ?? null, returned: page.length, nextCursor: next ?? null });
    answer({
      sessions: page.map((s) => ({ sessionId: s.sessionId, cwd: s.cwd || (typeof p.cwd === 'string' ? p.cwd : '/'), title: s.title, updatedAt: s.updatedAt })),
      ...(next ? { nextCursor: next } : {}),
    });
  }

  private async replay(entry: Known): Promise<void> {
    const pause = this.options.replayIntervalMs ?? 0;
    const hold = this.options.replayHold?.sessionId === entry.sessionId ? this.options.replayHold : undefined;
    let sent = 0;
    for (const update of [...entry.history]) {
      if (pause > 0) await new Promise((r) => setTimeout(r, pause));
      if (hold && sent++ === hold.after) await held(hold.file);
      this.notify('session/update', { sessionId: entry.sessionId, update });
    }
  }

  private notifyTap(sessionId: string, update: SessionUpdate): void {
    this.remember(sessionId, update);
    this.notify('session/update', { sessionId, update });
  }

  private remember(sessionId: string, update: SessionUpdate): void {
    const entry = this.known.get(sessionId);
    if (!entry) return;
    entry.history.push(update);
    entry.updatedAt = new Date().toISOString();
    this.write({ u: { sessionId, update } });
  }

  private write(line: Line): void {
    if (!this.options.file) return;
    // A title or time changed with this line: the meta line follows it, so the file's last word counts.
    const after = 'u' in line ? this.known.get(line.u.sessionId) : undefined;
    appendFileSync(this.options.file, JSON.stringify(line) + '\n' + (after ? JSON.stringify({ s: meta(after) }) + '\n' : ''));
  }

  private readFile(file: string): void {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return; // the first run: no sessions yet
    }
    for (const raw of text.split('\n')) {
      if (!raw.trim()) continue;
      const line = JSON.parse(raw) as Line;
      if ('s' in line) {
        const before = this.known.get(line.s.sessionId);
        this.known.set(line.s.sessionId, { ...line.s, history: before?.history ?? [] });
      } else if ('u' in line) {
        this.known.get(line.u.sessionId)?.history.push(line.u.update);
      } else if ('d' in line) {
        this.known.delete(line.d);
      }
    }
  }
}

function meta(k: Known): { sessionId: string; cwd: string; title?: string; updatedAt: string } {
  return { sessionId: k.sessionId, cwd: k.cwd, title: k.title, updatedAt: k.updatedAt };
}

/** Says it holds (`<file>.held`), then waits until `file` exists. */
async function held(file: string): Promise<void> {
  writeFileSync(`${file}.held`, '');
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 20));
}
