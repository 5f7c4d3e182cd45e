// Steering: text delivered into the running turn without stopping it, where the agent offers
// it. Which method, learned per agent: the `steerMethod` of its settings entry, else what its
// `initialize` answer advertises (`_meta.steering`, on the answer or on its agentCapabilities),
// else the quirk table by agentInfo (goose), else the method goose's own busy error names. What
// goes on the wire, and what an answer means, per wire. Pure: no `vscode`, no I/O.
import type { ContentBlock, InitializeResponse, SessionNotification } from '@agentclientprotocol/sdk';
import { ACP_STEER, knownRows, type SteerMethod } from './knownAgents';

export type { SteerMethod } from './knownAgents';

/** A method name as a user or an agent gives it: goose's family goes goose's way, the rest ACP's. */
function steerMethodNamed(method: string): SteerMethod {
  return { method, wire: method.startsWith('_goose/') ? 'goose' : 'acp' };
}

function advertised(meta: unknown): SteerMethod | undefined {
  if (!meta || typeof meta !== 'object') return undefined;
  const steering = (meta as Record<string, unknown>).steering;
  if (!steering || typeof steering !== 'object') return undefined;
  const { supported, method } = steering as { supported?: unknown; method?: unknown };
  if (typeof method === 'string' && method.trim() !== '') return steerMethodNamed(method.trim());
  return supported === true ? ACP_STEER : undefined;
}

/** The agent's steering method, if it has one (undefined: steer falls back to queue). */
export function steerMethodFor(init: InitializeResponse | undefined, configured?: string): SteerMethod | undefined {
  if (typeof configured === 'string' && configured.trim() !== '') return steerMethodNamed(configured.trim());
  return advertised(init?._meta) ?? advertised(init?.agentCapabilities?._meta) ?? knownRows(init?.agentInfo ?? undefined).find((k) => k.steer)?.steer;
}

/** goose's busy error names the method to use instead ("…; use _goose/unstable/session/steer"). */
export function steerMethodInBusyError(message: string): SteerMethod | undefined {
  const named = /\buse\s+`?(_[\w./-]*steer[\w./-]*)/i.exec(message)?.[1];
  return named ? steerMethodNamed(named) : undefined;
}

/** goose's run as an update announces it: a run id, null (no run), or undefined (not said). */
export function announcedRunId(notification: SessionNotification): string | null | undefined {
  const update = notification.update as { sessionUpdate: string; _meta?: { goose?: { activeRunId?: unknown } } | null };
  if (update.sessionUpdate !== 'session_info_update') return undefined;
  const id = update._meta?.goose?.activeRunId;
  return typeof id === 'string' || id === null ? id : undefined;
}

/** The request's params. goose's needs the run id it announced (`_meta.goose.activeRunId`). */
export function steerParams(
  how: SteerMethod,
  sessionId: string,
  prompt: ContentBlock[],
  runId: string | undefined,
): { params: Record<string, unknown> } | { error: string } {
  if (how.wire === 'goose') {
    if (!runId) return { error: 'the agent has not announced its active run yet' };
    return { params: { sessionId, expectedRunId: runId, prompt } };
  }
  // Not a turn of its own when none runs (the turn ended meanwhile): Reins queues instead.
  return { params: { sessionId, prompt, _meta: { steering: { idleBehavior: 'promptRequired' } } } };
}

/** Did the text reach the running turn? Otherwise, why not (the caller queues it). */
export function steerAnswer(how: SteerMethod, result: unknown): { delivered: true } | { delivered: false; why: string } {
  if (how.wire === 'goose') return { delivered: true }; // goose answers an error when it refuses
  const outcome = result && typeof result === 'object' ? (result as { outcome?: unknown }).outcome : undefined;
  // startedNewTurn: it ran the text as a turn of its own after all (asked not to): delivered, not to be sent twice.
  if (outcome === 'injected' || outcome === 'startedNewTurn') return { delivered: true };
  // codex-acp answers an unknown method with `{}`: no outcome is no delivery.
  return { delivered: false, why: `the agent answered ${typeof outcome === 'string' ? `"${outcome}"` : 'without an outcome'}` };
}
