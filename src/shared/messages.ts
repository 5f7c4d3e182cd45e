// The one module of messages between the extension host and the panel's webview.
// Both sides import it: the host through src/panel, the webview through media/webview.
// Nothing here may import `vscode` or the DOM: it is plain data.
import type { ElicitationFormView, FormInput } from './elicitationForm';
import type { UrlView } from './elicitationUrl';
//
// Protocol: the webview posts `ready` once its script has run; the host answers with
// `snapshot` (the whole state) and only then streams the incremental messages. A webview
// that is hidden and shown again (or reloaded) posts `ready` again and gets a new snapshot.
// A page may carry its first snapshot written in (src/panel/panelHtml.ts PageSnapshot): its
// `ready` names it, and the host answers with a snapshot only if anything changed since.

/** The turn's state as the user sees it; derived on the host from the turn machine. */
export type TurnPhase =
  | 'idle' // no turn: input enabled, no Stop
  | 'sending' // the prompt is being written / retried after a busy rejection
  | 'running' // the agent is working on the turn: Stop enabled
  | 'stopping' // the cancel-then-confirm routine is waiting for evidence
  | 'unverified'; // the last stop could not be confirmed: the folder is closed to new work

/** What the panel shows of the agent: the runtime's phase, or 'untrusted' before any can start. */
export type PanelAgentPhase = 'starting' | 'ready' | 'failed' | 'exited' | 'untrusted';

export interface PanelStatus {
  agentName: string;
  /** Shown beside the name, e.g. "demonstration: scripted agent, no model". */
  agentNote?: string;
  /** True when the agent is the offline scripted demonstration agent. */
  demo: boolean;
  folderName: string;
  agent: PanelAgentPhase;
  turn: TurnPhase;
  /** One line under the header: "Stopping… (cancel sent 1.2 s ago)", "Ready", errors. */
  detail?: string;
  /** Input accepted now (agent ready, folder admission open, no unverified stop). */
  canSend: boolean;
  /** Stop button visible and enabled. */
  canStop: boolean;
  /** The running turn waits for the user's answer to a permission request: "Waiting for you", not "Working". */
  permissionPending: boolean;
  /** What the running turn waits on the user for, if anything: a permission or an elicitation (a question or a link). */
  waitingOn?: 'permission' | 'elicitation';
  /** The session's mode, model, slash commands, title and usage (once a session exists). */
  session?: SessionView;
  /** Prompts waiting for the running turn to end by itself, in the order they go out. */
  queued: QueuedView[];
  /** The agent takes text into a running turn: Steer is offered. */
  canSteer: boolean;
  /** reins.whenBusy: what Enter does while a turn runs (`ask`: the panel offers the choices). */
  whenBusy: PanelWhenBusy;
  /** Prompts waiting, in the order they go, for another window's turn in this checkout; Stop gives them back. */
  checkoutWait?: CheckoutWaitView;
}

/** `holder`: the other window's agent waited for (absent while the prompt before them is still going). */
export interface CheckoutWaitView {
  holder?: string;
  prompts: QueuedView[];
}

/** The reins.whenBusy setting's values (api.ts's WHEN_BUSY_SETTING is this list). */
export type PanelWhenBusy = 'ask' | 'queue' | 'steer' | 'stopAndSend';
/** What the user chose for a prompt sent while a turn runs. */
export type BusyChoice = Exclude<PanelWhenBusy, 'ask'>;

/** A queued prompt: `id` is what editQueued and removeQueued name. */
export interface QueuedView {
  id: number;
  text: string;
}

/** Context window and cost, as the agent's last `usage_update` said. */
export interface SessionUsageView {
  used: number;
  size: number;
  cost?: { amount: number; currency: string };
}

/** What the agent said about the session (src/runtime/sessionConfig.ts builds it). */
export interface SessionView {
  /** From `session_info_update`. */
  title?: string;
  /** The current mode's name; `configId` is what `reins.setConfigOption` takes. */
  mode?: { configId: string; name: string };
  /** The current model's name (the config option of category `model`). */
  model?: { configId: string; name: string };
  /** From `available_commands_update`: slash-command completion in the composer. */
  commands: { name: string; description: string; hint?: string }[];
  usage?: SessionUsageView;
}

