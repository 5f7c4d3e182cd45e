// What the transcript says about the agent: its start failing, the demonstration agent's
// introduction, a turn's end, a stop, tool processes left behind, an exit, a replacement refused;
// and the choices offered with those notices. The folder conversation wires one agent's events here
// (folderConversation.ts); the stop and leftover wording is pure, in userText.ts.
import type * as vscode from 'vscode';
import { describeExit } from '../acp/agentProcess';
import { AUTH_REQUIRED } from '../auth/methods';
import type { SignIn } from '../auth/signIn';
import type { AgentRuntime, StopReport } from '../runtime/agentRuntime';
import type { OutOfStepRecovery } from '../runtime/knownAgents';
import type { Transcript } from '../runtime/transcript';
import type { TurnResult } from '../runtime/turnMachine';
import { DisposableStore } from '../util/disposable';
import { endLeftoversLabel, exitCleanupText, leftoverHead, outOfStepText, quoteLine, releasedText, stopNotice } from './userText';
import { joinGivenBack } from '../shared/givenBack';
import type { NoticeAction, NoticeLevel } from '../shared/messages';

/** What the notices act through: the folder conversation's transcript, input box and commands. */
export interface NoticeHost {
  readonly transcript: Transcript;
  readonly folderName: string;
  readonly signIn: SignIn;
  /** Tells the user: the notice, and a notification while the conversation is out of sight (answers.ts). */
  say(level: NoticeLevel, text: string, actions?: NoticeAction[]): void;
  /** Text that did not reach a turn goes back to the input box (`why`: a warning first), with `files` when given. */
  giveBack(text: string, why?: string, files?: string[]): void;
  outOfStepRecovery(rt: AgentRuntime): OutOfStepRecovery;
  /** The prompt in flight answered out of step is taken for the full recovery (outOfStepResend.ts): nothing to do here. */
  takeOutOfStep(rt: AgentRuntime, text: string): boolean;
  restartAgent(): void;
}

/** Notice buttons that act on one agent process. */
const AGENT_ACTIONS = new Set<string>(['checkAgain', 'forceStop', 'endLeftovers']);

/** Buttons that act on the current agent process go once that process is gone or replaced. */
export function retireAgentActions(transcript: Transcript): void {
  for (const entry of transcript.entries) {
    if (entry.kind !== 'notice' || !entry.actions?.some((a) => AGENT_ACTIONS.has(a.action))) continue;
    const actions = entry.actions.filter((a) => !AGENT_ACTIONS.has(a.action));
    transcript.upsert({ ...entry, actions: actions.length > 0 ? actions : undefined });
  }
}

/** An unconfirmed stop keeps the folder closed: the user checks again or force stops. */
export const UNVERIFIED_ACTIONS: NoticeAction[] = [
  { action: 'checkAgain', label: 'Check Again' },
  { action: 'forceStop', label: 'Force Stop' },
];

/** Says what `rt`'s turns, stops, leftovers and exits mean, for as long as it is wired. */
export function noticeAgentEvents(rt: AgentRuntime, host: NoticeHost): vscode.Disposable {
  const d = new DisposableStore();
  d.add(
    rt.turns.onTurnEnded(({ text, result }) =>
      result.kind === 'completed' && result.outOfStep ? onOutOfStep(rt, host, text) : onTurnEnded(rt, host, text, result),
    ),
  );
  d.add(rt.turns.onStop((report) => onStop(host, report)));
  // Queued prompts the running turn did not end by itself for: all of them back, in order, as one text.
  d.add(rt.turns.waiting.onReleased(({ texts, files, why }) => host.giveBack(joinGivenBack(texts), releasedText(texts.length, why), files)));
  d.add(rt.turns.waiting.onSteered(({ text }) => host.transcript.notice('info', `Steered into the running turn: ${quoteLine(text)}`)));
  d.add(rt.turns.onLeftovers((report) => onLeftovers(host, report)));
  d.add(
    rt.onExit(({ requested }) => {
      // Its Check Again / Force Stop / End Them buttons act on a process that is gone.
      retireAgentActions(host.transcript);
      // An exit Reins asked for (Force Stop, restart, switch, exit) is no failure.
      if (requested) return;
      const exit = rt.exit;
      host.transcript.notice('error', `${rt.name} exited${exit ? ` (${describeExit(exit).split('\n')[0]})` : ''}. Your next prompt starts it again.`, [
        { action: 'openLog', label: 'Open Log' },
        { action: 'restartAgent', label: 'Restart' },
      ]);
    }),
  );
  d.add(rt.onExitCleanup(({ ended }) => host.transcript.notice('info', exitCleanupText(rt.name, ended))));
  return d;
}

