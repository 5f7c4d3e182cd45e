// Undo This Turn's Changes: a checkpoint of the folder before each prompt (undo/checkpoint/),
// and, after a turn (offered first after a stop), what changed since it shown in VS Code's diff
// view per file and restored on confirmation. Never while a turn runs or a stop is unverified
// (the folder admission), and never over edits the user made by hand without naming them.
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { askModal } from '../ui/notify';
import type { UndoResult } from '../api';
import type { Transcript } from '../runtime/transcript';
import { HandEdits } from './handEdits';
import { diffDocument, editorColumn } from '../editor/editorLinks';
import type { NoticeAction, NoticeLevel } from '../shared/messages';
import { type Checkpoint, type FileChange } from './checkpoint/checkpoint';
import { takeCheckpoint } from './checkpoint/takeCheckpoint';
import { undoBlocked, undoConfirmation, undoneText, type ShownChange, type UndoAdmission } from './checkpoint/undoText';

/** Diff tabs opened at most; the dialog names every file. */
const MAX_DIFFS = 10;
export const UNDO_LABEL = "Undo This Turn's Changes";

export interface UndoHost {
  readonly folder: vscode.WorkspaceFolder;
  readonly log: vscode.LogOutputChannel;
  /** The folder's turn and gate, read when the undo starts and again before it writes. */
  admission(): Promise<UndoAdmission>;
  readonly transcript: Transcript;
  /** The undo's answers: in the conversation while it is in sight, else a notification too (answers.ts). */
  say(level: NoticeLevel, text: string, actions?: NoticeAction[]): void;
}

export class TurnUndo implements vscode.Disposable {
  private checkpoint: Checkpoint | undefined;
  /** Why the last checkpoint could not be taken. */
  private failure: string | undefined;
  private readonly handEdits: HandEdits;

  constructor(private readonly host: UndoHost) {
    this.handEdits = new HandEdits(host.folder.uri.fsPath);
  }

  /** Before each prompt: the checkpoint the turn's changes are measured from (awaited: the agent writes only after). */
  async beforePrompt(): Promise<void> {
    const started = Date.now();
    this.retireOffers(); // their checkpoint is about to be replaced
    this.checkpoint = undefined;
    this.handEdits.reset();
    try {
      this.checkpoint = await takeCheckpoint(this.host.folder.uri.fsPath, (m) => this.host.log.debug(m));
      this.failure = undefined;
      this.host.log.info(`${this.host.folder.name}: ${this.checkpoint.kind} checkpoint taken in ${Date.now() - started} ms`);
    } catch (error) {
      // The prompt still goes: a checkpoint is a convenience, and the user is told at undo.
      this.failure = (error as Error).message;
      this.host.log.warn(`${this.host.folder.name}: no checkpoint before this prompt: ${this.failure}`);
    }
  }

  /** fs/write_text_file is about to write `real`: a files checkpoint saves it first. */
  readonly beforeWrite = async (real: string): Promise<void> => {
    await this.checkpoint?.beforeWrite(real);
  };

  /** The files changed since the checkpoint (none without one). */
  async changes(): Promise<FileChange[]> {
    return (await this.checkpoint?.changes()) ?? [];
  }

  /** What changed since the last prompt's checkpoint, and which kind it is (a files checkpoint misses tools' writes); undefined without one. */
  async changedSince(): Promise<{ kind: Checkpoint['kind']; changed: string[] } | undefined> {
    const checkpoint = this.checkpoint;
    return checkpoint && { kind: checkpoint.kind, changed: (await checkpoint.changes()).map((c) => c.relative) };
  }

  /** After a stop: say what the stopped turn changed, with the button, first among the choices. */
  async offerAfterStop(): Promise<void> {
    const changes = await this.changes().catch(() => []);
    if (changes.length === 0) return;
    this.host.transcript.notice('info', `The stopped turn changed ${changes.length} file${changes.length === 1 ? '' : 's'} in ${this.host.folder.name}.`, [
      { action: 'undoTurn', label: UNDO_LABEL },
    ]);
  }