export type ToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface PermissionOptionView {
  optionId: string;
  name: string;
  kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
}

/** An action button that a notice or card may carry; the host runs the matching command. */
export type PanelAction =
  | 'openLog'
  | 'aboutStop'
  | 'checkAgain'
  | 'forceStop'
  | 'newSession'
  | 'selectAgent'
  | 'restartAgent'
  | 'endLeftovers'
  /** Undo This Turn's Changes (turnUndo.ts). */
  | 'undoTurn'
  | 'setMode'
  | 'selectModel'
  // Sign-in (auth/signIn.ts) and a command found nowhere (agents/prepare.ts).
  | 'signIn'
  | 'openSettings'
  | 'installAgent'
  | 'copyInstall'
  /** Manage Workspace Trust: an untrusted folder starts no agent. */
  | 'manageTrust'
  /** Open Folder: Reins needs one (a notification only: without a folder there is no panel). */
  | 'openFolder';

export type NoticeLevel = 'info' | 'warning' | 'error';

/**
 * A notice's button: the action the host runs, and its argument where the action takes one: the
 * agent for installAgent / copyInstall (the folder's agent when absent), the sign-in method for
 * signIn, the setting for openSettings. The host runs an action with an argument only if a notice
 * of the conversation offers exactly that button.
 */
export interface NoticeAction {
  action: PanelAction;
  label: string;
  arg?: string;
}

/**
 * Why a file the agent wrote deserves a look: writes need no approval, and these places change
 * what runs or how the editor behaves. `untracked`: an existing file that git does not track,
 * so the write cannot be seen in a diff or undone from git.
 */
export type FileMark = 'gitHook' | 'gitDir' | 'workspaceSettings' | 'editorConfig' | 'untracked';

/** One file the agent wrote through fs/write_text_file (several writes to one file: one row). */
export interface FileWriteView {
  /** Relative to the workspace folder, `/`-separated: where the bytes went (links resolved). */
  path: string;
  /** Size of the last write. */
  bytes: number;
  /** The first write of the turn created the file. */
  created: boolean;
  marks: FileMark[];
}

/** What a tool call's card shows of its terminal: untrusted text, shown as text only. */
export interface TerminalOutputView {
  text: string;
  /** Older output was dropped (the agent's outputByteLimit, or the panel's 32 KB). */
  truncated: boolean;
  /** How much was dropped, in UTF-8 bytes, when known: the card says so. */
  omittedBytes?: number;
  /** Set once the command exited: "exit code 0", "killed by SIGTERM". */
  exited?: string;
}

/**
 * A file edit a tool call proposes or made (`content` of type diff). The texts are the agent's,
 * untrusted; each is capped (`tooLarge`: dropped, the card offers only the file itself).
 */
export interface ToolDiffView {
  /** Absolute, as the agent gave it. */
  path: string;
  /** Undefined: a new file. */
  oldText?: string;
  newText: string;
  tooLarge?: boolean;
  /** ACP v2's `git_patch` section for this file (runtime/gitPatch.ts): the panel draws its hunks;
   *  `oldText` and `newText` are then only the hunks' lines. */
  patch?: string;
}

/** A place a tool call reads or changes (`locations`): a link that opens the file at the line. */
export interface ToolLocationView {
  /** Absolute, as the agent gave it. */
  path: string;
  /** 1-based. */
  line?: number;
}

/** A workspace file offered by the composer's `@` search. */
export interface FileMatch {
  /** Relative to its workspace folder, `/`-separated: what the user reads. */
  label: string;
  /** The file's URI: what `send` carries in `files`. */
  uri: string;
}

/**
 * One entry of the agent's plan. `stopped`: pending or in progress when its turn ended without the
 * agent finishing it (a confirmed stop, a failure): the panel's word, never the agent's (planItems.ts).
 * `cancelled`: the agent's own word (ACP v2).
 */
export interface PlanItem {
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | 'cancelled' | 'stopped';
  priority?: string;
}

/** Came after its turn was stopped and ended (lateUpdates.ts): shown in that turn's part, labelled late. */
interface Late {
  late?: true;
}