function onOutOfStep(rt: AgentRuntime, host: NoticeHost, text: string): void {
  if (host.takeOutOfStep(rt, text)) return;
  const recovery = host.outOfStepRecovery(rt);
  const what = `${outOfStepText(rt.name)}: its answer belonged to the stopped turn, and it went on working on your prompt unseen.`;
  host.giveBack(text);
  // A prompt not sent from the input box (a queued one) is not sent again: restarted, it goes back.
  if (recovery !== 'none') {
    host.transcript.notice('warning', `${what} Reins restarts it (ending that work); your prompt is back in the input box.`);
    host.restartAgent();
  } else {
    host.transcript.notice('warning', `${what} Restart it to bring it back in step; your prompt is back in the input box.`, [
      { action: 'restartAgent', label: 'Restart Agent' },
    ]);
  }
}

function onTurnEnded(rt: AgentRuntime, host: NoticeHost, text: string, result: TurnResult): void {
  switch (result.kind) {
    case 'completed':
      if (result.stopReason !== 'end_turn') host.transcript.notice('info', `The agent stopped: ${result.stopReason.replace(/_/g, ' ')}.`);
      return;
    case 'failed':
      if (result.code === AUTH_REQUIRED) {
        host.giveBack(text);
        return void host.signIn.offer('prompt', rt.agentInfo?.authMethods, result.error);
      }
      host.transcript.notice(
        'error',
        result.agentExited ? `The agent died during the turn: ${result.error}` : `The agent answered with an error: ${result.error}`,
        [{ action: 'openLog', label: 'Open Log' }],
      );
      return host.giveBack(text);
    case 'not-sent':
      return host.giveBack(text, `Not sent: ${result.why}.`);
    case 'stopped':
      // The stop's own notice says what happened; a prompt lost to a dying agent comes back.
      if (result.stop.outcome === 'agent-exited') host.giveBack(text);
      return;
  }
}

function onStop(host: NoticeHost, r: StopReport): void {
  const notice = stopNotice(r, host.folderName);
  if (!notice) return; // nothing was in flight: nothing to say
  if (r.outcome !== 'abort-unverified') {
    host.transcript.notice(notice.level, notice.text);
    return;
  }
  // The folder stays closed until the user acts: told where they look, with the way out.
  host.say(notice.level, notice.text, UNVERIFIED_ACTIONS);
}

function onLeftovers(host: NoticeHost, r: StopReport): void {
  if (r.leftoverAction === 'unsupported') {
    host.transcript.notice(
      'info',
      'On Windows Reins cannot see whether tool processes outlived a stopped turn. Force Stop ends the agent with its whole process tree.',
    );
    return;
  }
  const head = leftoverHead(r);
  if (r.leftoverAction === 'ended') host.transcript.notice('info', `${head} — ended.`);
  else if (r.leftoverAction === 'left') host.transcript.notice('info', `${head} — left running (the reins.leftoverProcesses setting).`);
  else {
    // Left running, they go on using the machine: the user decides (dismissing leaves them).
    host.say('warning', head, [{ action: 'endLeftovers', label: endLeftoversLabel(r) }]);
  }
}

/** The demonstration agent introduces itself (once per folder and window). */
export function noticeDemoIntro(transcript: Transcript): void {
  transcript.notice(
    'info',
    'This is the Reins demonstration agent: a scripted agent with no model, so that Reins works offline. Configure a real agent in the reins.agents setting and pick it with "Reins: Select Agent…".',
    [{ action: 'selectAgent', label: 'Select Agent…' }],
  );
}

/** The agent could not start (not for sign-in, which offers its methods): said with the log and Try Again. */
export function noticeStartFailure(agentName: string, message: string, say: NoticeHost['say']): void {
  say('error', `${agentName} could not start: ${message}`, [
    { action: 'openLog', label: 'Open Log' },
    { action: 'restartAgent', label: 'Try Again' },
  ]);
}

/** A new session or agent was refused because the running turn's stop is unconfirmed. */
export function noticeNotReplaced(rt: AgentRuntime, transcript: Transcript, folderName: string): void {
  transcript.notice('warning', `Not replaced: ${rt.name}'s stop was not confirmed, so no new session starts in ${folderName}.`, [
    { action: 'checkAgain', label: 'Check Again' },
    { action: 'forceStop', label: 'Force Stop' },
  ]);
}
