// One workspace folder's conversation: which agent runs there, its runtime, the transcript,
// and what the user is told. The editor-facing half of the core: it decides *when* to stop
// (send now, replace, remove), the runtime decides *how* (the one routine).
import * as vscode from 'vscode';
import { describeExit } from './acp/agentProcess';
import { watchFileAccess } from './acp/clientMethods/writeReport';
import { DEMO_AGENT, extensionVersion, fileLimits, maxLineBytes, resolveAgent, runtimeSettings, traceLevel, type ResolvedAgent } from './config';
import { AgentRuntime, StartError, type StopReport } from './session/agentRuntime';
import type { FolderGate } from './session/folderGate';
import { mcpServersSetting, watchMcpSkips } from './mcp';
import { deriveStatus } from './session/panelStatus';
import { outOfStepRecovery, type OutOfStepRecovery } from './session/outOfStep';
import { makeQuirks } from './session/quirks';
import { showTerminalOutput } from './session/terminalCards';
import type { PreparedLaunch } from './agents/launch';
import { launchFor, reportNotInstalled } from './agents/prepare';
import { AUTH_REQUIRED, isAuthRequired } from './auth/methods';
import { SignIn } from './auth/signIn';
import { Transcript } from './session/transcript';
import { SessionKeeper } from './sessionKeeper';
import type { StopCause, TurnResult } from './session/turnMachine';
import type { PanelStatus } from './shared/messages';
import { DisposableStore } from './util/disposable';
import { toSendResult, toStopResult, type SendResult, type StopResult, type WhenBusy } from './api';
import { exitCleanupText, leftoverHead, outOfStepText, stopNotice } from './userText';

export type { SendResult, StopResult, WhenBusy } from './api';

