// Sending a prompt, as one explicit admission pipeline: small stages over one state, in order
// (empty → session settled → trust → busy → gate → agent → checkout → checkpoint → prompt).
// Each stage either answers sendPrompt (the prompt stays out, its text given back) or lets the
// prompt go on. Pure: the folder conversation supplies what the stages need (SendHost), so the
// order and every refusal are tested without VS Code (test/unit/sendPipeline.test.ts).
//
// A Stop pressed while the prompt is prepared ends the send: the stop mark is read after each
// stage that waits (the agent starting, the checkout lock taken, the checkpoint taken), and the
// text goes back instead of reaching the agent. A Stop while the prompt waits in the checkout
// line is the line's (it gives the text back itself).
import type { SendResult, WhenBusy } from '../api';
import type { Admission, AdmissionMember } from './folderAdmission';
import type { CheckoutTurn } from './awaitCheckout';
import { notAdmittedText, STOPPED_BEFORE_SENT, UNTRUSTED_TEXT } from './refusalText';

export interface SendRequest {
  readonly text: string;
  readonly whenBusy: WhenBusy;
  /** File URIs attached to the prompt. */
  readonly files?: string[];
}

/** What the stages need of the folder conversation. */
export interface SendHost<R extends AdmissionMember> {
  folderName(): string;
  /** A session load under way has ended (the prompt goes to the session it opens). */
  settled(): Promise<void>;
  trusted(): boolean;
  runtime(): R | undefined;
  /** `rt` runs a turn and no prompt waits for another window (those go first, through the checkout stage). */
  busy(rt: R): boolean;
  /** The busy choice (queue, steer, keep, stop and send): its result, or undefined once the turn stopped for this prompt. */
  whileBusy(rt: R, req: SendRequest): Promise<SendResult | undefined>;
  admission(rt: R | undefined): Admission<R>;
  /** Another agent's running turn in the folder: stop it for this prompt if the user says so. */
  stopForPrompt(req: SendRequest, holder: R): Promise<void>;
  /** How many Stops were asked so far: a change while the prompt is prepared ends the send. */
  stops(): number;
  /** The running agent, started if need be; undefined if it could not start. */
  ensureAgent(): Promise<R | undefined>;
  /** sendPrompt's answer for an agent that did not start (sign-in needed, or why it failed). */
  notStarted(): SendResult;
  /** The checkout's lock taken, or waited for in line; undefined when the window has no lock. */
  checkout(req: SendRequest): Promise<CheckoutTurn> | undefined;
  /** The prompt that came through the line ended: the next one may take the checkout. */
  lineEnded(id: number): void;
  /** Let the checkout lock go, if `rt`'s turn is idle (no turn took it over). */
  releaseCheckout(rt: R): void;
  /** The checkpoint this turn's changes are measured from (Undo This Turn's Changes). */
  checkpoint(): Promise<void>;
  /** The prompt sent as a turn, its result. */
  prompt(rt: R, req: SendRequest): Promise<SendResult>;
  /** After the turn and the checkout's line: an answer one turn behind is handled (resent or given back). */
  after(rt: R, result: SendResult, req: SendRequest): SendResult | Promise<SendResult>;
  /** Text back to the input box, with its files; `why` said first. */
  giveBack(text: string, why: string | undefined, files: string[] | undefined): void;
  /** A warning said to the user; `unverified`: with the ways out of an unconfirmed stop. */
  warn(text: string, kind: 'untrusted' | 'unverified' | 'plain'): void;
}

/** What the stages share: the request, the runtime once there is one, the stop mark, the checkout. */
interface SendState<R> {
  readonly req: SendRequest;
  rt?: R;
  /** stops() when the agent stage began: any later Stop ends the send. */
  stopMark?: number;
  /** The checkout, taken for this prompt. */
  checkout?: Extract<CheckoutTurn, { go: true }>;
}

/** A stage: sendPrompt's answer (the prompt stops here), or undefined (it goes on). */
type Stage<R extends AdmissionMember> = (s: SendState<R>, host: SendHost<R>) => Promise<SendResult | undefined> | SendResult | undefined;

const notSent = (reason: string): SendResult => ({ status: 'not-sent', reason });

/** Refused: the text back (with its files), and sendPrompt's answer. */
function refuse<R extends AdmissionMember>(s: SendState<R>, host: SendHost<R>, reason: string, why?: string): SendResult {
  host.giveBack(s.req.text, why, s.req.files);
  return notSent(reason);
}

function empty<R extends AdmissionMember>(s: SendState<R>): SendResult | undefined {
  return s.req.text.trim() ? undefined : notSent('empty prompt');
}

async function settled<R extends AdmissionMember>(_s: SendState<R>, host: SendHost<R>): Promise<undefined> {
  await host.settled();
  return undefined;
}

