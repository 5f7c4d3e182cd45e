// One folder's sessions across processes and windows: the folder's last session is reopened
// (session/load or session/resume, sessionSwitch.ts) after a window reload, Restart Agent and
// a crash (restarted by itself at most 4 times in 3 minutes, then the user is asked); the
// transcript is kept in a file of the workspace's storage folder, bounded, for the next window; agents that can
// reopen but not list get Reins' own list of the sessions it made (sessionStore.ts); and
// `reins.loadSession` / `reins.listSessions` / `reins.deleteSession` are carried out here.
// FolderConversation owns one and calls it at the few places where a session starts or ends.
import * as vscode from 'vscode';
import { describeExit } from '../acp/agentProcess';
import type { DeleteSessionResult, LoadSessionResult } from '../api';
import type { AgentRuntime } from '../runtime/agentRuntime';
import { RestartBudget } from './restartBudget';
import { SaveSchedule } from './saveSchedule';
import { restorable, saveNewest } from './savedTranscript';
import { newestFirst, type ListedSession } from '../runtime/sessionList';
import { SessionStore } from './sessionStore';
import { TranscriptFile, TranscriptKey, transcriptPath, type KeptTranscript } from './transcriptFile';
import type { ReopenRequest, SessionOpened } from '../runtime/sessionSwitch';
import type { Transcript } from '../runtime/transcript';
import type { NoticeAction, NoticeLevel, TranscriptEntry } from '../shared/messages';
import { DisposableStore } from '../util/disposable';
import { firstLine } from '../util/text';

/** What the keeper needs of its FolderConversation. */
export interface KeptFolder {
  readonly key: string;
  readonly folder: vscode.WorkspaceFolder;
  readonly transcript: Transcript;
  readonly runtime: AgentRuntime | undefined;
  readonly agentName: string;
  ensureAgent(): Promise<AgentRuntime | undefined>;
  restartAgent(): Promise<boolean>;
  /** Tells the user: the notice, and a notification while the conversation is out of sight (answers.ts). */
  say(level: NoticeLevel, text: string, actions?: NoticeAction[]): void;
}

export class SessionKeeper implements vscode.Disposable {
  readonly store: SessionStore;
  readonly crashes = new RestartBudget();
  /** Where the transcript is kept for the next window (transcriptFile.ts). */
  private readonly kept: KeptTranscript;
  /** The next start opens this session (reins.loadSession with no agent running). */
  private nextReopen: ReopenRequest | undefined;
  /** reins.loadSession: the session asked for is another conversation; what is shown goes. */
  private fresh = false;
  /** What the transcript showed before a load cleared it for the replay: back if the load fails. */
  private beforeLoad: TranscriptEntry[] | undefined;
  /** The last session a runtime opened (or failed to): what a start in a session resulted in. */
  private lastOpened: { rt: AgentRuntime; opened: SessionOpened } | undefined;
  /** The running load, list or delete: one at a time; a prompt waits for it (`idle`). */
  private busy: Promise<unknown> = Promise.resolve();
  /** When the transcript is written (saveSchedule.ts). */
  private readonly saves = new SaveSchedule(() => this.saveNow());
  /** Why the agent was restarted by itself: said again after a replay, which clears what the panel said. */
  private crashNote: string | undefined;
  private readonly subscriptions = new DisposableStore();

  constructor(
    private readonly folder: KeptFolder,
    context: Pick<vscode.ExtensionContext, 'workspaceState' | 'storageUri'>,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.store = new SessionStore(context.workspaceState, folder.key);
    this.kept = keptTranscript(context, folder.key, log);
    // The conversation as the last window left it; a load's replay replaces it later.
    const saved = restorable(this.kept.read());
    if (saved.length > 0 && folder.transcript.entries.length === 0) folder.transcript.restore(saved);
    this.subscriptions.add(folder.transcript.onOp((op) => this.saves.changed(op)));
  }

  /** The session a starting `agent` reopens: one asked for, else the folder's last one if it was this agent's. */
  reopenFor(agent: string): ReopenRequest | undefined {
    const next = this.nextReopen;
    this.nextReopen = undefined;
    if (next) return next;
    const current = this.store.current;
    if (!current || current.agent !== agent) return undefined;
    return { sessionId: current.sessionId, keepTranscript: this.folder.transcript.entries.length > 0 };
  }