export class FolderSession implements vscode.Disposable {
  readonly transcript = new Transcript();
  private runtimeValue: AgentRuntime | undefined;
  private agent: ResolvedAgent | undefined;
  private starting: Promise<AgentRuntime | undefined> | undefined;
  private perRuntime = new DisposableStore();
  private pendingInput: string | undefined;
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  /** Status changed: panel, status bar and context keys re-derive. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onRestoreInput = new vscode.EventEmitter<string>();
  readonly onRestoreInput = this._onRestoreInput.event;
  private readonly _onNeedsAttention = new vscode.EventEmitter<void>();
  readonly onNeedsAttention = this._onNeedsAttention.event;
  /** The last text given back to the input box (for the API and tests). */
  lastRestoredInput: string | undefined;
  /** Counts stop requests, so that a prompt still on its way (its agent starting) sees one. */
  private stopsRequested = 0;
  /** Sign-in when the agent refuses with auth_required (auth/signIn.ts). */
  readonly signIn: SignIn;
  /** Why the last start failed before a session existed (not installed, sign-in): for sendPrompt. */
  private startProblem: string | undefined;
  /** Sessions across processes and windows: reopen, the kept transcript, load / list / delete (sessionKeeper.ts). */
  readonly keeper: SessionKeeper;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly extension: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly gate: FolderGate<AgentRuntime>,
  ) {
    this.agent = resolveAgent(extension.extensionPath);
    this.signIn = new SignIn(this, extension, log);
    this.keeper = new SessionKeeper(this, extension.workspaceState, log);
  }

  /** For sign-in: restart with what was just stored (through the routine, as Restart Agent). */
  restartAgent(): Promise<boolean> {
    return this.replaceAgent(undefined, 'restart');
  }

  /** How the agent starts: its command as the login shell finds it, npx, stored sign-in values. */
  prepareLaunch(): Promise<PreparedLaunch> {
    const agent = this.agent ?? resolveAgent(this.extension.extensionPath, DEMO_AGENT)!;
    return launchFor(agent, this.folder, this.extension, this.log);
  }

  get key(): string {
    return this.folder.uri.toString();
  }
  /** The gate compares folders by path (nested folders share one checkout). */
  private get gatePath(): string {
    return this.folder.uri.fsPath;
  }
  get runtime(): AgentRuntime | undefined {
    return this.runtimeValue;
  }
  get agentName(): string {
    return this.agent?.name ?? DEMO_AGENT;
  }

  status(): PanelStatus {
    const rt = this.runtimeValue;
    const turn = rt?.turn ?? { phase: 'idle' as const };
    const status = deriveStatus({
      agentName: this.agentName,
      demo: this.agent?.demo ?? true,
      folderName: this.folder.name,
      trusted: vscode.workspace.isTrusted,
      agent: rt?.phase,
      turn,
      gate: this.gate.check(this.gatePath, rt),
      now: Date.now(),
    });
    // What the agent said about its session: mode, model, slash commands, title, usage. Only
    // while it runs: an exited agent's mode and commands are not the next process's.
    return { ...status, session: rt?.phase === 'ready' ? rt.sessionConfig?.view() : undefined };
  }

  /** Text waiting to go back into the input box when the panel next shows. */
  takePendingInput(): string | undefined {
    const text = this.pendingInput;
    this.pendingInput = undefined;
    return text;
  }

  // ---- prompts --------------------------------------------------------------------------

  /** `files`: file URIs attached to the prompt (sent as the agent's promptCapabilities allow). */
  async send(text: string, whenBusy: WhenBusy, files?: string[]): Promise<SendResult> {
    if (!text.trim()) return { status: 'not-sent', reason: 'empty prompt' };
    await this.keeper.idle(); // a session load under way ends first: the prompt goes to the session it opens
    if (!vscode.workspace.isTrusted) {
      this.giveBack(text, 'Reins starts agents only in trusted workspaces. Trust this folder to send prompts.');
      void vscode.window
        .showWarningMessage('Reins starts agents only in trusted workspaces.', 'Manage Workspace Trust')
        .then((choice) => choice && vscode.commands.executeCommand('workbench.trust.manage'));
      return { status: 'not-sent', reason: 'workspace not trusted' };
    }
    let rt = this.runtimeValue;
    if (rt && rt.turn.phase !== 'idle' && rt.turn.phase !== 'unverified') {
      if (!(await this.stopForPrompt(whenBusy, rt, true))) {
        this.giveBack(text, 'A turn was running; your prompt was not sent.');
        return { status: 'not-sent', reason: 'a turn is running' };
      }
      // "Send now": stop, confirm, then send, through the one routine.
      const report = await rt.stop('send-now');
      if (report.outcome === 'abort-unverified') {
        this.giveBack(text, 'The running turn did not confirm its stop, so your prompt was not sent.');
        return { status: 'not-sent', reason: 'the previous turn did not confirm its stop' };
      }
    }
    let verdict = this.gate.check(this.gatePath, rt);
    if (!verdict.open && verdict.why === 'running') {
      // Another agent runs a turn in this folder (or one nested with it): one at a time.
      if (await this.stopForPrompt(whenBusy, verdict.holder, false)) await verdict.holder.stop('send-now');
      verdict = this.gate.check(this.gatePath, rt);
    }
    if (!verdict.open) {
      const why =
        verdict.why === 'unverified'
          ? `${verdict.holder.name}'s last stop in ${this.folder.name} was not confirmed. Check again or force stop it first.`
          : `${verdict.holder.name} is running a turn in ${this.folder.name}. Stop it or wait for it to finish.`;
      this.giveBack(text, why);
      if (verdict.why === 'unverified') void this.offerUnverifiedChoices(verdict.holder);
      return { status: 'not-sent', reason: why };
    }
    const stopsBefore = this.stopsRequested;
    rt = await this.ensureAgent();
    if (!rt) {
      this.giveBack(text);
      // Sign-in needed: the prompt never reached the agent; the reason names the methods.
      if (this.signIn.needed) return { status: 'not-sent', reason: this.signIn.needed };
      return { status: 'failed', error: this.startProblem ?? (this.runtimeValue?.startFailure ? `${this.agentName} could not start: ${this.runtimeValue.startFailure.split('\n')[0]}` : `${this.agentName} could not be started`) };
    }
    if (this.stopsRequested !== stopsBefore) {
      // Stopped while the agent was starting: the prompt was never sent, so nothing is
      // cancelled and the text goes back.
      this.giveBack(text, 'Stopped before the prompt was sent.');
      return { status: 'not-sent', reason: 'stopped before it was sent' };
    }
    const result = await rt.prompt(text, files);
    if (result.kind === 'failed' && result.code === AUTH_REQUIRED) {
      // onTurnEnded (which runs first) offered the methods; the result names them too.
      return { status: 'failed', error: `${this.signIn.needed ?? `${rt.name} needs you to sign in.`} (${result.error})` };
    }
    if (result.kind === 'completed' && result.outOfStep) {
      return { status: 'failed', error: outOfStepText(rt.name), outOfStep: true, recovery: this.outOfStepRecovery(rt) };
    }
    return toSendResult(result);
  }

  /**
   * Stop `holder`'s running turn for a new prompt? "stopAndSend" answers for this folder's own
   * agent (the panel's Enter: send now); another agent's turn is stopped only if the user says so.
   */
  private async stopForPrompt(whenBusy: WhenBusy, holder: AgentRuntime, own: boolean): Promise<boolean> {
    if (whenBusy === 'keep') return false;
    if (whenBusy === 'stopAndSend' && own) return true;
    const choice = await vscode.window.showWarningMessage(
      `${holder.name} is running a turn in ${this.folder.name}. One turn runs in a folder at a time: stop it and send this prompt, or wait for it to finish?`,
      { modal: true },
      'Stop and Send',
      'Wait',
    );
    return choice === 'Stop and Send';
  }

  // ---- stopping and replacing ----------------------------------------------------------

  async stop(cause: StopCause, budgetMs?: number): Promise<StopResult> {
    this.stopsRequested++;
    const rt = this.runtimeValue;
    if (!rt) return { outcome: 'completed', cause, turnId: 0, evidence: 'no agent running', cancelsSent: 0, leftovers: [] };
    const report = await rt.stop(cause, budgetMs);
    await report.leftoversFound; // the command's result names them
    return toStopResult(report);
  }

  async checkAgain(): Promise<StopResult | undefined> {
    const rt = this.runtimeValue;
    return rt ? toStopResult(await rt.checkAgain()) : undefined;
  }

  async forceStop(): Promise<StopResult | undefined> {
    const rt = this.runtimeValue;
    if (!rt) return undefined;
    const report = await rt.forceStop();
    this.transcript.notice('info', `Force stopped ${rt.name}: its whole process tree was ended. Your next prompt starts it again.`);
    return report && toStopResult(report);
  }

  async endLeftovers(): Promise<void> {
    const ended = (await this.runtimeValue?.endLeftovers()) ?? [];
    if (ended.length > 0) this.transcript.notice('info', `Ended ${ended.length} leftover tool process${ended.length > 1 ? 'es' : ''}.`);
  }

  /** A fresh session with the same agent; only once the running turn has settled. */
  async newSession(): Promise<boolean> {
    await this.starting; // a start in progress finishes first: it is not to be replaced half-made
    const rt = this.runtimeValue;
    if (!rt || rt.phase !== 'ready') {
      this.transcript.clear();
      this.keeper.forgetCurrent(); // the next start makes a new session, not the last one again
      this._onDidChange.fire();
      return true;
    }
    const report = await rt.newSession();
    if (report.outcome === 'abort-unverified') {
      this.refuseReplacement(rt);
      return false;
    }
    this.transcript.clear();
    if (rt.phase !== 'ready') {
      // The agent died while stopping: a new session needs a new process.
      this.keeper.forgetCurrent();
      await this.ensureAgent();
      this._onDidChange.fire();
      return this.runtimeValue?.phase === 'ready';
    }
    this.transcript.notice('info', `New session with ${this.agentName}.`);
    this._onDidChange.fire();
    return true;
  }

  /** Switch to another agent (or restart this one): stop, confirm, end the old process, start anew. */
  async replaceAgent(name: string | undefined, why: 'switch' | 'restart'): Promise<boolean> {
    const next = resolveAgent(this.extension.extensionPath, name ?? this.agent?.name);
    if (!next) {
      void vscode.window.showErrorMessage(`Reins has no agent named "${name}". Add it to the reins.agents setting.`, 'Open Settings').then(
        (c) => c && vscode.commands.executeCommand('workbench.action.openSettings', 'reins.agents'),
      );
      return false;
    }
    await this.starting;
    const old = this.runtimeValue;
    if (old) {
      const report = await old.stop('replace-session');
      if (report.outcome === 'abort-unverified') {
        this.refuseReplacement(old);
        return false;
      }
      await old.shutdown('replace-session');
      this.dropRuntime();
    }
    this.agent = next;
    this.transcript.notice('info', why === 'restart' ? `Restarting ${next.name}…` : `Switched to ${next.name}.`);
    this._onDidChange.fire();
    return (await this.ensureAgent()) !== undefined;
  }

  /** Deactivation, folder removal: stop with a short budget, then end the whole tree. */
  async shutdown(cause: StopCause, budgetMs: number): Promise<void> {
    await this.runtimeValue?.shutdown(cause, budgetMs);
  }

  dispose(): void {
    this.runtimeValue?.dispose();
    this.perRuntime.dispose();
    this._onDidChange.dispose();
    this._onRestoreInput.dispose();
    this._onNeedsAttention.dispose();
    this.keeper.dispose();
  }

  // ---- the agent --------------------------------------------------------------------------

  /** The running agent, started (spawn, initialize, session/new) if need be. */
  ensureAgent(): Promise<AgentRuntime | undefined> {
    const rt = this.runtimeValue;
    if (rt && rt.phase === 'ready') return Promise.resolve(rt);
    this.starting ??= this.startAgent().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async startAgent(): Promise<AgentRuntime | undefined> {
    if (!this.agent) this.agent = resolveAgent(this.extension.extensionPath);
    const agent = this.agent;
    if (!agent) return undefined;
    this.dropRuntime();
    const prepared = await this.prepareLaunch();
    if (!prepared.ok) {
      // Found nowhere: say so with the install hint, before anything is spawned.
      this.startProblem = reportNotInstalled(agent.name, prepared, this.transcript);
      this._onDidChange.fire();
      return undefined;
    }
    const rt = new AgentRuntime({
      name: agent.name,
      launch: prepared.launch,
      settings: runtimeSettings,
      quirks: makeQuirks(agent.entry),
      log: this.log,
      trace: traceLevel,
      maxLineBytes: maxLineBytes(),
      clientInfo: { name: 'reins', version: extensionVersion(this.extension.extension) },
      mcpServers: () => mcpServersSetting(this.log),
      reopen: this.keeper.reopenFor(agent.name),
    });
    this.runtimeValue = rt;
    this.wire(rt);
    try {
      await rt.start({ authenticate: this.signIn.takeAuthenticate() });
      this.startProblem = undefined;
      this.signIn.started();
      if (agent.demo) {
        this.transcript.notice('info', 'This is the Reins demonstration agent: a scripted agent with no model, so that Reins works offline. Configure a real agent in the reins.agents setting and pick it with "Reins: Select Agent…".', [{ action: 'selectAgent', label: 'Select Agent…' }]);
      }
      return rt;
    } catch (error) {
      if (error instanceof StartError && isAuthRequired(error.failure)) {
        // session/new said auth_required: offer the agent's methods; nothing is authenticated yet.
        this.startProblem = this.signIn.offer('start', error.failure.authMethods, error.message.split('\n')[0]);
        return undefined;
      }
      const message = error instanceof StartError ? error.message : String(error);
      this.startProblem = `${agent.name} could not start: ${message.split('\n')[0]}`;
      this.transcript.notice('error', `${agent.name} could not start: ${message}`, [
        { action: 'openLog', label: 'Open Log' },
        { action: 'restartAgent', label: 'Try Again' },
      ]);
      void vscode.window.showErrorMessage(`Reins: ${agent.name} could not start. ${message.split('\n')[0]}`, 'Open Log').then((c) => c && this.log.show(true));
      return undefined;
    } finally {
      this._onDidChange.fire();
    }
  }

  private wire(rt: AgentRuntime): void {
    const d = this.perRuntime;
    d.add(this.gate.register(this.gatePath, rt));
    d.add(this.keeper.attach(rt));
    d.add(rt.onDidChangeState(() => this._onDidChange.fire()));
    d.add(rt.onUpdate((n) => this.transcript.apply(n)));
    // After the line above: a terminal's live output goes into the card the update just made.
    d.add(showTerminalOutput(rt, this.transcript));
    d.add(rt.onTurnStarted(({ text }) => this.transcript.user(text)));
    d.add(rt.onToolsCancelled(() => this.transcript.markToolsCancelled()));
    // fs/* size limits, and each file the agent writes listed in this turn's "Files written" entry.
    d.add(watchFileAccess(rt, this.transcript, fileLimits));
    // MCP servers this agent cannot take (http or sse without the capability): said once.
    d.add(watchMcpSkips(rt, this.transcript));
    d.add(
      rt.onPermission((p) => {
        this.transcript.upsert({
          kind: 'permission',
          id: p.id,
          title: p.request.toolCall?.title ?? 'The agent asks for permission',
          options: p.request.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
        });
        this._onNeedsAttention.fire();
      }),
    );
    d.add(
      rt.onPermissionResolved(({ id, optionId, cancelled, withdrawn }) => {
        const entry = this.transcript.get(id);
        if (entry?.kind !== 'permission') return;
        const chosen = entry.options.find((o) => o.optionId === optionId)?.name;
        this.transcript.upsert({ ...entry, resolved: withdrawn ? 'withdrawn by the agent' : cancelled ? 'cancelled' : (chosen ?? optionId) });
      }),
    );
    d.add(rt.onTurnEnded(({ text, result }) => (result.kind === 'completed' && result.outOfStep ? this.onOutOfStep(rt, text) : this.onTurnEnded(text, result))));
    d.add(rt.onStop((report) => this.onStop(rt, report)));
    d.add(rt.onLeftovers((report) => this.onLeftovers(report)));
    d.add(
      rt.onExit(({ requested }) => {
        // Its Check Again / Force Stop / End Them buttons act on a process that is gone.
        this.retireAgentActions();
        // An exit Reins asked for (Force Stop, restart, switch, exit) is no failure.
        if (requested) return;
        const exit = rt.exit;
        this.transcript.notice('error', `${rt.name} exited${exit ? ` (${describeExit(exit).split('\n')[0]})` : ''}. Your next prompt starts it again.`, [
          { action: 'openLog', label: 'Open Log' },
          { action: 'restartAgent', label: 'Restart' },
        ]);
      }),
    );
    d.add(
      rt.onExitCleanup(({ ended }) => {
        this.transcript.notice('info', exitCleanupText(rt.name, ended));
      }),
    );
  }

  /** Buttons that act on the current agent process go once that process is gone or replaced. */
  private retireAgentActions(): void {
    for (const entry of this.transcript.entries) {
      if (entry.kind !== 'notice' || !entry.actions?.some((a) => AGENT_ACTIONS.has(a.action))) continue;
      const actions = entry.actions.filter((a) => !AGENT_ACTIONS.has(a.action));
      this.transcript.upsert({ ...entry, actions: actions.length > 0 ? actions : undefined });
    }
  }

  /** What recovers this agent when it answers one turn behind (its settings entry, else measured per agent). */
  private outOfStepRecovery(rt: AgentRuntime): OutOfStepRecovery {
    return outOfStepRecovery(rt.agentInfo?.agentInfo ?? undefined, this.agent?.entry.outOfStepRecovery);
  }

  private onOutOfStep(rt: AgentRuntime, text: string): void {
    const recovery = this.outOfStepRecovery(rt);
    const what = `${outOfStepText(rt.name)}: its answer belonged to the stopped turn, and it went on working on your prompt unseen.`;
    this.giveBack(text);
    if (recovery === 'restart') {
      this.transcript.notice('warning', `${what} Reins restarts it (ending that work); your prompt is back in the input box.`);
      void this.replaceAgent(undefined, 'restart');
    } else {
      this.transcript.notice('warning', `${what} Restart it to bring it back in step; your prompt is back in the input box.`, [{ action: 'restartAgent', label: 'Restart Agent' }]);
    }
  }

  private dropRuntime(): void {
    this.retireAgentActions();
    this.perRuntime.dispose();
    // A store cannot be reused once disposed; take a new one for the next runtime.
    this.perRuntime = new DisposableStore();
    this.runtimeValue?.dispose();
    this.runtimeValue = undefined;
  }

  private onTurnEnded(text: string, result: TurnResult): void {
    switch (result.kind) {
      case 'completed':
        if (result.stopReason !== 'end_turn') this.transcript.notice('info', `The agent stopped: ${result.stopReason.replace(/_/g, ' ')}.`);
        return;
      case 'failed':
        if (result.code === AUTH_REQUIRED) {
          this.giveBack(text);
          return void this.signIn.offer('prompt', this.runtimeValue?.agentInfo?.authMethods, result.error);
        }
        this.transcript.notice('error', result.agentExited ? `The agent died during the turn: ${result.error}` : `The agent answered with an error: ${result.error}`, [{ action: 'openLog', label: 'Open Log' }]);
        return this.giveBack(text);
      case 'not-sent':
        return this.giveBack(text, `Not sent: ${result.why}.`);
      case 'stopped':
        // The stop's own notice says what happened; a prompt lost to a dying agent comes back.
        if (result.stop.outcome === 'agent-exited') this.giveBack(text);
        return;
    }
  }

  private onStop(rt: AgentRuntime, r: StopReport): void {
    const notice = stopNotice(r, this.folder.name);
    if (!notice) return; // nothing was in flight: nothing to say
    if (r.outcome !== 'abort-unverified') {
      this.transcript.notice(notice.level, notice.text);
      return;
    }
    this.transcript.notice(notice.level, notice.text, [
      { action: 'checkAgain', label: 'Check Again' },
      { action: 'forceStop', label: 'Force Stop' },
    ]);
    void this.offerUnverifiedChoices(rt);
  }

  private onLeftovers(r: StopReport): void {
    if (r.leftoverAction === 'unsupported') {
      this.transcript.notice('info', 'On Windows Reins cannot see whether tool processes outlived a stopped turn. Force Stop ends the agent with its whole process tree.');
      return;
    }
    const head = leftoverHead(r);
    if (r.leftoverAction === 'ended') this.transcript.notice('info', `${head} (ended).`);
    else if (r.leftoverAction === 'left') this.transcript.notice('info', `${head} (left running, per reins.leftoverProcesses).`);
    else {
      this.transcript.notice('warning', head, [{ action: 'endLeftovers', label: 'End Them' }]);
      void vscode.window.showWarningMessage(`Reins: ${head}`, 'End Them', 'Leave Running').then((c) => c === 'End Them' && void this.endLeftovers());
    }
  }

  private async offerUnverifiedChoices(rt: AgentRuntime): Promise<void> {
    const choice = await vscode.window.showWarningMessage(
      `Reins: ${rt.name} did not confirm that it stopped. No new work starts in ${this.folder.name} until it does.`,
      'Check Again',
      'Force Stop',
    );
    if (choice === 'Check Again') await rt.checkAgain();
    else if (choice === 'Force Stop') await rt.forceStop();
  }

  private refuseReplacement(rt: AgentRuntime): void {
    this.transcript.notice('warning', `Not replaced: ${rt.name}'s stop was not confirmed, so no new session starts in ${this.folder.name}.`, [
      { action: 'checkAgain', label: 'Check Again' },
      { action: 'forceStop', label: 'Force Stop' },
    ]);
  }

  /** Nothing typed is lost: text that did not reach a running turn goes back to the input box. */
  private giveBack(text: string, why?: string): void {
    if (why) this.transcript.notice('warning', why);
    this.lastRestoredInput = text;
    this.pendingInput = text;
    this._onRestoreInput.fire(text);
  }

  /** For the panel host: the restore was delivered, forget it. */
  inputDelivered(): void {
    this.pendingInput = undefined;
  }
}

/** Notice buttons that act on one agent process. */
const AGENT_ACTIONS = new Set<string>(['checkAgain', 'forceStop', 'endLeftovers']);
