// Updates that arrive for a session before the answer that creates it. Several agents send
// `available_commands_update`, `config_option_update` or a title right after creating the
// session but before they answer session/new (session/load, session/resume): at that moment
// the session id is not known to Reins yet. They are kept here, bounded, and handed back in
// arrival order once the answer names the session; what is kept for any other id is dropped.
import type { SessionNotification } from '@agentclientprotocol/sdk';

export interface PendingLimits {
  /** Updates kept per session id; beyond it the oldest go (later state supersedes earlier). */
  perSession: number;
  /** Distinct unknown session ids kept at once; an agent that invents ids cannot grow this. */
  sessions: number;
}

const DEFAULT_PENDING_LIMITS: PendingLimits = { perSession: 200, sessions: 4 };

export class PendingUpdates {
  private readonly bySession = new Map<string, SessionNotification[]>();
  /** Updates dropped since the last `take` or `clear` (the log says how many were lost). */
  dropped = 0;

  constructor(private readonly limits: PendingLimits = DEFAULT_PENDING_LIMITS) {}

  get size(): number {
    let n = 0;
    for (const list of this.bySession.values()) n += list.length;
    return n;
  }

  keep(notification: SessionNotification): void {
    let list = this.bySession.get(notification.sessionId);
    if (!list) {
      if (this.bySession.size >= this.limits.sessions) {
        this.dropped++;
        return;
      }
      list = [];
      this.bySession.set(notification.sessionId, list);
    }
    list.push(notification);
    if (list.length > this.limits.perSession) {
      list.shift();
      this.dropped++;
    }
  }

  /** The updates kept for `sessionId`, oldest first; everything else kept is forgotten. */
  take(sessionId: string): SessionNotification[] {
    const list = this.bySession.get(sessionId) ?? [];
    this.clear();
    return list;
  }

  clear(): void {
    this.bySession.clear();
    this.dropped = 0;
  }
}