function trust<R extends AdmissionMember>(s: SendState<R>, host: SendHost<R>): SendResult | undefined {
  if (host.trusted()) return undefined;
  const result = refuse(s, host, 'workspace not trusted');
  host.warn(UNTRUSTED_TEXT, 'untrusted');
  return result;
}

/** This folder's agent is busy: queue, steer, stop and send, or keep. */
function busy<R extends AdmissionMember>(s: SendState<R>, host: SendHost<R>): Promise<SendResult | undefined> | undefined {
  const rt = host.runtime();
  return rt && host.busy(rt) ? host.whileBusy(rt, s.req) : undefined;
}

/** The folder's admission: one running turn per folder (nested folders count as one). */
async function gate<R extends AdmissionMember>(s: SendState<R>, host: SendHost<R>): Promise<SendResult | undefined> {
  const rt = host.runtime();
  let verdict = host.admission(rt);
  if (!verdict.open && verdict.why === 'running') {
    await host.stopForPrompt(s.req, verdict.holder);
    verdict = host.admission(rt);
  }
  if (verdict.open) return undefined;
  const why = notAdmittedText(verdict, host.folderName());
  const result = refuse(s, host, why);
  // An unconfirmed stop keeps the folder closed: the way out is on the notice.
  host.warn(why, verdict.why === 'unverified' ? 'unverified' : 'plain');
  return result;
}

async function agent<R extends AdmissionMember>(s: SendState<R>, host: SendHost<R>): Promise<SendResult | undefined> {
  s.stopMark = host.stops();
  s.rt = await host.ensureAgent();
  if (s.rt) return undefined;
  host.giveBack(s.req.text, undefined, s.req.files);
  return host.notStarted();
}

/** One running turn per checkout across windows: the lock, taken (or waited for in line) now. */
async function checkout<R extends AdmissionMember>(s: SendState<R>, host: SendHost<R>): Promise<SendResult | undefined> {
  const taken = await host.checkout(s.req);
  if (!taken) return undefined;
  if (taken.go) {
    s.checkout = taken;
    return undefined;
  }
  // A prompt dropped from the line was given back by the line.
  if (!taken.givenBack) host.giveBack(s.req.text, taken.reason, s.req.files);
  return notSent(taken.reason);
}

async function checkpoint<R extends AdmissionMember>(_s: SendState<R>, host: SendHost<R>): Promise<undefined> {
  await host.checkpoint();
  return undefined;
}

/**
 * A Stop came since the agent stage began: the prompt was never sent, so nothing is cancelled;
 * the text goes back, and a checkout lock taken for it is let go while no turn holds it.
 */
function stopped<R extends AdmissionMember>(s: SendState<R>, host: SendHost<R>): SendResult | undefined {
  if (s.stopMark === undefined || host.stops() === s.stopMark) return undefined;
  if (s.checkout && s.rt) host.releaseCheckout(s.rt);
  return refuse(s, host, 'stopped before it was sent', STOPPED_BEFORE_SENT);
}

/** The stages before the checkout, in order. */
function beforeCheckout<R extends AdmissionMember>(): [string, Stage<R>][] {
  return [
    ['empty', empty],
    ['settled', settled],
    ['trust', trust],
    ['busy', busy],
    ['gate', gate],
    ['agent', agent],
    ['stopped', stopped],
    ['checkout', checkout],
  ];
}

/** The stages once the checkout is this prompt's, before the prompt goes. */
function afterCheckout<R extends AdmissionMember>(): [string, Stage<R>][] {
  return [
    ['stopped', stopped],
    ['checkpoint', checkpoint],
    ['stopped', stopped],
  ];
}

async function run<R extends AdmissionMember>(stages: [string, Stage<R>][], s: SendState<R>, host: SendHost<R>): Promise<SendResult | undefined> {
  for (const [, stage] of stages) {
    const result = await stage(s, host);
    if (result) return result;
  }
  return undefined;
}

/** Send `req` through the stages: sendPrompt's answer. */
export async function sendThrough<R extends AdmissionMember>(req: SendRequest, host: SendHost<R>): Promise<SendResult> {
  const s: SendState<R> = { req };
  const refused = await run(beforeCheckout<R>(), s, host);
  if (refused) return refused;
  const rt = s.rt;
  if (!rt) throw new Error('sendPipeline: the agent stage let a prompt through without a runtime');
  let result: SendResult;
  try {
    const stoppedHere = await run(afterCheckout<R>(), s, host);
    if (stoppedHere) return stoppedHere;
    result = await host.prompt(rt, req);
  } finally {
    // The prompt that came through the line ended (sent or not): the next one waiting may take the checkout.
    if (s.checkout?.id !== undefined) host.lineEnded(s.checkout.id);
  }
  // Outside the line's turn: a resend goes through the line again, after the prompts waiting there.
  return host.after(rt, result, req);
}
