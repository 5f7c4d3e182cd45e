// Agent quirks: how to recognise "busy, a run is still active" and "idle again" for agents
// that say so. goose's forms are specific enough to be recognised for every agent by default,
// so a custom command that runs goose works without settings; an agent entry can add patterns.
import type { SessionNotification } from '@agentclientprotocol/sdk';
import type { OutOfStepRecovery } from './knownAgents';

export interface QuirkSettings {
  /** Regular expression tested against a -32602/-32603 error's message and data. */
  busyErrorPattern?: string;
  /** Dotted path into a session_info_update's `_meta` whose value `null` means idle. */
  idleSignalMetaPath?: string;
  /** What to do when the agent answers one turn behind after a stop (see outOfStep.ts):
   *  'resend' (restart in the same session, the prompt again when nothing changed: outOfStepRecovery.ts),
   *  'restart' it at once, or 'none' (tell the user, who can restart). Default: per agent, measured. */
  outOfStepRecovery?: OutOfStepRecovery;
  /** The method that takes text into a running turn, for an agent that offers one without
   *  advertising it (steering.ts; a name starting `_goose/` is sent goose's way). */
  steerMethod?: string;
}

export interface Quirks {
  isBusyRejection(error: { code?: number; message?: string; data?: unknown }): boolean;
  isIdleSignal(notification: SessionNotification): boolean;
  /** The entry's `steerMethod`, if it is a string (the entry arrives unchecked). */
  readonly steerMethod?: string;
}

const GOOSE_BUSY = /active run/i;
const GOOSE_IDLE_PATH = 'goose.activeRunId';

export function makeQuirks(settings: QuirkSettings = {}): Quirks {
  const busyPatterns = [GOOSE_BUSY];
  if (settings.busyErrorPattern) busyPatterns.push(new RegExp(settings.busyErrorPattern, 'i'));
  const idlePaths = [GOOSE_IDLE_PATH];
  if (settings.idleSignalMetaPath) idlePaths.push(settings.idleSignalMetaPath);

  return {
    steerMethod: typeof settings.steerMethod === 'string' ? settings.steerMethod : undefined,
    isBusyRejection(error) {
      if (error.code !== -32602 && error.code !== -32603 && settings.busyErrorPattern === undefined) return false;
      const text = `${error.message ?? ''} ${typeof error.data === 'string' ? error.data : JSON.stringify(error.data ?? '')}`;
      return busyPatterns.some((p) => p.test(text));
    },
    isIdleSignal(notification) {
      const update = notification.update as { sessionUpdate: string; _meta?: Record<string, unknown> | null };
      if (update.sessionUpdate !== 'session_info_update' || !update._meta) return false;
      return idlePaths.some((path) => {
        const { found, value } = lookup(update._meta!, path);
        return found && value === null;
      });
    },
  };
}

function lookup(root: Record<string, unknown>, path: string): { found: boolean; value: unknown } {
  let current: unknown = root;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || !(key in current)) return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[key];
  }
  return { found: true, value: current };
}
