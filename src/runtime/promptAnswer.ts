// session/prompt's answer or error as the turn machine's event: an answer (one turn behind
// after a stop? outOfStep.ts), the agent's busy rejection (quirks.ts), or a failure with the
// JSON-RPC error's code and data.
import type { PromptResponse } from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import { AgentExitedError } from '../acp/connection';
import { looksOutOfStep } from './outOfStep';
import type { Quirks } from './quirks';
import type { MachineEvent } from './turnMachine';

export function answeredEvent(turnId: number, response: PromptResponse | undefined, afterStop: boolean): Extract<MachineEvent, { kind: 'answered' }> {
  const stopReason = String(response?.stopReason ?? 'end_turn');
  const outOfStep = looksOutOfStep({ afterStop, stopReason, usage: (response as { usage?: unknown } | undefined)?.usage });
  return { kind: 'answered', turnId, stopReason, outOfStep, at: Date.now() };
}

/** undefined for a dead connection: that is handled once, as a dead stream, by the runtime. */
export function rejectedEvent(turnId: number, error: unknown, quirks: Quirks): Extract<MachineEvent, { kind: 'busyRejected' | 'failed' }> | undefined {
  if (error instanceof AgentExitedError) return undefined;
  const rpc =
    error instanceof ResponseError
      ? { code: error.code, message: error.message, data: error.data as unknown }
      : { message: String((error as Error)?.message ?? error) };
  const message = rpc.data !== undefined ? `${rpc.message}: ${typeof rpc.data === 'string' ? rpc.data : JSON.stringify(rpc.data)}` : rpc.message;
  if (quirks.isBusyRejection(rpc)) return { kind: 'busyRejected', turnId, message, at: Date.now() };
  return { kind: 'failed', turnId, message, at: Date.now(), code: rpc.code };
}
