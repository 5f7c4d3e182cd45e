// What a panel needs of the conversation it shows. The panel is a layer below conversation/
// (ARCHITECTURE.md: the layers): it names what it uses here, FolderConversation has it, and the
// window's Conversations hand each panel its conversation.
import type * as vscode from 'vscode';
import type { SendResult, StopResult, WhenBusy } from '../api';
import type { AgentRuntime } from '../runtime/agentRuntime';
import type { Transcript } from '../runtime/transcript';
import type { StopCause } from '../runtime/turnMachine';
import type { InputReturn } from './inputReturn';
import type { NoticeAction, NoticeLevel, PanelStatus } from '../shared/messages';

export interface PanelConversation {
  /** The folder's key (its URI), the panel's identity across moves and reloads. */
  readonly key: string;
  readonly folder: vscode.WorkspaceFolder;
  readonly agentName: string;
  readonly log: vscode.LogOutputChannel;
  readonly transcript: Transcript;
  /** Text that did not reach a turn, given back to the input box. */
  readonly input: InputReturn;
  readonly runtime: AgentRuntime | undefined;
  /** The status changed (the panel posts it). */
  readonly onDidChange: vscode.Event<void>;
  /** Something needs the user: the panel comes into sight. */
  readonly onNeedsAttention: vscode.Event<void>;
  status(): PanelStatus;
  send(text: string, whenBusy: WhenBusy, files?: string[]): Promise<SendResult>;
  stop(cause: StopCause): Promise<StopResult>;
  returnInput(text: string, why: string): void;
  /** The files that hold tool card `id`'s whole output (Open Full Output); none once it is not kept. */
  fullOutputFiles(id: string): string[];
  /** Tell the user: in this conversation while it is in sight, else a notification too (conversation/answers.ts). */
  say(level: NoticeLevel, text: string, actions?: NoticeAction[]): string | undefined;
}
