// A prompt for a folder whose agent is running a turn: what the user chose for it (reins.whenBusy,
// the panel's choice, sendPrompt's `whenBusy`, or the question asked now), and what that comes to:
// kept, queued behind the turn, steered into it, or the turn stopped through the one routine
// (Stop and Send) so that the prompt goes on to be sent by the folder conversation (folderConversation.ts),
// through the folder's admission like any other.
import { askModal } from '../ui/notify';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { TurnResult } from '../runtime/turnMachine';
import type { BusyNote, SendResult, WhenBusy } from '../api';
import type { Transcript } from '../runtime/transcript';

type BusyChoice = Exclude<WhenBusy, 'ask'>;

/** What to do with the prompt: `whenBusy` as given, or (ask) the user's answer; no answer keeps the text. */
async function chooseWhenBusy(whenBusy: WhenBusy, rt: AgentRuntime, folderName: string): Promise<BusyChoice> {
  if (whenBusy !== 'ask') return whenBusy;
  const steer = rt.turns.waiting.steerMethod ? ['Steer'] : [];
  const choice = await askModal(
    `${rt.name} is running a turn in ${folderName}${rt.turns.waitingOn ? ' and waits for your answer there' : ''}.`,
    {
      detail: `Queue: send it when the turn ends by itself.${steer.length ? ' Steer: add it to the running turn without stopping it.' : ''} Stop and Send: stop the turn, then send it.`,
    },
    'Queue',
    ...steer,
    'Stop and Send',
  );
  return choice === 'Queue' ? 'queue' : choice === 'Steer' ? 'steer' : choice === 'Stop and Send' ? 'stopAndSend' : 'keep';
}

/** What queueing or steering came to. `join-stop`: the turn is being stopped: the prompt goes after the stop, as Stop and Send. */
type Behind =
  | { kind: 'steered'; turnId: number }
  /** `result`: the queued turn's own, when it ends (not-sent if released or removed). */
  | { kind: 'queued'; result: Promise<TurnResult>; note: BusyNote }
  | { kind: 'not-sent'; why: string }
  | { kind: 'join-stop' };

/**
 * Steer `text` into `rt`'s running turn, or queue it behind that turn. A steer the agent cannot
 * take (no steering offered, refused, no turn in flight, files attached) is queued instead, and
 * the note says so: a prompt asked to go now is never dropped.
 */
async function steerOrQueue(rt: AgentRuntime, choice: 'queue' | 'steer', text: string, files?: string[]): Promise<Behind> {
  let note: BusyNote = { queued: true };
  if (choice === 'steer') {
    const outcome = files?.length ? { delivered: false as const, why: 'attached files go with a prompt of their own' } : await rt.turns.waiting.steer(text);
    if (outcome.delivered) return { kind: 'steered', turnId: outcome.turnId };
    note = { queued: true, fellBackTo: 'queue', fallbackReason: outcome.why };
  }
  const enqueued = await rt.turns.enqueue(text, files);
  if (enqueued.queued) return { kind: 'queued', result: enqueued.result, note };
  if ('notSent' in enqueued) return { kind: 'not-sent', why: enqueued.notSent };
  // No turn runs or waits any more: stopping joins the stop; idle (it ended meanwhile) sends now.
  return { kind: 'join-stop' };
}

/** What behindResult needs of the folder conversation. */
export interface BehindHost {
  /** The prompt back to the input box, with its files, `why` said first. */
  giveBack(why: string): void;
  readonly transcript: Transcript;
  /** A turn's result as sendPrompt's (sign-in and out-of-step said as such). */
  answer(result: TurnResult): SendResult;
}

/**
 * sendPrompt's result for a prompt steered or queued. A queued prompt's text goes back from where
 * it ends (a release, a stop while it was prepared: agentNotices.ts), not from here; one the user
 * removed from the queue stays removed.
 */
async function behindResult(behind: Exclude<Behind, { kind: 'join-stop' }>, host: BehindHost): Promise<SendResult> {
  if (behind.kind === 'steered') return { status: 'steered', turnId: behind.turnId };
  if (behind.kind === 'not-sent') {
    host.giveBack(`Not queued: ${behind.why}.`);
    return { status: 'not-sent', reason: behind.why };
  }
  if (behind.note.fellBackTo) host.transcript.notice('info', `Queued instead of steered: ${behind.note.fallbackReason}.`);
  return { ...host.answer(await behind.result), ...behind.note };
}

/**
 * `text` for `rt`'s folder while `rt` runs a turn: sendPrompt's result when the prompt stays out of
 * a new turn (kept, queued, steered, or the stop for it not confirmed); undefined once the turn
 * was stopped and confirmed for it, so that the caller sends it now.
 */
export async function promptWhileBusy(
  rt: AgentRuntime,
  whenBusy: WhenBusy,
  folderName: string,
  text: string,
  files: string[] | undefined,
  host: BehindHost,
): Promise<SendResult | undefined> {
  const choice = await chooseWhenBusy(whenBusy, rt, folderName);
  if (choice === 'keep') {
    const waitingOn = rt.turns.waitingOn;
    if (waitingOn === undefined) {
      host.giveBack('A turn was running; your prompt was not sent.');
      return { status: 'not-sent', reason: 'a turn is running' };
    }
    // Said as such: the turn is not working, it waits for the user, in the conversation.
    const what = waitingOn === 'permission' ? 'a permission request' : 'a question from the agent';
    host.giveBack(`The running turn waits for your answer to ${what}; your prompt was not sent.`);
    return { status: 'not-sent', reason: `the running turn waits for your answer to ${what}`, waitingOn };
  }
  if (choice === 'queue' || choice === 'steer') {
    const behind = await steerOrQueue(rt, choice, text, files);
    if (behind.kind !== 'join-stop') return behindResult(behind, host);
  }
  // "Send now": stop, confirm, then send, through the one routine.
  const report = await rt.turns.stop('send-now');
  if (report.outcome === 'abort-unverified') {
    host.giveBack('The running turn did not confirm its stop, so your prompt was not sent.');
    return { status: 'not-sent', reason: 'the previous turn did not confirm its stop' };
  }
  return undefined;
}
