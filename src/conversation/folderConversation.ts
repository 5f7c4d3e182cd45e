// One workspace folder's conversation: which agent runs there, its runtime, the transcript,
// and what the user is told. The editor-facing half of the core: it decides *when* to stop
// (send now, replace, remove), the runtime decides *how* (the one routine); how an agent is
// started and tied to the editor is folderAgent.ts's.
import * as vscode from 'vscode';
import { notification } from '../ui/notify';
import { Answers } from './answers';
import { whenBusySetting } from '../config';
import { resolveAgent } from '../agents/agentSettings';
import { DEMO_AGENT } from '../agents/catalog';
import { FolderAgent } from './folderAgent';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { FolderAdmission } from '../admission/folderAdmission';
import type { CheckoutLocks } from '../admission/checkoutLock';
import { CheckoutAdmission } from '../admission/checkoutAdmission';
import { checkoutLine, awaitCheckout } from '../admission/awaitCheckout';
import type { CheckoutLine } from '../admission/checkoutLineController';
import { TurnUndo } from '../undo/turnUndo';
import { deriveStatus } from '../panel/panelStatus';
import type { PreparedLaunch } from '../agents/launch';
import { AUTH_REQUIRED } from '../auth/methods';
import { SignIn } from '../auth/signIn';
import { Transcript } from '../runtime/transcript';
import { OutputFiles } from '../runtime/outputLog';
import { EntryFiles } from '../runtime/entryFiles';
import { SessionKeeper } from '../persistence/sessionKeeper';
import { turnActive, type StopCause, type TurnResult } from '../runtime/turnMachine';
import { promptWhileBusy } from '../admission/busyPrompt';
import type { NoticeAction, NoticeLevel, PanelStatus } from '../shared/messages';
import { InputReturn } from '../panel/inputReturn';
import { fileMatch } from '../editor/fileSearch';
import { stopForPrompt } from '../admission/promptRefusal';
import { sendThrough, type SendHost } from '../admission/sendPipeline';
import type { SendResult, StopResult, UndoResult, WhenBusy } from '../api';
import { nothingToStop, stopCommand, toSendResult, toStopResult } from './results';
import { outOfStepText } from './userText';
import { OutOfStepResend } from './outOfStepResend';
import { newSession } from './newSession';
import { noticeNotReplaced, UNVERIFIED_ACTIONS } from './agentNotices';

export type { SendResult, StopResult, WhenBusy } from '../api';

/** What the window tells a folder's conversation about where it is shown (conversations.ts). */
export interface ConversationSight {
  /** Its editor tab or the Reins view is visible now. */
  inSight(): boolean;
  /** A notice's (or a notification's) button: the same action the panel's button runs. */
  act(action: NoticeAction): void;
}

