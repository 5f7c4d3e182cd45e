import type { ProtocolVersion } from '@agentclientprotocol/sdk';

/**
 * The ACP version Reins speaks. The SDK exports the same constant, but importing any value
 * from it bundles its runtime and zod (about 140 KB minified) for one number; its types are
 * erased, so they are taken from it freely.
 */
export const PROTOCOL_VERSION: ProtocolVersion = 1;

/**
 * The ACP v2 draft (the SDK's experimental/v2): Reins speaks its turn lifecycle (the prompt's
 * answer only acknowledges it; `state_update` idle ends the turn). Asked for only when the agent
 * offers it: it refuses version 1 with -32022 (Unsupported protocol version) and lists 2 among
 * the versions it supports. Version 1 stays what Reins asks for first.
 */
const PROTOCOL_V2: ProtocolVersion = 2;
const UNSUPPORTED_VERSION = -32022;

/** The version to ask for again after `initialize` was refused with `error`, if the agent offers one Reins speaks. */
export function offeredVersion(error: { code?: number; data?: unknown }): ProtocolVersion | undefined {
  if (error.code !== UNSUPPORTED_VERSION || typeof error.data !== 'object' || error.data === null) return undefined;
  const supported = (error.data as { supported?: unknown }).supported;
  return Array.isArray(supported) && supported.includes(PROTOCOL_V2) ? PROTOCOL_V2 : undefined;
}

/**
 * The agent answered `initialize` with a version Reins does not speak. The spec says to close
 * the connection and tell the user (initialization.mdx, "Version Negotiation"): the message
 * names both versions.
 */
export class ProtocolVersionError extends Error {
  constructor(
    readonly agentVersion: unknown,
    asked: ProtocolVersion = PROTOCOL_VERSION,
  ) {
    super(`the agent speaks ACP protocol version ${JSON.stringify(agentVersion)}; Reins asked for version ${asked}`);
    this.name = 'ProtocolVersionError';
  }
}