  /** New Session: the next start makes a new one rather than reopening the last. */
  forgetCurrent(): void {
    void this.store.setCurrent(undefined);
  }

  /** Resolves once no load (or list, delete) is running: a prompt goes to the session that results. */
  idle(): Promise<void> {
    return this.busy.then(() => undefined);
  }

  /** Follow one runtime's sessions: called by FolderConversation.wire for each runtime it starts. */
  attach(rt: AgentRuntime): vscode.Disposable {
    const d = new DisposableStore();
    d.add(rt.session.switch.onOpening(({ method }) => this.onOpening(method)));
    d.add(rt.session.switch.onOpened((o) => this.onOpened(rt, o)));
    d.add(
      rt.session.onUpdate((n) => {
        const u = n.update;
        if (u.sessionUpdate === 'session_info_update' && 'title' in u && n.sessionId === rt.session.id && this.keepsOwnList(rt)) {
          void this.store.retitle(rt.name, n.sessionId, u.title ?? null);
        }
      }),
    );
    d.add(
      rt.turns.onTurnStarted(() => {
        if (rt.session.id && this.keepsOwnList(rt)) void this.store.remember(rt.name, rt.session.id);
      }),
    );
    d.add(rt.turns.onTurnEnded(() => this.saves.changed({ type: 'turn-ended' })));
    d.add(rt.onExit(({ requested }) => !requested && this.onCrash(rt)));
    // A load the exit ended says no onOpened: its replay is over all the same.
    d.add(rt.onExit(() => this.folder.transcript.setReplaying(false)));
    d.add({ dispose: () => this.folder.transcript.setReplaying(false) });
    return d;
  }

  // ---- the commands ------------------------------------------------------------------------

  /** `reins.listSessions`: the agent's list where it has one, else Reins' own (where it can reopen). */
  listSessions(): Promise<ListedSession[]> {
    return this.exclusive(async () => {
      const rt = await this.agent();
      if (!rt) return [];
      const caps = rt.session.switch.caps;
      if (caps.list) return newestFirst((await rt.session.list()).sessions);
      if (caps.load || caps.resume) return this.store.list(rt.name).map(({ sessionId, title, updatedAt }) => ({ sessionId, title, updatedAt }));
      return [];
    });
  }

  /**
   * `reins.loadSession`: the running turn is settled first (the runtime's session.load, through
   * the routine); an unverified stop refuses the load and the folder stays closed. Resolves
   * once the replay is done.
   */
  loadSession(sessionId: string): Promise<LoadSessionResult> {
    return this.exclusive(async (): Promise<LoadSessionResult> => {
      if (!vscode.workspace.isTrusted) return { status: 'failed', error: 'Reins starts agents only in trusted workspaces' };
      let rt = this.folder.runtime;
      if (!rt || rt.phase !== 'ready') {
        // No agent running: it starts in that session (no session/new made only to be replaced).
        const started = await this.startIn(sessionId);
        if (started.done) return started.result;
        rt = started.rt;
      }
      const caps = rt.session.switch.caps;
      if (!caps.load && !caps.resume) return { status: 'failed', error: `${rt.name} cannot load sessions (it offers neither session/load nor session/resume)` };
      this.fresh = true;
      try {
        const { report, outcome } = await rt.session.load(sessionId, false);
        if (outcome) return outcome;
        if (report.outcome === 'abort-unverified') {
          this.folder.transcript.notice(
            'warning',
            `Not loaded: ${rt.name}'s stop was not confirmed, so no other session opens in ${this.folder.folder.name}.`,
            [
              { action: 'checkAgain', label: 'Check Again' },
              { action: 'forceStop', label: 'Force Stop' },
            ],
          );
          return { status: 'failed', error: 'the running turn did not confirm its stop, so nothing was loaded', refused: true };
        }
      } finally {
        this.fresh = false;
      }
      // The agent exited while its turn was stopped: a new process opens the session.
      const started = await this.startIn(sessionId);
      return started.done ? started.result : { status: 'failed', error: `${rt.name} did not open session ${sessionId}` };
    });
  }

