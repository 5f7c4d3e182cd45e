// One folder's agent: which one is chosen, its runtime started (in a trusted folder only, its
// launch prepared, signed in), tied to the editor for as long as it lives (the gate, the lock,
// the transcript, files, notices, undo), and dropped. The folder conversation (folderConversation.ts)
// decides when an agent starts, stops or is replaced; this is how one starts and is wired.
import * as vscode from 'vscode';
import { watchFileAccess } from '../acp/clientMethods/writeReport';
import { editorFiles } from '../editor/openDocuments';
import { extensionVersion, fileLimits, maxLineBytes, runtimeSettings, traceLevel } from '../config';
import { resolveAgent, type ResolvedAgent } from '../agents/agentSettings';
import { DEMO_AGENT } from '../agents/catalog';
import { loadMachinery } from '../runtime/machineryLoader';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { FolderAdmission } from '../admission/folderAdmission';
import type { CheckoutAdmission } from '../admission/checkoutAdmission';
import type { TurnUndo } from '../undo/turnUndo';
import { mcpServersSetting, watchMcpSkips } from './mcp';
import { outOfStepRecovery } from '../runtime/outOfStep';
import { type OutOfStepRecovery } from '../runtime/knownAgents';
import { makeQuirks } from '../runtime/quirks';
import { followAgent } from '../editor/editorLinks';
import type { PreparedLaunch } from '../agents/launch';
import { launchFor, reportNotInstalled } from '../agents/prepare';
import { isAuthRequired } from '../auth/methods';
import type { SignIn } from '../auth/signIn';
import type { Transcript } from '../runtime/transcript';
import type { OutputFiles } from '../runtime/outputLog';
import { feedTranscript } from '../runtime/transcriptFeed';
import type { SessionKeeper } from '../persistence/sessionKeeper';
import { DisposableStore } from '../util/disposable';
import type { NoticeAction, NoticeLevel } from '../shared/messages';
import { noticeAgentEvents, noticeDemoIntro, noticeStartFailure, retireAgentActions } from './agentNotices';

/** What the agent needs of the folder conversation it belongs to. */
export interface FolderAgentHost {
  readonly folder: vscode.WorkspaceFolder;
  readonly extension: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
  readonly transcript: Transcript;
  /** Tool outputs whole, on disk: the terminals' too. */
  readonly outputFiles: OutputFiles;
  readonly admission: FolderAdmission<AgentRuntime>;
  /** The gate compares folders by path (nested folders share one checkout). */
  readonly admissionPath: string;
  readonly checkoutAdmission: CheckoutAdmission | undefined;
  readonly keeper: SessionKeeper;
  readonly undo: TurnUndo;
  readonly signIn: SignIn;
  /** Status changed: panel, status bar and context keys re-derive. */
  changed(): void;
  /** A permission request: the panel comes forward. */
  needsAttention(): void;
  /** A turn that ended gives its text back (with its files when it is the prompt in flight). */
  giveBack(text: string, why?: string, files?: string[]): void;
  restart(): void;
  /** The prompt in flight, answered out of step, is taken for the full recovery (outOfStepResend.ts). */
  takeOutOfStep(rt: AgentRuntime, text: string): boolean;
  /** Tells the user: the notice, and a notification while the conversation is out of sight (answers.ts). */
  say(level: NoticeLevel, text: string, actions?: NoticeAction[]): void;
}

export class FolderAgent implements vscode.Disposable {
  /** The agent this folder runs (reins.defaultAgent, else the demonstration agent), or the one switched to. */
  chosen: ResolvedAgent | undefined;
  /** Why the last start failed before a session existed (not installed, sign-in): for sendPrompt. */
  startProblem: string | undefined;
  private runtimeValue: AgentRuntime | undefined;
  private startingValue: Promise<AgentRuntime | undefined> | undefined;
  /** What is tied to the current runtime, and dropped with it. */
  private perRuntime = new DisposableStore();
  /** The demonstration agent's notice was shown (it introduces itself once). */
  private demoIntroduced = false;

  constructor(private readonly host: FolderAgentHost) {
    this.chosen = resolveAgent(host.extension.extensionPath);
  }

  get runtime(): AgentRuntime | undefined {
    return this.runtimeValue;
  }
  /** A start in progress (a replacement waits for it: a runtime is not replaced half-made). */
  get starting(): Promise<AgentRuntime | undefined> | undefined {
    return this.startingValue;
  }

  /** The running agent, started (spawn, initialize, session/new) if need be. */
  ensure(): Promise<AgentRuntime | undefined> {
    const rt = this.runtimeValue;
    if (rt && rt.phase === 'ready') return Promise.resolve(rt);
    // The one gate for every way an agent starts (a prompt, the panel, restart, switch, a mode
    // or model picked, a restored panel): an agent runs tools on the checkout, so none starts
    // until the user trusts the folder.
    if (!vscode.workspace.isTrusted) {
      this.host.log.info(`${this.host.folder.name}: not starting an agent: the workspace is not trusted`);
      return Promise.resolve(undefined);
    }
    this.startingValue ??= this.start().finally(() => (this.startingValue = undefined));
    return this.startingValue;
  }