export type TranscriptEntry =
  | { kind: 'user'; id: string; text: string }
  | ({ kind: 'agent'; id: string; markdown: string } & Late)
  /** `seconds`: how long the agent thought (first to last chunk), once it moved on. */
  | ({ kind: 'thought'; id: string; markdown: string; seconds?: number } & Late)
  | ({
      kind: 'tool';
      id: string; // the ACP toolCallId
      title: string;
      toolKind?: string; // read, edit, execute, …
      status: ToolStatus;
      /** The tool's text output, its last OUTPUT_TAIL_CHARS (shared/toolOutput.ts); else what it was asked. */
      detail?: string;
      /** The whole output's length when `detail` is only its end: the card offers Open Full Output. */
      outputChars?: number;
      /** Live output of the terminals embedded in the tool call (`content` of type terminal): their last 32 KB. */
      terminal?: TerminalOutputView;
      /** The edits it proposes or made: shown as a line diff, with Open Diff. */
      diffs?: ToolDiffView[];
      /** Files (and lines) it reads or changes. */
      locations?: ToolLocationView[];
    } & Late)
  | {
      kind: 'permission';
      id: string; // our request id
      title: string;
      options: PermissionOptionView[];
      /** Set once answered: the chosen option's name, or "cancelled". */
      resolved?: string;
      /** The tool call it asks about: the panel shows the request inside that card. */
      toolCallId?: string;
      /** ACP v2: `title` is the request's own question (shown inside the card too), with this supporting text. */
      question?: true;
      description?: string;
      /** ACP v2: the command it asks to run (the agent runs it, never Reins), and where. */
      command?: { command: string; cwd: string };
    }
  | ElicitationEntry
  /** Every file the agent wrote since the prompt: one entry per turn, growing as it writes. */
  | { kind: 'files'; id: string; files: FileWriteView[] }
  | ({ kind: 'plan'; id: string; items: PlanItem[] } & Late)
  | {
      kind: 'notice';
      id: string;
      level: NoticeLevel;
      text: string;
      actions?: NoticeAction[];
    };

/** A prompt given back to the input box, with the files the user had attached to it (their chips). */
export interface GivenBack {
  text: string;
  files?: FileMatch[];
}

export type HostToWebview =
  /** `folder`: the workspace folder the panel shows (the webview keeps it for a window reload). */
  /** `host`: this extension host's id: a queue the webview saw under another one was lost to a reload (its text goes back to the box). */
  /** `earlier`: entries before these that the webview asks for in pages (`earlier`), newest first (src/panel/transcriptPages.ts). */
  | {
      type: 'snapshot';
      status: PanelStatus;
      entries: TranscriptEntry[];
      earlier?: number;
      input?: GivenBack;
      folder?: string;
      carried?: CarriedState;
      host?: string;
      /** A session/load's replay runs: this is not the conversation's place yet (the replay's end snapshot is). */
      replaying?: true;
      /** The end of a replay: the reader stays where they were (measured from the end), not taken to it. */
      keepPlace?: true;
    }
  /** The page of entries just before `before` (the webview's first); `earlier`: how many are still before these. */
  | { type: 'earlier'; before: string; entries: TranscriptEntry[]; earlier: number }
  | { type: 'status'; status: PanelStatus }
  /** Add an entry, or replace the entry with the same id (tool updates, permission resolved).
   *  `before`: a new entry goes before that one (a stopped turn's late update), not at the end. */
  | { type: 'upsert'; entry: TranscriptEntry; before?: string }
  /** Append streamed text to an agent or thought entry (created empty by an upsert first). */
  | { type: 'append'; id: string; text: string }
  /** A tool card's text output went on by `text`; `total`: the whole output's length (the card keeps its tail). */
  | { type: 'output'; id: string; text: string; total: number }
  /** Put text back into the input box: a prompt that did not reach a running turn, with its files. */
  | ({ type: 'restoreInput' } & GivenBack)
  /** Move focus to the input box. */
  | { type: 'focusInput' }
  /**
   * Find in Conversation chose entry `id`: the panel brings its page in if it must, scrolls it into
   * view and marks the first match of `query` in it (conversation/findInConversation.ts).
   */
  | { type: 'showEntry'; id: string; query: string }
  /** The answer to `searchFiles` with the same `requestId`. */
  | { type: 'fileMatches'; requestId: number; files: FileMatch[] }
  /**
   * What one flush of the host's outbox carries, in order (src/panel/outbox.ts): the webview
   * applies it in one task, so what changed together is drawn in one frame. A stop's notice and
   * the status that ends the stop came as two messages, and a frame between them showed both
   * "Stopped — the agent confirmed" and "Stopping… waiting for the agent to confirm".
   */
  | { type: 'batch'; messages: HostToWebview[] };