  /** `reins.deleteSession`: session/delete where offered; Reins' own list forgets it either way. */
  deleteSession(sessionId: string): Promise<DeleteSessionResult> {
    return this.exclusive(async (): Promise<DeleteSessionResult> => {
      const rt = await this.agent();
      if (!rt) return { status: 'failed', error: `${this.folder.agentName} is not running` };
      if (sessionId === rt.session.id) return { status: 'failed', error: 'this is the current session; open another one before deleting it' };
      const own = this.store.list(rt.name).some((s) => s.sessionId === sessionId);
      if (!rt.session.switch.caps.delete) {
        if (!own) return { status: 'failed', error: `${rt.name} does not offer session/delete` };
        await this.store.forget(rt.name, sessionId);
        return { status: 'forgotten' };
      }
      try {
        await rt.session.delete(sessionId);
      } catch (error) {
        return { status: 'failed', error: (error as Error)?.message ?? String(error) };
      }
      if (own) await this.store.forget(rt.name, sessionId);
      return { status: 'deleted' };
    });
  }

  dispose(): void {
    this.saves.now();
    this.subscriptions.dispose();
  }

  // ---- what happens to sessions ------------------------------------------------------------

  /** Reins keeps its own list only for agents that can reopen but cannot list. */
  private keepsOwnList(rt: AgentRuntime): boolean {
    const caps = rt.session.switch.caps;
    return !caps.list && (caps.load || caps.resume);
  }

  private onOpening(method: 'session/load' | 'session/resume'): void {
    // A replay brings the conversation back itself; a resumed other session has none to show.
    if (method !== 'session/load' && !this.fresh) return;
    this.beforeLoad = this.folder.transcript.entries;
    // Before the clear: the panel keeps showing what it has (and the reader's place) until the
    // replay ends, then gets the whole of it in one snapshot (panel/transcriptSender.ts).
    if (method === 'session/load') this.folder.transcript.setReplaying(true);
    this.folder.transcript.clear();
  }

  private onOpened(rt: AgentRuntime, o: SessionOpened): void {
    try {
      this.opened(rt, o);
    } finally {
      // After the notices below: the replay's snapshot carries them too.
      this.folder.transcript.setReplaying(false);
    }
  }

  private opened(rt: AgentRuntime, o: SessionOpened): void {
    const transcript = this.folder.transcript;
    this.lastOpened = { rt, opened: o };
    // Forgotten before the new session is written: an agent that lost its sessions may give the
    // new one the old one's id (a counter from 1 again), and forgetting after would lose the new one.
    if (o.missed?.unknown) void this.store.forget(rt.name, o.missed.sessionId);
    void this.store.setCurrent({ agent: rt.name, sessionId: o.sessionId });
    if (this.keepsOwnList(rt) && o.how !== 'kept') void this.store.remember(rt.name, o.sessionId);
    const before = this.beforeLoad;
    this.beforeLoad = undefined;
    if (o.missed) {
      if (before) transcript.restore(before);
      // Nothing to say when there was nothing to reopen into (a first start with an empty panel).
      if (transcript.entries.length === 0 && !o.missed.unknown && o.how === 'new') return;
      const now = o.how === 'kept' ? 'The current session stays open.' : 'This is a new session: the conversation above is not part of it.';
      const caps = rt.session.switch.caps;
      // An agent that cannot reopen at all is no failure: only say what it means.
      if (!caps.load && !caps.resume) transcript.notice('info', `${rt.name} cannot reopen sessions. ${now}`);
      else transcript.notice('warning', `Could not reopen the earlier session: ${o.missed.why}. ${now}`);
      return;
    }
    const title = rt.session.controls.config?.sessionTitle;
    const crashNote = this.crashNote;
    this.crashNote = undefined;
    if (o.how === 'load' && crashNote) transcript.notice('warning', crashNote);
    if (o.how === 'load') transcript.notice('info', `Loaded the session${title ? ` “${title}”` : ''} from ${rt.name}.`);
    else if (o.how === 'resume' && before)
      transcript.notice('info', `Resumed the session${title ? ` “${title}”` : ''}: ${rt.name} does not replay earlier messages, so they are not shown.`);
    // The same conversation in a new process: the transcript keeps the cards of the old one
    // apart from the new one's, whatever ids it reuses (transcript.ts, cardFor).
    else if (o.how === 'resume') transcript.notice('info', `Resumed the session with ${rt.name}.`);
  }

