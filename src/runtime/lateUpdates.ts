// PURE: which turn a `session/update` speaks for, once a turn was stopped. ACP's updates carry
// no turn id, and an agent may go on talking after it answered `cancelled` (a tool it could not
// stop finishing, text it had buffered): shown as the next turn's, that talk would put words in
// the next answer's mouth. So an update is *late* when it comes after the stopped turn ended and
// before the next prompt, or, once the next prompt started, when it names a tool call or a
// message of the stopped turn's (as far as can be told: an update that names nothing of it is
// the new turn's). A late update is shown in the stopped turn's part of the transcript, before
// the next turn's first entry, labelled late.
import type { SessionUpdate } from '@agentclientprotocol/sdk';

/** Where an update goes: the running turn's (or no turn's) place, or late, before `before`. */
export type Placement = { late: false } | { late: true; turnId: number; before?: string };

interface TurnIds {
  turnId: number;
  tools: Set<string>;
  messages: Set<string>;
}

const NOT_LATE: Placement = { late: false };

export class LateUpdates {
  /** The turn that runs (or is stopping): what it names is its own. */
  private current: TurnIds | undefined;
  /** The last turn that ended stopped; `next`: the first entry of the turn after it, once one started. */
  private stopped: (TurnIds & { next?: string }) | undefined;

  /** Turn `turnId` started; `firstEntryId`: its first transcript entry (its prompt). */
  turnStarted(turnId: number, firstEntryId: string): void {
    this.current = { turnId, tools: new Set(), messages: new Set() };
    if (this.stopped && this.stopped.next === undefined) this.stopped.next = firstEntryId;
  }

  /** Turn `turnId` ended; `stopped`: by a stop (its cancelled answer, other evidence, or unverified). */
  turnEnded(turnId: number, stopped: boolean): void {
    if (this.current?.turnId !== turnId) return;
    if (stopped) this.stopped = this.current;
    this.current = undefined;
  }

  /** The transcript was cleared or replaced (a new session): nothing before speaks for what follows. */
  reset(): void {
    this.current = undefined;
    this.stopped = undefined;
  }

  /**
   * Where `update` of session `sessionId` goes; what it names is remembered for the turn it is
   * given to. A name is a session's own: another session's tool call of the same id is not the
   * stopped turn's.
   */
  place(update: SessionUpdate, sessionId = ''): Placement {
    const names = namesOf(update);
    if (!names) return NOT_LATE;
    const { stopped, current } = this;
    const id = names.id === undefined ? undefined : JSON.stringify([sessionId, names.id]);
    // An update that names nothing (no message id) cannot be told apart: the running turn's.
    const ofStopped = id !== undefined && stopped !== undefined && names.of(stopped).has(id) && !(current && names.of(current).has(id));
    if (ofStopped) return { late: true, turnId: stopped.turnId, before: stopped.next };
    if (current) {
      if (id !== undefined) names.of(current).add(id);
      return NOT_LATE;
    }
    // No turn runs and the last one was stopped: whatever the agent says now is that turn's.
    if (stopped && stopped.next === undefined) {
      if (id !== undefined) names.of(stopped).add(id);
      return { late: true, turnId: stopped.turnId };
    }
    return NOT_LATE;
  }
}

/**
 * What an update that the transcript shows names: a tool call, or a message (when the agent gave
 * its id). Undefined: not shown in the transcript (usage, modes, replayed user text).
 */
function namesOf(update: SessionUpdate): { id: string | undefined; of: (t: TurnIds) => Set<string> } | undefined {
  // ACP v2's: a tool call's streamed content item, and a whole message (both carry their id).
  const v2 = update as { sessionUpdate: string; toolCallId?: unknown; messageId?: unknown };
  if (v2.sessionUpdate === 'tool_call_content_chunk') return { id: typeof v2.toolCallId === 'string' ? v2.toolCallId : undefined, of: (t) => t.tools };
  if (v2.sessionUpdate === 'agent_message' || v2.sessionUpdate === 'agent_thought') {
    return { id: typeof v2.messageId === 'string' ? v2.messageId : undefined, of: (t) => t.messages };
  }
  switch (update.sessionUpdate) {
    case 'tool_call':
    case 'tool_call_update':
      return { id: update.toolCallId, of: (t) => t.tools };
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
      return { id: update.messageId ?? undefined, of: (t) => t.messages };
    case 'plan':
      return { id: undefined, of: (t) => t.messages };
    default:
      return undefined;
  }
}
