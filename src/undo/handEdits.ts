// Which files the user edited by hand in the editor since the last checkpoint, so that Undo This
// Turn's Changes names them before it takes their edits back too. A change counts as the user's
// when it leaves the document dirty (typing, paste, undo), and so does a save: a reload from disk
// (the agent's own tools writing the file) leaves it clean and saves nothing, and the agent's
// fs/write_text_file through the editor (an edit and a save) is marked by openDocuments.ts.
import { realpathSync } from 'node:fs';
import * as vscode from 'vscode';
import { agentEditing } from '../editor/openDocuments';
import { isInside } from './checkpoint/paths';

export class HandEdits implements vscode.Disposable {
  private readonly edited = new Set<string>();
  private readonly listeners: vscode.Disposable[];

  constructor(private readonly folder: string) {
    const note = (document: vscode.TextDocument) => {
      if (document.uri.scheme !== 'file' || agentEditing.has(document.uri.toString()) || !isInside(this.folder, document.uri.fsPath)) return;
      this.edited.add(document.uri.fsPath);
    };
    this.listeners = [
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length === 0 || agentEditing.has(e.document.uri.toString())) return;
        // Dirty now, or once the editor has caught up (its dirty state may follow the change).
        if (e.document.isDirty) note(e.document);
        else setTimeout(() => e.document.isDirty && note(e.document), 0);
      }),
      // A save the agent's write did not make (openDocuments.ts marks those): the user's.
      vscode.workspace.onDidSaveTextDocument(note),
    ];
  }

  /** A new checkpoint: edits before it are in it. */
  reset(): void {
    this.edited.clear();
  }

  /** Edited by hand since the checkpoint (`real`: the file's real path, as checkpoints name it). */
  has(real: string): boolean {
    for (const file of this.edited) if (file === real || safeRealpath(file) === real) return true;
    return false;
  }

  dispose(): void {
    for (const listener of this.listeners) listener.dispose();
    this.edited.clear();
  }
}

function safeRealpath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}