export class FolderConversation implements vscode.Disposable {
  /** Each tool card's whole output, on disk (Open Full Output); the cards keep its end. */
  readonly outputFiles = new OutputFiles((error) => this.log.warn(`Tool output is no longer written to disk: ${error.message}`));
  /** The transcript's settled entries of a long conversation, on disk (entryList.ts). */
  private readonly entryFiles = new EntryFiles((error) => this.log.warn(`Transcript entries are no longer written to disk: ${error.message}`));
  readonly transcript = new Transcript(Date.now, this.outputFiles, this.entryFiles);
  /** Which agent, its runtime started and wired to the editor, dropped (folderAgent.ts). */
  private readonly agent: FolderAgent;
  /** The prompt on its way to the agent, with its files: what goes back if it does not arrive. */
  private inFlight: { text: string; files?: string[]; ended: boolean } | undefined;
  /** An answer one turn behind to the prompt in flight: restarted in the same session, the prompt again or back. */
  private readonly outOfStep: OutOfStepResend;
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  /** Status changed: panel, status bar and context keys re-derive. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onNeedsAttention = new vscode.EventEmitter<void>();
  readonly onNeedsAttention = this._onNeedsAttention.event;
  /** Text given back to the input box (inputReturn.ts). */
  readonly input = new InputReturn();
  /** Counts stop requests, so that a prompt still on its way (its agent starting, the checkout or checkpoint taken) sees one. */
  private stopsRequested = 0;
  /** Sign-in when the agent refuses with auth_required (auth/signIn.ts). */
  readonly signIn: SignIn;
  /** Sessions across processes and windows: reopen, the kept transcript, load / list / delete (sessionKeeper.ts). */
  readonly keeper: SessionKeeper;
  /** The checkpoint before each prompt, and Undo This Turn's Changes (turnUndo.ts). */
  private readonly undo: TurnUndo;
  /** The checkout's lock across windows (admission/checkoutLock.ts), when the window has one. */
  private readonly checkoutAdmission: CheckoutAdmission | undefined;
  /** What the user is told: in this conversation while it is in sight, else a notification too (answers.ts). */
  private readonly answers: Answers;
  /** Prompts waiting, in order, for another window's turn in the checkout (with the lock). */
  private readonly line: CheckoutLine | undefined;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly extension: vscode.ExtensionContext,
    /** The Reins log (the panel logs what it refuses from the webview here). */
    readonly log: vscode.LogOutputChannel,
    private readonly admission: FolderAdmission<AgentRuntime>,
    locks: CheckoutLocks | undefined,
    sight: ConversationSight,
  ) {
    this.answers = new Answers({ transcript: this.transcript, inSight: () => sight.inSight(), notify: notification, act: (a) => sight.act(a) });
    this.signIn = new SignIn(this, extension, log);
    this.keeper = new SessionKeeper(this, extension, log);
    this.checkoutAdmission = locks && new CheckoutAdmission(locks, folder.uri.fsPath, log);
    this.line =
      this.checkoutAdmission &&
      checkoutLine(this.checkoutAdmission, {
        runtime: () => this.runtime,
        agentName: () => this.agentName,
        giveBack: (text, why, files) => this.giveBack(text, why, files),
        changed: () => this._onDidChange.fire(),
      });
    this.outOfStep = new OutOfStepResend({
      transcript: this.transcript,
      recovery: (rt) => this.agent.outOfStepRecovery(rt),
      restart: async () => ((await this.restartAgent()) ? this.runtime : undefined),
      changedSince: () => this.undo.changedSince(),
      stops: () => this.stopsRequested,
      send: (text, files) => this.send(text, 'keep', files),
      giveBack: (...a) => this.giveBack(...a),
    });
    this.undo = new TurnUndo({ folder, log, transcript: this.transcript, admission: () => this.undoAdmission(), say: (...a) => this.say(...a) });
    this.agent = new FolderAgent({
      folder,
      extension,
      log,
      admission,
      admissionPath: this.admissionPath,
      transcript: this.transcript,
      outputFiles: this.outputFiles,
      checkoutAdmission: this.checkoutAdmission,
      keeper: this.keeper,
      undo: this.undo,
      signIn: this.signIn,
      changed: () => this._onDidChange.fire(),
      needsAttention: () => this._onNeedsAttention.fire(),
      // The turn that ended is the prompt in flight: its files go back with it.
      giveBack: (text, why, files) => this.giveBack(text, why, files ?? this.turnEnded(text)),
      restart: () => void this.replaceAgent(undefined, 'restart'),
      takeOutOfStep: (agent, text) => this.outOfStep.take(agent, this.inFlight?.text === text),
      say: (...a) => void this.say(...a),
    });
  }

  /** What the undo must wait for: this folder's turn, the in-window admission, and other windows' turns in the checkout. */
  private async undoAdmission() {
    const rt = this.runtime;
    const verdict = this.admission.check(this.admissionPath, rt);
    const other = verdict.open ? await this.checkoutAdmission?.check() : undefined;
    return {
      turn: rt?.turns.turn.phase ?? ('idle' as const),
      agentName: rt?.name ?? this.agentName,
      gate: !verdict.open
        ? { open: false as const, why: verdict.why, holder: verdict.holder.name }
        : other && !other.open
          ? { open: false as const, why: other.why, holder: `${other.holder.agent} (in another window)` }
          : { open: true as const },
    };
  }

  /** Tells the user: a notice here, and a notification while this conversation is out of sight (answers.ts). */
  say(level: NoticeLevel, text: string, actions?: NoticeAction[]): string | undefined {
    return this.answers.say(level, text, actions);
  }

  /** For sign-in: restart with what was just stored (through the routine, as Restart Agent). */
  restartAgent(): Promise<boolean> {
    return this.replaceAgent(undefined, 'restart');
  }

  /** How the agent starts: its command as the login shell finds it, npx, stored sign-in values. */
  prepareLaunch(): Promise<PreparedLaunch> {
    return this.agent.prepareLaunch();
  }

  get key(): string {
    return this.folder.uri.toString();
  }
  /** The gate compares folders by path (nested folders share one checkout). */
  private get admissionPath(): string {
    return this.folder.uri.fsPath;
  }
  get runtime(): AgentRuntime | undefined {
    return this.agent.runtime;
  }
  get agentName(): string {
    return this.agent.chosen?.name ?? DEMO_AGENT;
  }

  status(): PanelStatus {
    const rt = this.runtime;
    const turn = rt?.turns.turn ?? { phase: 'idle' as const };
    const status = deriveStatus({
      agentName: this.agentName,
      demo: this.agent.chosen?.demo ?? true,
      folderName: this.folder.name,
      trusted: vscode.workspace.isTrusted,
      agent: rt?.phase,
      turn,
      gate: this.admission.check(this.admissionPath, rt),
      line: this.line?.view,
      now: Date.now(),
      permissionPending: (rt?.turns.permissions.list().length ?? 0) > 0,
      elicitationPending: rt?.turns.waitingOn === 'elicitation',
    });
    // What the agent said about its session: mode, model, slash commands, title, usage. Only
    // while it runs: an exited agent's mode and commands are not the next process's.
    return {
      ...status,
      session: rt?.phase === 'ready' ? rt.session.controls.config?.view() : undefined,
      queued: rt?.turns.waiting.list ?? [],
      canSteer: rt?.phase === 'ready' && rt.turns.waiting.steerMethod !== undefined,
      whenBusy: whenBusySetting(),
      checkoutWait: this.line?.view,
    };
  }

  // ---- prompts --------------------------------------------------------------------------

  /** `files`: file URIs attached to the prompt (sent as the agent's promptCapabilities allow); the stages are sendPipeline.ts's. */
  send(text: string, whenBusy: WhenBusy, files?: string[]): Promise<SendResult> {
    return sendThrough({ text, whenBusy, files }, this.sendHost);
  }

  /** What the send pipeline's stages need of this conversation. */
  private readonly sendHost: SendHost<AgentRuntime> = {
    folderName: () => this.folder.name,
    settled: () => this.keeper.idle(),
    trusted: () => vscode.workspace.isTrusted,
    runtime: () => this.runtime,
    // Prompts wait for another window: this one goes after them (the checkout stage), not into this turn.
    busy: (rt) => turnActive(rt.turns.turn) && !this.line?.view,
    whileBusy: (rt, { text, whenBusy, files }) =>
      promptWhileBusy(rt, whenBusy, this.folder.name, text, files, {
        giveBack: (why) => this.giveBack(text, why, files),
        transcript: this.transcript,
        answer: (r) => this.answer(rt, r),
      }),
    admission: (rt) => this.admission.check(this.admissionPath, rt),
    stopForPrompt: async ({ whenBusy }, holder) => {
      if (await stopForPrompt(whenBusy, holder, this.folder.name)) await holder.turns.stop('send-now');
    },
    stops: () => this.stopsRequested,
    ensureAgent: () => this.ensureAgent(),
    // Sign-in needed: the prompt never reached the agent; the reason names the methods.
    notStarted: () => (this.signIn.needed ? { status: 'not-sent', reason: this.signIn.needed } : { status: 'failed', error: this.startError() }),
    checkout: ({ text, whenBusy, files }) => this.line && awaitCheckout(this.line, whenBusy, text, files, (line) => this.transcript.notice('info', line)),
    lineEnded: (id) => this.line?.ended(id),
    // A prompt that never became a turn lets the checkout go at once.
    releaseCheckout: (rt) => {
      if (rt.turns.turn.phase === 'idle') void this.checkoutAdmission?.release();
    },
    checkpoint: () => this.undo.beforePrompt(),
    prompt: (rt, { text, files }) => this.sendNow(rt, text, files),
    after: (rt, result, { text, files }) => this.outOfStep.after(rt, result, text, files),
    giveBack: (text, why, files) => this.giveBack(text, why, files),
    warn: (text, kind) =>
      this.say(
        'warning',
        text,
        kind === 'untrusted' ? [{ action: 'manageTrust', label: 'Manage Workspace Trust' }] : kind === 'unverified' ? UNVERIFIED_ACTIONS : undefined,
      ),
  };

  /** Why the agent did not start, for sendPrompt. */
  private startError(): string {
    const failure = this.runtime?.startFailure;
    return this.agent.startProblem ?? (failure ? `${this.agentName} could not start: ${failure.split('\n')[0]}` : `${this.agentName} could not be started`);
  }

  /** The checkout is this prompt's and its checkpoint taken: the turn. */
  private async sendNow(rt: AgentRuntime, text: string, files: string[] | undefined): Promise<SendResult> {
    const flight = (this.inFlight = { text, files, ended: false });
    const result = await rt.turns.prompt(text, files).finally(() => {
      if (this.inFlight === flight) this.inFlight = undefined;
    });
    // A prompt that never became a turn (not sent) lets the checkout go at once.
    if (rt.turns.turn.phase === 'idle' && result.kind === 'not-sent') void this.checkoutAdmission?.release();
    // Refused before it became a turn (an attached file gone, the agent not ready): no turn
    // ended, so it goes back from here, with its files.
    if (result.kind === 'not-sent' && !flight.ended) this.giveBack(text, `Not sent: ${result.why}.`, files);
    return this.answer(rt, result);
  }

  /** A turn's result as sendPrompt's: sign-in and out-of-step said as such. */
  private answer(rt: AgentRuntime, result: TurnResult): SendResult {
    if (result.kind === 'failed' && result.code === AUTH_REQUIRED) {
      // onTurnEnded (which runs first) offered the methods; the result names them too.
      return { status: 'failed', error: `${this.signIn.needed ?? `${rt.name} needs you to sign in.`} (${result.error})` };
    }
    if (result.kind === 'completed' && result.outOfStep) {
      return { status: 'failed', error: outOfStepText(rt.name), outOfStep: true, recovery: this.agent.outOfStepRecovery(rt) };
    }
    return toSendResult(result);
  }

  // ---- stopping and replacing ----------------------------------------------------------

  async stop(cause: StopCause, budgetMs?: number): Promise<StopResult> {
    this.stopsRequested++;
    // Prompts waiting for another window go back to the input box; the turn, if one runs, stops too.
    const waited = this.line?.stop() ?? false;
    const rt = this.runtime;
    if (waited && !(rt && turnActive(rt.turns.turn))) return { ...nothingToStop(cause), evidence: 'the wait for another window ended' };
    if (!rt) return nothingToStop(cause);
    return stopCommand(rt.turns, cause, budgetMs);
  }

  async checkAgain(): Promise<StopResult | undefined> {
    const rt = this.runtime;
    return rt ? toStopResult(await rt.turns.checkAgain()) : undefined;
  }

  async forceStop(): Promise<StopResult | undefined> {
    const rt = this.runtime;
    if (!rt) return undefined;
    const report = await rt.forceStop();
    this.transcript.notice('info', `Force stopped ${rt.name}: its whole process tree was ended. Your next prompt starts it again.`);
    return report && toStopResult(report);
  }

  /** Undo This Turn's Changes: the files changed since the last prompt's checkpoint, shown, then restored on confirmation. */
  undoTurn(): Promise<UndoResult> {
    return this.undo.undo();
  }

  async endLeftovers(): Promise<void> {
    const ended = (await this.runtime?.turns.endLeftovers()) ?? [];
    if (ended.length > 0) this.transcript.notice('info', `Ended ${ended.length} leftover tool process${ended.length > 1 ? 'es' : ''}.`);
  }

  /** A fresh session with the same agent; only once the running turn has settled (newSession.ts). */
  newSession(): Promise<boolean> {
    const c = { agent: this.agent, transcript: this.transcript, keeper: this.keeper, signIn: this.signIn, folderName: this.folder.name };
    return newSession({ ...c, agentName: this.agentName, changed: () => this._onDidChange.fire(), ensureAgent: () => this.ensureAgent() });
  }

  /** Switch to another agent (or restart this one): stop, confirm, end the old process, start anew. */
  async replaceAgent(name: string | undefined, why: 'switch' | 'restart'): Promise<boolean> {
    const next = resolveAgent(this.extension.extensionPath, name ?? this.agent.chosen?.name);
    if (!next) {
      this.say('error', `Reins has no agent named "${name}". Add it to the reins.agents setting.`, [{ action: 'openSettings', label: 'Open Settings' }]);
      return false;
    }
    await this.agent.starting;
    const old = this.runtime;
    if (old) {
      const report = await old.turns.stop('replace-session');
      if (report.outcome === 'abort-unverified') {
        noticeNotReplaced(old, this.transcript, this.folder.name);
        return false;
      }
      await old.shutdown('replace-session');
      this.agent.drop();
    }
    this.agent.chosen = next;
    this.transcript.notice('info', why === 'restart' ? `Restarting ${next.name}…` : `Switched to ${next.name}.`);
    this._onDidChange.fire();
    return (await this.ensureAgent()) !== undefined;
  }

  /** Deactivation, folder removal: stop with a short budget, then end the whole tree. */
  async shutdown(cause: StopCause, budgetMs: number): Promise<void> {
    await this.runtime?.shutdown(cause, budgetMs);
  }

  fullOutputFiles(id: string): string[] {
    return this.outputFiles.filesOf(id);
  }

  dispose(): void {
    this.outputFiles.dispose();
    this.line?.dispose();
    this.agent.dispose();
    this._onDidChange.dispose();
    this.input.dispose();
    this._onNeedsAttention.dispose();
    this.keeper.dispose();
    this.undo.dispose();
    // Last: what was disposed before may still read the transcript (a last save).
    this.entryFiles.dispose();
  }

  // ---- the agent: started and wired in folderAgent.ts -------------------------------------

  /** The running agent, started (spawn, initialize, session/new) if need be. */
  ensureAgent(): Promise<AgentRuntime | undefined> {
    return this.agent.ensure();
  }

  /** Nothing typed is lost: text that did not reach a running turn goes back to the input box, with its files. */
  private giveBack(text: string, why?: string, files?: string[]): void {
    if (why) this.transcript.notice('warning', why);
    this.input.giveBack(
      text,
      files?.map((uri) => fileMatch(this.folder, uri)),
    );
  }

  /** The prompt in flight ended as a turn (its end is handled there): its files, if `text` is it. */
  private turnEnded(text: string): string[] | undefined {
    const flight = this.inFlight;
    if (flight?.text !== text) return undefined;
    flight.ended = true;
    return flight.files;
  }

  /** For the panel host: text refused before it reached the session (too large) goes back to the input box, with why. */
  returnInput(text: string, why: string): void {
    this.giveBack(text, why);
  }
}
