// PURE: ACP v2's `initialize` (migration.mdx, "Initialization"): both sides send `info` (required)
// and `capabilities`, with object markers (`{}` supported, omitted or null not) and the session's
// groups under `capabilities.session`. Reins asks v2 only of an agent that refused v1
// (protocol.ts), so its request is made from the v1 one; the agent's v2 answer is read back into
// v1's fields (`agentInfo`, `agentCapabilities`) beside its own, so that every reader of the
// answer (prompt content, MCP servers, the quirk table, steering) reads one form.
import type { InitializeRequest, InitializeResponse } from '@agentclientprotocol/sdk';

/** What Reins sends in a v2 `initialize`, from its v1 request. */
export function v2InitializeRequest(v1: InitializeRequest, version: number): Record<string, unknown> {
  const caps = v1.clientCapabilities ?? {};
  const info = v1.clientInfo ?? { name: 'reins', version: '0.0.0' };
  // v2 has no client fs or terminal (removed, not renamed), nor v1's session config marker: the
  // only stable client capabilities are elicitation and terminal sign-in, each an object marker.
  const capabilities: Record<string, unknown> = {};
  if (caps.elicitation) capabilities.elicitation = caps.elicitation;
  if ((caps.auth as { terminal?: unknown } | undefined)?.terminal) capabilities.auth = { terminal: {} };
  return { protocolVersion: version, info: { title: 'Reins', ...info }, capabilities };
}

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== false;

/**
 * A v2 answer with v1's fields filled in from its own (`info` → `agentInfo`, `capabilities.session`
 * → `agentCapabilities`): presence checks made booleans. A v1 answer is returned as it came.
 */
export function readV2Answer(init: InitializeResponse): InitializeResponse {
  if (init.protocolVersion < 2) return init;
  const given = init as InitializeResponse & { info?: unknown; capabilities?: unknown };
  const caps = typeof given.capabilities === 'object' && given.capabilities !== null ? (given.capabilities as Record<string, unknown>) : {};
  const session = (typeof caps.session === 'object' && caps.session !== null ? caps.session : {}) as Record<string, unknown>;
  const prompt = (session.prompt ?? {}) as Record<string, unknown>;
  const mcp = (session.mcp ?? {}) as Record<string, unknown>;
  const info = typeof given.info === 'object' && given.info !== null ? (given.info as { name?: unknown; version?: unknown; title?: unknown }) : undefined;
  return {
    ...init,
    agentCapabilities: {
      // Load and resume are session/resume under v2 (sessionCaps.ts reads `capabilities.session`).
      loadSession: false,
      promptCapabilities: { image: present(prompt.image), audio: present(prompt.audio), embeddedContext: present(prompt.embeddedContext) },
      // sse is gone in v2; stdio is a marker of its own now, which v1's reader does not consult.
      mcpCapabilities: { http: present(mcp.http), sse: false },
      ...(typeof caps._meta === 'object' && caps._meta !== null && { _meta: caps._meta as Record<string, unknown> }),
    },
    ...(info &&
      typeof info.name === 'string' && {
        agentInfo: {
          name: info.name,
          version: typeof info.version === 'string' ? info.version : '',
          ...(typeof info.title === 'string' && { title: info.title }),
        },
      }),
  };
}

/** ACP v2: every MCP server config carries its `type`; v1's stdio configs had none. */
export function typedServers<T extends object>(servers: T[]): T[] {
  return servers.map((s) => ('type' in s ? s : { type: 'stdio', ...s }));
}
