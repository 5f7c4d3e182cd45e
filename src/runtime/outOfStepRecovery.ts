// The full recovery from an agent that answered one turn behind (outOfStep.ts): its unseen work
// is ended with the process (a restart), the same session is reopened (session/resume or
// session/load, whichever the agent offers: sessionSwitch.ts), and the prompt goes again by
// itself only when nothing can have come of the unseen work: the checkpoint taken before the
// prompt shows no file changed. Otherwise the prompt is given back with what changed. Pure
// decisions over what the caller does (the folder conversation, or the interop suite's runtime):
// no `vscode` here, and no process of its own.

/** Why the prompt was given back rather than sent again. */
export type GiveBackReason =
  /** The unseen work changed files: sent again, it would work over them. */
  | 'files-changed'
  /** The checkpoint cannot tell (outside git it sees only fs/write_text_file writes; or there is none). */
  | 'unknown-changes'
  /** The agent came back in another session (it cannot reopen, or the reopen failed): the prompt would lack its conversation. */
  | 'session-lost'
  /** The agent did not start again. */
  | 'restart-failed';

export type OutOfStepOutcome<R> =
  | { kind: 'resent'; result: R }
  /** `changedFiles`: relative paths, when the checkpoint could tell (empty otherwise). */
  | { kind: 'given-back'; reason: GiveBackReason; changedFiles: string[] };

/** What the checkpoint says the unseen work changed: `undefined` when it cannot tell. */
export type CheckpointVerdict = { kind: 'git' | 'files'; changed: string[] } | undefined;

export interface OutOfStepPort<A, R> {
  /** The out-of-step agent's session: the one to come back to. */
  readonly sessionId: string | undefined;
  /** Ends the agent (and its unseen work with its process tree), starts it again reopening `sessionId`. */
  restart(): Promise<A | undefined>;
  /** The session the restarted agent works in. */
  sessionOf(agent: A): string | undefined;
  /** The files changed since the prompt's checkpoint, read once the old agent has ended. */
  changes(): Promise<CheckpointVerdict>;
  /** The same prompt again, as a new turn (after its own checkpoint). */
  resend(agent: A): Promise<R>;
}

/**
 * Only a git checkpoint can show that nothing changed: a files checkpoint holds what the agent
 * wrote through the client, never what its own tools wrote (claude's Claude Code writes itself).
 */
export function decideResend(verdict: CheckpointVerdict): { resend: true } | { resend: false; reason: GiveBackReason; changedFiles: string[] } {
  if (verdict && verdict.changed.length > 0) return { resend: false, reason: 'files-changed', changedFiles: verdict.changed };
  if (verdict?.kind !== 'git') return { resend: false, reason: 'unknown-changes', changedFiles: [] };
  return { resend: true };
}

/** Restart, reopen, then send again or give back (see the file's head). Never sends twice more than once: the resend is a fresh process's first turn, not after a stop. */
export async function recoverOutOfStep<A, R>(port: OutOfStepPort<A, R>): Promise<OutOfStepOutcome<R>> {
  const agent = await port.restart();
  if (agent === undefined) return { kind: 'given-back', reason: 'restart-failed', changedFiles: await changedOrNone(port) };
  const decision = decideResend(await port.changes().catch(() => undefined));
  if (!decision.resend) return { kind: 'given-back', reason: decision.reason, changedFiles: decision.changedFiles };
  const session = port.sessionOf(agent);
  if (port.sessionId === undefined || session !== port.sessionId) return { kind: 'given-back', reason: 'session-lost', changedFiles: [] };
  return { kind: 'resent', result: await port.resend(agent) };
}

async function changedOrNone<A, R>(port: OutOfStepPort<A, R>): Promise<string[]> {
  return (await port.changes().catch(() => undefined))?.changed ?? [];
}
