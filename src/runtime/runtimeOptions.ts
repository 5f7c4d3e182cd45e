// What an AgentRuntime is built with: the agent's launch and name, the settings it reads at
// each use, and the seams the tests and the editor fill (files, process listing, reopen).
import type { McpServer } from '@agentclientprotocol/sdk';
import type { AgentLaunch } from '../acp/agentProcess';
import type { FileAccess } from '../acp/clientMethods/fs';
import type { ProcessInfo } from '../acp/processTree';
import type { TraceLevel } from '../acp/trace';
import type { Logger } from '../util/logger';
import type { Quirks } from './quirks';
import type { ReopenRequest } from './sessionSwitch';
import type { TurnSettings } from './turnPort';

export interface RuntimeSettings extends TurnSettings {
  initializeTimeoutMs: number;
}

export const defaultRuntimeSettings: RuntimeSettings = {
  settleTimeoutMs: 10_000,
  busyRetryMs: 6_000,
  turnTimeoutMs: 0,
  maxToolCallsPerTurn: 0,
  initializeTimeoutMs: 30_000,
  leftoverProcesses: 'ask',
};

/**
 * The least value of each numeric `reins.*` setting, in the setting's own unit: a smaller one is
 * raised to it. The manifest's `minimum`s (what the Settings editor enforces) are these; the
 * one-source test holds them equal.
 */
export const settingMinimums = {
  // A settle budget of 0 would call every stop unconfirmed at once.
  settleTimeoutSeconds: 1,
  busyRetrySeconds: 0,
  turnTimeoutMinutes: 0,
  maxToolCallsPerTurn: 0,
  initializeTimeoutSeconds: 1,
} as const;

/**
 * The settings from the user's `reins.*` values (`get` returns the fallback for a value not
 * set), defaulted and clamped here only: every reader of a setting gets the same number.
 */
export function readRuntimeSettings(get: <T>(key: string, fallback: T) => T): RuntimeSettings {
  const d = defaultRuntimeSettings;
  const min = settingMinimums;
  return {
    settleTimeoutMs: Math.max(min.settleTimeoutSeconds, get('settleTimeoutSeconds', d.settleTimeoutMs / 1000)) * 1000,
    busyRetryMs: Math.max(min.busyRetrySeconds, get('busyRetrySeconds', d.busyRetryMs / 1000)) * 1000,
    turnTimeoutMs: Math.max(min.turnTimeoutMinutes, get('turnTimeoutMinutes', d.turnTimeoutMs / 60_000)) * 60_000,
    maxToolCallsPerTurn: Math.max(min.maxToolCallsPerTurn, get('maxToolCallsPerTurn', d.maxToolCallsPerTurn)),
    initializeTimeoutMs: Math.max(min.initializeTimeoutSeconds, get('initializeTimeoutSeconds', d.initializeTimeoutMs / 1000)) * 1000,
    leftoverProcesses: get('leftoverProcesses', d.leftoverProcesses),
  };
}

export interface RuntimeOptions {
  /** The agent's name in settings, for messages and the log. */
  name: string;
  launch: AgentLaunch;
  settings?: () => RuntimeSettings;
  quirks?: Quirks;
  log: Logger;
  trace?: () => TraceLevel;
  files?: FileAccess;
  clientInfo?: { name: string; version: string };
  /** The validated `reins.mcpServers`, read at each session/new (http and sse only where the agent advertises them). */
  mcpServers?: () => McpServer[];
  /** Longest line accepted from the agent (default 64 MiB). */
  maxLineBytes?: number;
  /** The session to reopen at start instead of session/new, where the agent can (sessionSwitch.ts). */
  reopen?: ReopenRequest;
  /** The process listing the leftover check uses (default: `ps`); tests hold one back. */
  listProcesses?: () => Promise<ProcessInfo[]>;
  /** Before a queued prompt goes out: what a typed one gets first (the folder's undo checkpoint). */
  beforeQueuedTurn?: () => Promise<void>;
  /** Every byte an agent's terminal prints (the log behind Open Full Output). */
  terminalLog?: (terminalId: string, data: Buffer) => void;
}
