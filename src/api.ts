// The public command API: what `reins.sendPrompt` and `reins.stop` take and resolve with, as
// plain data for keybindings, tasks and other extensions (the README documents it). One file,
// so that the API is read in one place.
import type * as vscode from 'vscode';
import type { OutOfStepRecovery } from './runtime/knownAgents';
import type { GiveBackReason } from './runtime/outOfStepRecovery';
import type { PanelStatus, PanelWhenBusy, QueuedView, SessionView, TranscriptEntry } from './shared/messages';
import type { LeftoverCheck, StopReport } from './runtime/stopReport';
import type { FormInput } from './shared/elicitationForm';

/** What `reins.sendPrompt` resolves with: plain data, for keybindings, tasks and other extensions. */
export type SendResult = (
  | { status: 'completed'; stopReason: string }
  /**
   * The agent answered one turn behind after a stop; `recovery` says what Reins did about it.
   * With `resend`, the prompt was given back rather than sent again: `givenBack` says why, and
   * `changedFiles` (relative to the folder) what the unseen work changed (Undo takes it back).
   */
  | { status: 'failed'; error: string; outOfStep: true; recovery: OutOfStepRecovery; givenBack?: GiveBackReason; changedFiles?: string[] }
  /** `waitingOn`: the turn was waiting on the user's answer (a permission request or an elicitation) when it was stopped. */
  | { status: 'stopped'; outcome: string; cause: string; waitingOn?: 'permission' | 'elicitation' }
  /** `waitingOn`: the turn that kept it out waits for the user's answer (a permission request or an elicitation). */
  | { status: 'not-sent'; reason: string; waitingOn?: 'permission' | 'elicitation' }
  | { status: 'failed'; error: string }
  /** whenBusy 'steer': the text went into the running turn `turnId`, which goes on (its own end is not awaited). */
  | { status: 'steered'; turnId: number }
) &
  BusyNote &
  ResendNote;

/**
 * The agent answered this prompt one turn behind (after a stop), and Reins restarted it in the
 * same session and sent the prompt again by itself (nothing had changed): the result is that
 * second turn's.
 * @public part of sendPrompt's answer, for callers of the extension's commands
 */
export interface ResendNote {
  sentTwice?: true;
}

/**
 * How a prompt sent while a turn ran was handled, beside its result. `queued`: it waited for
 * that turn to end by itself, and the result is its own turn's. `fellBackTo: 'queue'`: it was
 * to steer, but could not (`fallbackReason` says why: the agent offers no steering, refused it,
 * or no turn was in flight to take it), so it was queued instead.
 */
export interface BusyNote {
  queued?: true;
  fellBackTo?: 'queue';
  fallbackReason?: string;
}

/**
 * `reins.sendPrompt`'s first argument, besides a plain string: file URIs attached (acp/promptContent.ts).
 * @public the command API's argument type, for callers of the extension's commands
 */
export type { PromptInput } from './acp/promptContent';
/** What `reins.setConfigOption(configId, value)` resolves with (runtime/sessionControls.ts). */
export type { SetConfigResult } from './runtime/sessionControls';

/** One session as `reins.listSessions` gives it (the agent's session/list, or Reins' own list). */
export type { ListedSession } from './runtime/sessionList';

/** What `reins.loadSession(sessionId)` resolves with, once the replay is done. */
export type LoadSessionResult =
  | { status: 'loaded' | 'resumed'; sessionId: string }
  /** `sessionId`: the session current now; `unknown`: the agent said it has no such session; `refused`: an unverified stop. */
  | { status: 'failed'; error: string; sessionId?: string; unknown?: boolean; refused?: boolean };

/** What `reins.deleteSession(sessionId)` resolves with (`forgotten`: only Reins' own list had it). */
export type DeleteSessionResult = { status: 'deleted' | 'forgotten' } | { status: 'failed'; error: string };

/** What `reins.stop` resolves with: as soon as the outcome is known, before the leftover check ends. */
export interface StopResult {
  outcome: string;
  cause: string;
  turnId: number;
  evidence?: string;
  cancelsSent: number;
  settledAfterMs?: number;
  /** The stopped turn's tool processes still running, as far as the check got ([] while 'pending'). */
  leftovers: { pid: number; command: string }[];
  leftoverCheck: LeftoverCheck;
  /** When this call found nothing running: the last stop as known now (its leftovers, once checked). */
  previous?: StopResult;
}

/**
 * What to do when a turn is already running: ask the user; queue the prompt until the turn ends
 * by itself; steer it into the running turn (queued where the agent cannot take it); stop the
 * turn and send ("send now"); or keep the text (not sent, back in the input box).
 */
export const WHEN_BUSY = ['ask', 'queue', 'steer', 'stopAndSend', 'keep'] as const;
export type WhenBusy = (typeof WHEN_BUSY)[number];
/** The `reins.whenBusy` setting: what Enter in the panel does while a turn runs (`keep` is the API's only). */
export const WHEN_BUSY_SETTING = ['ask', 'queue', 'steer', 'stopAndSend'] as const satisfies readonly PanelWhenBusy[];
export type WhenBusySetting = (typeof WHEN_BUSY_SETTING)[number];
// The panel's type (shared/messages.ts) and this list name the same values: each covers the other.
const _sameValues: [PanelWhenBusy] extends [WhenBusySetting] ? ([WhenBusySetting] extends [WhenBusy] ? true : never) : never = true;
void _sameValues;