  private onCrash(rt: AgentRuntime): void {
    if (this.folder.runtime !== rt) return; // replaced meanwhile: nothing to restart
    const caps = rt.session.switch.caps;
    // Restarting gains something only where the session comes back; otherwise the next prompt starts it.
    if (!caps.load && !caps.resume) return;
    if (this.crashes.take()) {
      this.log.info(
        `agent ${rt.name} exited by itself; restarting it to reopen session ${rt.session.id} (${this.crashes.used} of ${this.crashes.max} automatic restarts in ${this.crashes.windowMs / 60_000} minutes)`,
      );
      const how = rt.exit ? firstLine(describeExit(rt.exit)).replace(/; stderr:$/, '') : 'exited';
      this.crashNote = `${rt.name} ${how}; Reins started it again (${this.crashes.used} of ${this.crashes.max} times within ${this.crashes.windowMs / 60_000} minutes).`;
      void this.folder.restartAgent();
      return;
    }
    const text = `${rt.name} exited ${this.crashes.max + 1} times within ${this.crashes.windowMs / 60_000} minutes; Reins does not restart it again by itself.`;
    this.log.warn(text);
    // Restart (the user's restart resets the budget: conversations.ts) or read the log.
    this.folder.say('error', text, [
      { action: 'restartAgent', label: 'Restart' },
      { action: 'openLog', label: 'Open Log' },
    ]);
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** Start the agent in `sessionId`; `done` with the result if the new process opened it (or failed). */
  private async startIn(sessionId: string): Promise<{ done: true; result: LoadSessionResult } | { done: false; rt: AgentRuntime }> {
    this.nextReopen = { sessionId, keepTranscript: false };
    this.fresh = true;
    let rt: AgentRuntime | undefined;
    try {
      rt = await this.folder.ensureAgent();
    } finally {
      this.nextReopen = undefined;
      this.fresh = false;
    }
    // The runtime is attached (FolderConversation.wire) before it starts: what it opened was seen.
    const opened = this.lastOpened?.rt === rt ? this.lastOpened?.opened : undefined;
    if (!rt) return { done: true, result: { status: 'failed', error: `${this.folder.agentName} could not be started` } };
    if (rt.session.id === sessionId && opened?.sessionId === sessionId) {
      return { done: true, result: { status: opened.how === 'resume' ? 'resumed' : 'loaded', sessionId } };
    }
    if (opened?.missed?.sessionId === sessionId) {
      return { done: true, result: { status: 'failed', error: opened.missed.why, unknown: opened.missed.unknown, sessionId: rt.session.id } };
    }
    return { done: false, rt }; // a start already under way opened another session: replace it now
  }

  private async agent(): Promise<AgentRuntime | undefined> {
    if (!vscode.workspace.isTrusted) return undefined;
    const rt = this.folder.runtime;
    return rt && rt.phase === 'ready' ? rt : this.folder.ensureAgent();
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.busy.then(work, work);
    this.busy = run.catch(() => undefined);
    return run;
  }

  private saveNow(): void {
    const transcript = this.folder.transcript;
    const failed = (error: unknown) => this.log.warn(`could not keep the transcript of ${this.folder.folder.name}: ${(error as Error)?.message ?? error}`);
    try {
      void Promise.resolve(this.kept.write(transcript.length > 0 ? saveNewest(transcript) : undefined)).then(undefined, failed);
    } catch (error) {
      failed(error);
    }
  }
}

/**
 * A folder's kept transcript: a file in the workspace's storage folder when that folder is on the
 * extension host's own disk (`file:`; transcriptFile.ts says why not workspaceState), where an
 * earlier version's key is read once and cleared; else (no workspace storage) that key.
 */
function keptTranscript(
  context: Pick<vscode.ExtensionContext, 'workspaceState' | 'storageUri'>,
  folderKey: string,
  log: vscode.LogOutputChannel,
): KeptTranscript {
  const legacy = { kv: context.workspaceState, key: `reins.transcript:${folderKey}` };
  const dir = context.storageUri;
  if (dir?.scheme !== 'file') return new TranscriptKey(legacy.kv, legacy.key);
  return new TranscriptFile(transcriptPath(dir.fsPath, folderKey), legacy, (message) => log.warn(message));
}
