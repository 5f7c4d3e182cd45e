// Which session an agent process works in, beyond session/new: reopening an earlier one
// (session/load, whose replay fills the transcript, or session/resume), closing the one being
// replaced (session/close), listing (session/list, every page) and deleting (session/delete),
// each only where the agent offers it (sessionCaps.ts). The runtime owns one; it settles the
// running turn before it asks for a replacement here (the one routine). No `vscode` here.
import type { InitializeResponse, LoadSessionResponse, McpServer, ResumeSessionResponse, SessionNotification } from '@agentclientprotocol/sdk';
import { AgentExitedError, TimeoutError, type AcpConnection } from '../acp/connection';
import type { Disposable } from '../util/disposable';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { reopenMethod, saysUnknownSession, sessionCaps, type ReopenMethod, type SessionCaps } from './sessionCaps';
import { listAllSessions, type ListOutcome } from './sessionList';

type OpenAnswer = LoadSessionResponse | ResumeSessionResponse | null;

export interface SwitchPort {
  readonly name: string;
  readonly log: Logger;
  readonly cwd: string;
  conn(): AcpConnection | undefined;
  init(): InitializeResponse | undefined;
  timeoutMs(): number;
  current(): string | undefined;
  /** Make `sessionId` the current session now (before a load, so that its replay shows as it comes). */
  setCurrent(sessionId: string | undefined): void;
  /** session/new (through the runtime's SessionControls: early updates, config); its session id. */
  openNew(): Promise<string>;
  /** A load or resume request through SessionControls; the answer makes `sessionId` current. */
  openExisting(request: () => Promise<OpenAnswer>, sessionId: string): Promise<OpenAnswer>;
  /** What session/new is given (cwd, MCP servers): load and resume get the same. */
  params(): { cwd: string; mcpServers: McpServer[] };
  /** An update of the current session handed to its config again (see `load`). */
  renote(n: SessionNotification): void;
  onUpdate(listener: (n: SessionNotification) => void): Disposable;
}

/** A session to reopen; `keepTranscript`: Reins still shows its conversation (resume is enough). */
export interface ReopenRequest {
  sessionId: string;
  keepTranscript: boolean;
}

/** The session asked for was not opened, and why. `unknown`: the agent said it has no such session. */
export interface Missed {
  sessionId: string;
  why: string;
  unknown: boolean;
}

export interface SessionOpened {
  sessionId: string;
  /** `kept`: a failed load left the session that was current before. */
  how: 'new' | 'load' | 'resume' | 'kept';
  /** The session this one replaced in the same process. */
  previous?: string;
  missed?: Missed;
}

export type LoadOutcome = { status: 'loaded' | 'resumed'; sessionId: string } | { status: 'failed'; error: string; sessionId?: string; unknown?: boolean };

/** Update kinds that are the session's state, not its conversation: its config keeps them. */
const STATE_KINDS = new Set(['available_commands_update', 'session_info_update', 'usage_update', 'current_mode_update', 'config_option_update']);

export class SessionSwitch {
  private readonly _onOpening = new Emitter<{ sessionId: string; method: ReopenMethod }>();
  /** A load or resume is about to be sent (a load's replay follows: the transcript makes room). */
  readonly onOpening = this._onOpening.event;
  private readonly _onOpened = new Emitter<SessionOpened>();
  /** A session became the current one, or a reopen failed and which one is current instead. */
  readonly onOpened = this._onOpened.event;

  constructor(private readonly port: SwitchPort) {}

  get caps(): SessionCaps {
    return sessionCaps(this.port.init());
  }

  /** A process's first session: `want` reopened where the agent can, else a new one. */
  async openFirst(want: ReopenRequest | undefined): Promise<{ sessionId: string }> {
    let missed: Missed | undefined;
    if (want) {
      const method = reopenMethod(this.caps, want.keepTranscript);
      if (!method) {
        missed = {
          sessionId: want.sessionId,
          why: `${this.port.name} cannot reopen sessions (it offers neither session/load nor session/resume)`,
          unknown: false,
        };
      } else {
        try {
          await this.reopen(method, want.sessionId, undefined);
          return { sessionId: want.sessionId };
        } catch (error) {
          this.port.setCurrent(undefined);
          if (error instanceof AgentExitedError) throw error; // the start fails as any start does
          missed = this.miss(want.sessionId, method, error);
        }
      }
    }
    const sessionId = await this.port.openNew();
    this._onOpened.fire({ sessionId, how: 'new', missed });
    return { sessionId };
  }

  /**
   * Replace the current session with `sessionId`; the caller has settled the running turn.
   * The old session is closed first where the agent offers session/close. If the reopen
   * fails, the old session stays current when it was not closed, else a new one starts.
   */
  async replace(sessionId: string, keepTranscript: boolean): Promise<LoadOutcome> {
    const method = reopenMethod(this.caps, keepTranscript);
    if (!method) return { status: 'failed', error: `${this.port.name} cannot load sessions (it offers neither session/load nor session/resume)` };
    const previous = this.port.current();
    const closed = await this.closeCurrent();
    try {
      await this.reopen(method, sessionId, previous);
      return { status: method === 'session/load' ? 'loaded' : 'resumed', sessionId };
    } catch (error) {
      const missed = this.miss(sessionId, method, error);
      const failed = { status: 'failed' as const, error: missed.why, unknown: missed.unknown };
      if (error instanceof AgentExitedError) {
        this.port.setCurrent(previous);
        return failed; // the exit path says the rest
      }
      if (!closed && previous) {
        this.port.setCurrent(previous);
        this._onOpened.fire({ sessionId: previous, how: 'kept', missed });
      } else {
        const fresh = await this.port.openNew();
        this._onOpened.fire({ sessionId: fresh, how: 'new', previous, missed });
      }
      return { ...failed, sessionId: this.port.current() };
    }
  }