  async undo(): Promise<UndoResult> {
    const refused = (reason: string): UndoResult => {
      this.host.say('warning', `Not undone: ${reason}`);
      return { status: 'refused', reason };
    };
    const nothing = (reason: string): UndoResult => {
      this.host.say('info', `Nothing to undo: ${reason}.`);
      return { status: 'nothing', reason };
    };
    const blocked = undoBlocked(await this.host.admission());
    if (blocked) return refused(blocked);
    const checkpoint = this.checkpoint;
    if (!checkpoint) {
      return nothing(this.failure ? `there is no checkpoint of the last prompt (${this.failure})` : 'no prompt has been sent here yet');
    }
    const changes = await checkpoint.changes();
    if (changes.length === 0) return nothing('no file changed since your last prompt');
    // Unsaved edits would be overwritten on disk under the editor: saved or reverted first, by the user.
    const unsaved = vscode.workspace.textDocuments.filter((d) => d.isDirty && changes.some((c) => sameFile(c.path, d.uri.fsPath)));
    if (unsaved.length > 0) {
      return refused(
        `${unsaved.map((d) => vscode.workspace.asRelativePath(d.uri, false)).join(', ')} ha${unsaved.length === 1 ? 's' : 've'} unsaved edits. Save or revert first, then undo.`,
      );
    }
    const shown: ShownChange[] = changes.map((c) => ({ ...c, handEdited: this.handEdits.has(c.path) }));
    await this.showDiffs(checkpoint, shown);
    const { message, detail } = undoConfirmation(this.host.folder.name, checkpoint.kind, shown);
    const keepMine = shown.some((c) => c.handEdited) ? ['Keep My Files'] : [];
    const choice = await askModal(message, { detail }, 'Undo Changes', ...keepMine);
    if (choice !== 'Undo Changes' && choice !== 'Keep My Files') return { status: 'cancelled' };
    // The dialog waited for the user: a turn may have begun meanwhile.
    const late = undoBlocked(await this.host.admission());
    if (late) return refused(late);
    const restore = choice === 'Keep My Files' ? shown.filter((c) => !c.handEdited) : shown;
    await checkpoint.restore(restore);
    const files = restore.map((c) => c.relative);
    this.host.log.info(`${this.host.folder.name}: undid the last turn's changes (${files.length} files): ${files.join(', ')}`);
    this.host.say('info', undoneText(restore, shown.length - restore.length));
    return { status: 'undone', files, handEdited: restore.filter((c) => c.handEdited).map((c) => c.relative) };
  }

  /** The Undo buttons of earlier notices: they would act on the next checkpoint, not theirs. */
  private retireOffers(): void {
    for (const entry of this.host.transcript.entries) {
      if (entry.kind !== 'notice' || !entry.actions?.some((a) => a.action === 'undoTurn')) continue;
      const actions = entry.actions.filter((a) => a.action !== 'undoTurn');
      this.host.transcript.upsert({ ...entry, actions: actions.length > 0 ? actions : undefined });
    }
  }

  /** VS Code's diff view per file: the checkpoint's text against the file now. */
  private async showDiffs(checkpoint: Checkpoint, changes: readonly ShownChange[]): Promise<void> {
    for (const change of changes.slice(0, MAX_DIFFS)) {
      try {
        const before = (await checkpoint.original(change))?.toString('utf8') ?? '';
        const left = diffDocument(change.path, 'checkpoint', before);
        const right = change.status === 'deleted' ? diffDocument(change.path, 'deleted', '') : vscode.Uri.file(change.path);
        const title = `${change.relative} (before the turn ↔ ${change.status === 'deleted' ? 'deleted' : 'now'})`;
        // Beside a conversation in an editor tab, never over it: its answer to the undo is said there.
        await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false, preserveFocus: true, viewColumn: editorColumn() });
      } catch (error) {
        this.host.log.warn(`undo: could not show the diff of ${change.relative}: ${(error as Error).message}`);
      }
    }
  }

  dispose(): void {
    this.handEdits.dispose();
    this.checkpoint = undefined;
  }
}

/** A checkpoint's real path and an editor's path name the same file. */
function sameFile(real: string, fsPath: string): boolean {
  if (path.resolve(real) === path.resolve(fsPath)) return true;
  try {
    return realpathSync(fsPath) === real;
  } catch {
    return false;
  }
}