export type WebviewToHost =
  /** `first`: the id of the snapshot written into this document's page, which it has drawn (panelHtml.ts PageSnapshot). */
  | { type: 'ready'; first?: string }
  /** The page before `before` (the first entry the webview holds): answered by `earlier`. */
  | { type: 'earlier'; before: string }
  /**
   * The webview let go of every entry before `first` (now its first; media/webview/pageWindow.ts
   * says when): their updates are no longer wanted, and they come again in pages.
   */
  | { type: 'dropped'; first: string }
  /** `files`: URIs the user attached with `@` (FileMatch.uri). `whenBusy`: what to do if a turn runs (default: reins.whenBusy). */
  | { type: 'send'; text: string; files?: string[]; whenBusy?: BusyChoice }
  /** New text for a queued prompt. */
  | { type: 'editQueued'; id: number; text: string }
  /** A queued prompt removed: it is not sent. */
  | { type: 'removeQueued'; id: number }
  | { type: 'stop' } // the Stop button or Escape in the panel
  | { type: 'permission'; requestId: string; optionId: string }
  /** An elicitation's Submit (`accept`, the form's `input`), Decline, or Escape/close (`cancel`); a URL's `accept` is consent to open it. */
  | { type: 'elicitation'; requestId: string; action: 'accept' | 'decline' | 'cancel'; input?: FormInput }
  /** A notice's or the header's button; `arg`: the notice action's (NoticeAction). */
  | { type: 'action'; action: PanelAction; arg?: string }
  /** The draft or scroll position changed (as saved in the webview state): the host carries it when the conversation moves. */
  | { type: 'uiState'; draft: string; scroll?: CarriedState['scroll'] }
  /** Open Diff on a tool card: the card's `diffs[index]` in VS Code's diff editor. */
  | { type: 'openDiff'; toolCallId: string; index: number }
  /** Open Full Output on a tool card: its whole output (text and terminals) in editors. */
  | { type: 'openFullOutput'; toolCallId: string }
  /** A tool location (or a diff's file) clicked: the file in an editor, at the line. */
  | { type: 'openLocation'; path: string; line?: number }
  /** The composer's `@`: workspace files matching `query` (answered by `fileMatches`). */
  | { type: 'searchFiles'; requestId: number; query: string }
  /** A link in agent text was clicked: the host checks it and opens it with `vscode.env.openExternal`. */
  | { type: 'openLink'; href: string };

/**
 * What the user had in the webview when the conversation moved between the editor tab and the
 * Reins view: a snapshot's `carried` replaces the new document's draft and scroll position.
 */
export interface CarriedState {
  draft: string;
  /**
   * `fraction`: top / scrollable height, the same place in a document of another width.
   * `fromEnd`: px from the end, the same place in a document that holds fewer older entries (a
   * new document gets the newest page first: transcriptPages.ts).
   */
  scroll?: { top: number; following: boolean; fraction?: number; fromEnd?: number };
}

/**
 * The agent asks the user (ACP elicitation): a form, or consent to open a URL. `id` is our
 * request id; shown inside the card of `toolCallId` when it has one.
 */
export interface ElicitationEntry {
  kind: 'elicitation';
  id: string;
  agentName: string;
  message: string;
  mode: 'form' | 'url';
  form?: ElicitationFormView;
  url?: UrlView;
  toolCallId?: string;
  /** Asked outside any session (request-scoped). */
  outsideSession?: true;
  /** Set once answered: what the user did, or how it ended without them. */
  resolved?: string;
  /** URL mode: the agent said the interaction finished (elicitation/complete). */
  completed?: true;
}

/** The exhaustiveness check that ends every `switch` on these unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected message: ${JSON.stringify(value)}`);
}
