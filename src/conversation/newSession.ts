// New Session in one folder: a fresh session with the same agent, only once the running turn has
// settled (the runtime's newSession goes through the routine); refused while its stop is
// unverified; a sign-in that expired ends the agent and offers its methods. The folder
// conversation (folderConversation.ts) calls it for reins.newSession.
import type { SignIn } from '../auth/signIn';
import { isAuthRequired } from '../auth/methods';
import type { SessionKeeper } from '../persistence/sessionKeeper';
import type { AgentRuntime, StopReport } from '../runtime/agentRuntime';
import type { Transcript } from '../runtime/transcript';
import { noticeNotReplaced } from './agentNotices';
import type { FolderAgent } from './folderAgent';

/** What New Session needs of its folder conversation. */
export interface NewSessionHost {
  readonly agent: FolderAgent;
  readonly transcript: Transcript;
  readonly keeper: SessionKeeper;
  readonly signIn: SignIn;
  readonly folderName: string;
  readonly agentName: string;
  /** Status changed: panel, status bar and context keys re-derive. */
  changed(): void;
  ensureAgent(): Promise<AgentRuntime | undefined>;
}

/** A fresh session with the same agent; only once the running turn has settled. */
export async function newSession(host: NewSessionHost): Promise<boolean> {
  await host.agent.starting; // a start in progress finishes first: it is not to be replaced half-made
  const rt = host.agent.runtime;
  if (!rt || rt.phase !== 'ready') {
    host.transcript.clear();
    host.keeper.forgetCurrent(); // the next start makes a new session, not the last one again
    host.changed();
    return true;
  }
  let report: StopReport;
  try {
    report = await rt.session.renew();
  } catch (error) {
    if (!isAuthRequired(error)) throw error;
    return newSessionNeedsSignIn(host, rt, error as Error);
  }
  if (report.outcome === 'abort-unverified') {
    noticeNotReplaced(rt, host.transcript, host.folderName);
    return false;
  }
  host.transcript.clear();
  if (rt.phase !== 'ready') {
    // The agent died while stopping: a new session needs a new process.
    host.keeper.forgetCurrent();
    await host.ensureAgent();
    host.changed();
    return host.agent.runtime?.phase === 'ready';
  }
  host.transcript.notice('info', `New session with ${host.agentName}.`);
  host.changed();
  return true;
}

/**
 * session/new refused with auth_required at New Session (a sign-in that expired): as at a
 * start, the agent (idle: its turn was settled) is ended and its methods offered, so that a
 * prompt is not sent to the session the user replaced; the next start signs in first.
 */
async function newSessionNeedsSignIn(host: NewSessionHost, rt: AgentRuntime, error: Error): Promise<boolean> {
  const methods = rt.agentInfo?.authMethods;
  await rt.shutdown('replace-session');
  host.agent.drop();
  host.keeper.forgetCurrent();
  host.agent.startProblem = host.signIn.offer('start', methods, error.message.split('\n')[0]);
  host.changed();
  return false;
}