/** A caller's `whenBusy` (reins.sendPrompt takes anything): one of WHEN_BUSY, else 'ask'. */
export function whenBusyOf(value: unknown): WhenBusy {
  return WHEN_BUSY.find((w) => w === value) ?? 'ask';
}

/** The optional second argument of `reins.sendPrompt`. */
export interface SendOptions {
  whenBusy?: WhenBusy;
  /** The workspace folder (a Uri or its string form); default: the folder you work in. */
  folder?: unknown;
}

/** What `activate` returns: a read-only view for other extensions and the integration tests. */
export interface ReinsApi {
  state(folder?: vscode.Uri): ReinsState | undefined;
  /** The folder holding this extension's log files (the Reins channel's file is below it). */
  logUri: vscode.Uri;
  onDidStop: vscode.Event<StopReport>;
  /** A stop's turn left tool processes running: after `reins.stop` resolved, once the check is
   *  done (`leftovers`, `leftoverAction`); on Windows once, with leftoverAction 'unsupported'. */
  onDidFindLeftovers: vscode.Event<StopReport>;
  /** What VS Code calls to restore a Reins panel after a window reload (conversation/panelSerializer.ts); tests call it with a panel of their own. */
  revivePanel(panel: vscode.WebviewPanel, state: unknown): Promise<void>;
  /**
   * What a permission request's option button in the panel does: answer request `requestId` (a
   * permission entry's id in `state().transcript`) with `optionId`. False: no such request waits
   * in that folder's agent (answered, cancelled, or another agent's).
   */
  answerPermission(requestId: string, optionId: string, folder?: vscode.Uri): boolean;
  /**
   * What an elicitation's buttons in the panel do: answer request `requestId` (an elicitation
   * entry's id in `state().transcript`) with `action`; a form's `input` as its controls hold it
   * (text and numbers as typed, a checkbox's boolean, a multi-select's chosen values), checked
   * against the schema first; a URL's `accept` opens it in the browser. `ok: false` says why not.
   */
  answerElicitation(requestId: string, action: 'accept' | 'decline' | 'cancel', input?: FormInput, folder?: vscode.Uri): ElicitationAnswerResult;
}

export type ElicitationAnswerResult = { ok: true } | { ok: false; why: string; errors?: Record<string, string> };

export interface ReinsState {
  agent: string;
  agentPhase: string | undefined;
  turn: string;
  sessionId: string | undefined;
  pid: number | undefined;
  canSend: boolean;
  canStop: boolean;
  transcript: TranscriptEntry[];
  lastStop: StopReport | undefined;
  lastRestoredInput: string | undefined;
  /** Prompts waiting for the running turn to end by itself, in order. */
  queued: QueuedView[];
  sent: { prompts: number; cancels: number };
  /** The session's mode, model, slash commands, title and usage. */
  session?: SessionView;
  /** The running turn waits on the user: a permission request or an elicitation (in the panel). */
  waitingOn?: 'permission' | 'elicitation';
  /** The conversation is on screen (its tab or the Reins view visible): Reins answers there, not in a notification. */
  inSight: boolean;
}

/** What the public API reads of one folder's conversation (FolderConversation has it). */
export interface ApiConversation {
  readonly agentName: string;
  readonly runtime:
    | {
        readonly phase: string;
        readonly pid: number | undefined;
        readonly session: { readonly id: string | undefined };
        readonly turns: { readonly lastStopReport: StopReport | undefined; readonly sent: { prompts: number; cancels: number } };
      }
    | undefined;
  readonly transcript: { readonly entries: TranscriptEntry[] };
  readonly input: { readonly last: string | undefined };
  status(): PanelStatus;
}

/** `ReinsApi.state`: a snapshot of one folder's conversation, as plain data. */
/** `inSight`: whether the conversation is on screen (the window's conversations know). */
export function apiState(c: ApiConversation, inSight: boolean): ReinsState {
  const status = c.status();
  return {
    agent: c.agentName,
    agentPhase: c.runtime?.phase,
    turn: status.turn,
    sessionId: c.runtime?.session.id,
    pid: c.runtime?.pid,
    canSend: status.canSend,
    canStop: status.canStop,
    transcript: c.transcript.entries,
    lastStop: c.runtime?.turns.lastStopReport,
    lastRestoredInput: c.input.last,
    queued: status.queued,
    sent: { ...(c.runtime?.turns.sent ?? { prompts: 0, cancels: 0 }) },
    session: status.session,
    ...(status.waitingOn !== undefined && { waitingOn: status.waitingOn }),
    inSight,
  };
}

/** What `reins.undoTurn` resolves with (turnUndo.ts). */
export type UndoResult =
  /** `files`: the paths restored (relative to the folder); `handEdited`: among them, files the user had edited. */
  | { status: 'undone'; files: string[]; handEdited: string[] }
  /** A turn runs, a stop is unverified, or a changed file has unsaved edits: nothing was touched. */
  | { status: 'refused'; reason: string }
  /** No checkpoint yet, or nothing changed since it. */
  | { status: 'nothing'; reason: string }
  | { status: 'cancelled' };