  private async start(): Promise<AgentRuntime | undefined> {
    if (!this.chosen) this.chosen = resolveAgent(this.host.extension.extensionPath);
    const agent = this.chosen;
    if (!agent) return undefined;
    this.drop();
    const prepared = await this.prepareLaunch();
    if (!prepared.ok) {
      // Found nowhere: say so with the install hint, before anything is spawned.
      this.startProblem = reportNotInstalled(agent.name, prepared, (...a) => this.host.say(...a));
      this.host.changed();
      return undefined;
    }
    const { AgentRuntime, StartError } = loadMachinery(); // loaded now, not at activation
    const rt = new AgentRuntime({
      name: agent.name,
      launch: prepared.launch,
      settings: runtimeSettings,
      quirks: makeQuirks(agent.entry),
      log: this.host.log,
      trace: traceLevel,
      maxLineBytes: maxLineBytes(),
      clientInfo: { name: 'reins', version: extensionVersion(this.host.extension.extension) },
      mcpServers: () => mcpServersSetting(this.host.log, (...a) => this.host.say(...a)),
      reopen: this.host.keeper.reopenFor(agent.name),
      // A queued prompt gets the checkpoint a typed one gets in FolderConversation.send.
      beforeQueuedTurn: () => this.host.undo.beforePrompt(),
      terminalLog: (terminalId, data) => this.host.outputFiles.terminal(terminalId, data),
    });
    this.runtimeValue = rt;
    this.wire(rt);
    try {
      await rt.start({ authenticate: this.host.signIn.takeAuthenticate() });
      this.startProblem = undefined;
      this.host.signIn.started();
      // Once per folder and window: a restart or a new session needs no second introduction.
      if (agent.demo && !this.demoIntroduced) {
        this.demoIntroduced = true;
        noticeDemoIntro(this.host.transcript);
      }
      return rt;
    } catch (error) {
      if (error instanceof StartError && isAuthRequired(error.failure)) {
        // session/new said auth_required: offer the agent's methods; nothing is authenticated yet.
        this.startProblem = this.host.signIn.offer('start', error.failure.authMethods, error.message.split('\n')[0]);
        return undefined;
      }
      const message = error instanceof StartError ? error.message : String(error);
      this.startProblem = `${agent.name} could not start: ${message.split('\n')[0]}`;
      noticeStartFailure(agent.name, message, (...a) => this.host.say(...a));
      return undefined;
    } finally {
      this.host.changed();
    }
  }

  private wire(rt: AgentRuntime): void {
    const d = this.perRuntime;
    d.add(this.host.admission.register(this.host.admissionPath, rt));
    if (this.host.checkoutAdmission) d.add(this.host.checkoutAdmission.follow(rt));
    d.add(this.host.keeper.attach(rt));
    d.add(rt.onDidChangeState(() => this.host.changed()));
    // Updates, prompts, cancelled tools, terminal output, permissions: straight into the transcript.
    d.add(feedTranscript(rt, this.host.transcript));
    // reins.followAgent: the editor opens the files the agent's tool calls name.
    d.add(followAgent(rt.session, this.host.folder, this.host.log));
    // fs/* size limits, each file the agent writes listed in this turn's "Files written" entry,
    // and open documents read and written in the editor.
    // The checkpoint saves each file before the agent's first write (outside git).
    d.add(watchFileAccess(rt, this.host.transcript, fileLimits, editorFiles, this.host.undo.beforeWrite));
    // MCP servers this agent cannot take (http or sse without the capability): said once.
    d.add(watchMcpSkips(rt, this.host.transcript));
    // After the feed: the permission's card is in the transcript when the panel is revealed.
    d.add(rt.turns.permissions.onRequest(() => this.host.needsAttention()));
    d.add(rt.turns.elicitations.onRequest(() => this.host.needsAttention()));
    // What the turn's end, a stop, leftovers and an exit mean to the user (agentNotices.ts).
    d.add(
      noticeAgentEvents(rt, {
        transcript: this.host.transcript,
        folderName: this.host.folder.name,
        signIn: this.host.signIn,
        say: (...a) => this.host.say(...a),
        // The turn that ended is the prompt in flight: its files go back with it.
        giveBack: (text, why) => this.host.giveBack(text, why),
        outOfStepRecovery: (agent) => this.outOfStepRecovery(agent),
        takeOutOfStep: (agent, text) => this.host.takeOutOfStep(agent, text),
        restartAgent: () => this.host.restart(),
      }),
    );
    // Offered first after a stop (after its notice): what the stopped turn changed, and the way back.
    d.add(rt.turns.onStop((r) => r.outcome !== 'abort-unverified' && !r.noop && void this.host.undo.offerAfterStop()));
  }

  /** What recovers this agent when it answers one turn behind (its settings entry, else measured per agent). */
  outOfStepRecovery(rt: AgentRuntime): OutOfStepRecovery {
    return outOfStepRecovery(rt.agentInfo?.agentInfo ?? undefined, this.chosen?.entry.outOfStepRecovery);
  }

  /** The runtime goes (replaced, or its start failed): what was tied to it, and its Reins actions in the transcript, go too. */
  drop(): void {
    retireAgentActions(this.host.transcript);
    this.perRuntime.dispose();
    // A store cannot be reused once disposed; take a new one for the next runtime.
    this.perRuntime = new DisposableStore();
    this.runtimeValue?.dispose();
    this.runtimeValue = undefined;
  }

  /** How the agent starts: its command as the login shell finds it, npx, stored sign-in values. */
  prepareLaunch(): Promise<PreparedLaunch> {
    const agent = this.chosen ?? resolveAgent(this.host.extension.extensionPath, DEMO_AGENT)!;
    return launchFor(agent, this.host.folder, this.host.extension, this.host.log);
  }

  dispose(): void {
    this.runtimeValue?.dispose();
    this.perRuntime.dispose();
  }
}