  /** A session/new that replaced the current one (the runtime's newSession): said like the others. */
  noteNew(sessionId: string, previous: string | undefined): void {
    this._onOpened.fire({ sessionId, how: 'new', previous });
  }

  /** session/close for the current session, where offered; the caller has settled its turn. */
  async closeCurrent(): Promise<boolean> {
    const sessionId = this.port.current();
    const conn = this.port.conn();
    if (!sessionId || !this.caps.close || !conn || conn.isClosed) return false;
    try {
      await conn.closeSession({ sessionId }, this.port.timeoutMs());
      this.port.log.info(`agent ${this.port.name}: closed session ${sessionId}`);
      return true;
    } catch (error) {
      // Still open as far as we know: a failed load may go back to it.
      this.port.log.warn(`agent ${this.port.name}: session/close for ${sessionId} failed: ${describe(error)}`);
      return false;
    }
  }

  /** Every page of session/list, for this folder. */
  async list(): Promise<ListOutcome> {
    const conn = this.ready();
    if (!this.caps.list) throw new Error(`${this.port.name} does not offer session/list`);
    const cwd = this.port.cwd;
    const outcome = await listAllSessions((cursor) => conn.listSessions(cursor === undefined ? { cwd } : { cwd, cursor }, this.port.timeoutMs()), cwd);
    if (outcome.incomplete) this.port.log.warn(`agent ${this.port.name}: session/list ${outcome.incomplete}; showing ${outcome.sessions.length} session(s)`);
    return outcome;
  }

  async delete(sessionId: string): Promise<void> {
    const conn = this.ready();
    if (!this.caps.delete) throw new Error(`${this.port.name} does not offer session/delete`);
    // What deleting the active session does is up to each agent (session-delete.mdx): not done.
    if (sessionId === this.port.current()) throw new Error('this is the current session; open another one before deleting it');
    await conn.deleteSession({ sessionId }, this.port.timeoutMs());
    this.port.log.info(`agent ${this.port.name}: deleted session ${sessionId}`);
  }

  dispose(): void {
    this._onOpening.dispose();
    this._onOpened.dispose();
  }

  private async reopen(method: ReopenMethod, sessionId: string, previous: string | undefined): Promise<void> {
    const conn = this.ready();
    const params = { ...this.port.params(), sessionId };
    this._onOpening.fire({ sessionId, method });
    if (method === 'session/resume') {
      await this.port.openExisting(() => conn.resumeSession(params, this.port.timeoutMs()), sessionId);
    } else {
      await this.load(conn, params, sessionId);
    }
    this.port.log.info(
      `agent ${this.port.name}: ${method === 'session/load' ? 'loaded' : 'resumed'} session ${sessionId}${previous ? ` (replaces ${previous})` : ''}`,
    );
    this._onOpened.fire({ sessionId, how: method === 'session/load' ? 'load' : 'resume', previous });
  }

  /**
   * session/load: the session is current before the request goes, so that its replay reaches
   * the transcript as it comes (kept aside until the answer, a long conversation would not fit).
   * Its config is made at the answer, after the replay: the state updates of the replay
   * (commands, title, usage; mode and options unless the answer has its own) are handed to it
   * again. The time limit counts from the last replayed update, not from the request.
   */
  private async load(conn: AcpConnection, params: ReturnType<SwitchPort['params']> & { sessionId: string }, sessionId: string): Promise<void> {
    this.port.setCurrent(sessionId);
    const state: SessionNotification[] = [];
    let touch = () => {};
    const sub = this.port.onUpdate((n) => {
      if (n.sessionId !== sessionId) return;
      touch();
      if (STATE_KINDS.has(String(n.update?.sessionUpdate))) state.push(n);
    });
    try {
      const answer = await this.port.openExisting(
        () =>
          new Promise<OpenAnswer>((resolve, reject) => {
            const limit = this.port.timeoutMs();
            let timer = setTimeout(() => reject(new TimeoutError('session/load', limit)), limit);
            touch = () => {
              clearTimeout(timer);
              timer = setTimeout(() => reject(new TimeoutError('session/load (after its last replayed update)', limit)), limit);
            };
            // ACP v2 has no session/load: the same replay is session/resume from the start.
            (this.caps.loadByResume ? conn.replaySession(params) : conn.loadSession(params)).then(resolve, reject).finally(() => clearTimeout(timer));
          }),
        sessionId,
      );
      for (const n of state) {
        const kind = n.update.sessionUpdate;
        if (kind === 'current_mode_update' && answer?.modes) continue;
        if (kind === 'config_option_update' && Array.isArray(answer?.configOptions)) continue;
        this.port.renote(n);
      }
    } finally {
      sub.dispose();
    }
  }

  private ready(): AcpConnection {
    const conn = this.port.conn();
    if (!conn || conn.isClosed) throw new AgentExitedError({ cause: 'disposed', detail: `${this.port.name} is not running` });
    return conn;
  }

  private miss(sessionId: string, method: ReopenMethod, error: unknown): Missed {
    const unknown = saysUnknownSession(error);
    const why = unknown ? `${this.port.name} does not know session ${sessionId}` : `${method} failed: ${describe(error)}`;
    this.port.log.warn(`agent ${this.port.name}: could not reopen session ${sessionId}: ${why}`);
    return { sessionId, why, unknown };
  }
}

function describe(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { message, data } = error as { message?: unknown; data?: unknown };
    const extra = data === undefined ? '' : `: ${typeof data === 'string' ? data : JSON.stringify(data)}`;
    if (typeof message === 'string') return `${message}${extra}`.slice(0, 500);
  }
  return String(error).slice(0, 500);
}
