import type { ProtocolVersion } from '@agentclientprotocol/sdk';

/**
 * The ACP version Reins speaks. The SDK exports the same constant, but importing any value
 * from it bundles its runtime and zod (about 140 KB minified) for one number; its types are
 * erased, so they are taken from it freely.
 */
export const PROTOCOL_VERSION: ProtocolVersion = 1;

/**
 * The agent answered `initialize` with a version Reins does not speak. The spec says to close
 * the connection and tell the user (initialization.mdx, "Version Negotiation"): the message
 * names both versions.
 */
export class ProtocolVersionError extends Error {
  constructor(readonly agentVersion: unknown) {
    super(`the agent speaks ACP protocol version ${JSON.stringify(agentVersion)}; Reins supports version ${PROTOCOL_VERSION} only`);
    this.name = 'ProtocolVersionError';
  }
}
