import type { ProtocolVersion } from '@agentclientprotocol/sdk';

/**
 * The ACP version Reins speaks. The SDK exports the same constant, but importing any value
 * from it bundles its runtime and zod (about 140 KB minified) for one number; its types are
 * erased, so they are taken from it freely.
 */
export const PROTOCOL_VERSION: ProtocolVersion = 1;
