// What an agent can do with sessions besides session/new, as its `initialize` answer says, and
// which method reopens one. Pure. The spec forbids calling a method the agent did not offer
// (session-setup.mdx, session-list.mdx, session-delete.mdx): `loadSession: true` for
// session/load (still a top-level flag in v1); `sessionCapabilities.resume`, `.list`,
// `.close`, `.delete` present as an object (`{}`) for the others; omitted or null means no.
import type { InitializeResponse } from '@agentclientprotocol/sdk';

export interface SessionCaps {
  /** A load (the conversation replayed): v1's session/load, or under v2 session/resume with `replayFrom`. */
  load: boolean;
  resume: boolean;
  list: boolean;
  close: boolean;
  delete: boolean;
  /** ACP v2: session/load is gone; a load is session/resume with `replayFrom: { type: "start" }`. */
  loadByResume?: true;
}

export function sessionCaps(init: InitializeResponse | undefined): SessionCaps {
  const v2 = v2Caps(init);
  if (v2) return v2;
  const caps = init?.agentCapabilities;
  const session = (caps?.sessionCapabilities ?? {}) as Record<string, unknown>;
  const offered = (key: string) => typeof session[key] === 'object' && session[key] !== null;
  return { load: caps?.loadSession === true, resume: offered('resume'), list: offered('list'), close: offered('close'), delete: offered('delete') };
}

/**
 * ACP v2 (migration.mdx, "Capability reorganization"): `capabilities.session` present commits the
 * agent to session/new, list, resume and close; load and resume are one method; `session.delete`
 * keeps its marker. Undefined under v1, or a v2 answer without `capabilities` (read as v1's).
 */
function v2Caps(init: InitializeResponse | undefined): SessionCaps | undefined {
  if (!init || init.protocolVersion < 2) return undefined;
  const caps = (init as { capabilities?: unknown }).capabilities;
  if (typeof caps !== 'object' || caps === null) return undefined;
  const session = (caps as { session?: unknown }).session;
  if (typeof session !== 'object' || session === null) return { load: false, resume: false, list: false, close: false, delete: false };
  const del = (session as { delete?: unknown }).delete;
  return { load: true, resume: true, list: true, close: true, delete: typeof del === 'object' && del !== null, loadByResume: true };
}

export type ReopenMethod = 'session/load' | 'session/resume';

/**
 * How to reopen a session. Where Reins still shows the conversation (Restart Agent, a crash,
 * a window reload) resuming is enough and spares the agent a replay; otherwise only
 * session/load brings the conversation back, so it goes first. `undefined`: the agent can do
 * neither.
 */
export function reopenMethod(caps: SessionCaps, haveTranscript: boolean): ReopenMethod | undefined {
  if (haveTranscript && caps.resume) return 'session/resume';
  if (caps.load) return 'session/load';
  if (caps.resume) return 'session/resume';
  return undefined;
}

/** JSON-RPC codes that mean "no such session": ACP's resource-not-found and invalid params. */
const UNKNOWN_CODES = new Set([-32002, -32602]);
const UNKNOWN_TEXT = /\b(not found|unknown|no such|does not exist|doesn't exist|not exist)\b/i;

/**
 * The agent answered that it does not know the session (so Reins forgets it). Only an answer
 * counts: a timeout or an agent that died says nothing about the session. An internal error
 * counts only when its text says so (claude-agent-acp answers "Session not found" as -32603).
 */
export function saysUnknownSession(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof code !== 'number') return false;
  if (UNKNOWN_CODES.has(code)) return true;
  const text = `${typeof message === 'string' ? message : ''} ${typeof data === 'string' ? data : ''}`;
  return code === -32603 && UNKNOWN_TEXT.test(text);
}
