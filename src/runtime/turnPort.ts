// What the turn controller (turnController.ts) needs of the agent it drives, and the settings
// it reads at each event: the seam between the turn and the runtime that owns the agent.
import type { PromptCapabilities } from '@agentclientprotocol/sdk';
import type { ProcessInfo } from '../acp/processTree';
import type { AcpConnection } from '../acp/connection';
import type { Logger } from '../util/logger';
import type { Quirks } from './quirks';
import type { SteerMethod } from './steering';

export interface TurnSettings {
  settleTimeoutMs: number;
  busyRetryMs: number;
  /** 0 = no limit. */
  turnTimeoutMs: number;
  /** 0 = no cap. The turn is stopped when a tool call beyond the cap starts. */
  maxToolCallsPerTurn: number;
  leftoverProcesses: 'ask' | 'end' | 'leave';
}

/** What the controller needs of the agent it drives. */
export interface TurnPort {
  readonly name: string;
  readonly log: Logger;
  readonly quirks: Quirks;
  settings(): TurnSettings;
  /** The connection and current session, when there are both. */
  link(): { conn: AcpConnection | undefined; sessionId: string | undefined };
  agentPid(): number | undefined;
  phase(): string;
  /** The ACP version `initialize` settled on (2: the v2 draft's turn lifecycle; default 1). */
  protocolVersion?(): number;
  /** Pids of the terminals this turn created that are still in use (leftovers.ts says why). */
  turnTerminals?(turnId: number): number[];
  /** The process listing (default: `ps`); tests hold one back to see who waits for it. */
  listProcesses?(): Promise<ProcessInfo[]>;
  /** How this agent takes text into a running turn, as its settings and `initialize` say (steering.ts). */
  steerMethod?(): SteerMethod | undefined;
  /** What the agent's `initialize` said it takes in a prompt besides text (images, embedded files). */
  promptCapabilities?(): PromptCapabilities | undefined;
  /** What a typed prompt gets before it goes (the folder's undo checkpoint), for a queued one. Never rejects. */
  beforeQueuedTurn?(): Promise<void>;
}
