// The editor's side of fs/read_text_file and fs/write_text_file (the core, src/acp/clientMethods/fs.ts,
// has no vscode): a file open in VS Code is read from its document, unsaved edits included, and
// written through a WorkspaceEdit, so that the editor shows the change and Undo reverts it.
//
// A write is then saved: the file on disk is what the agent wrote (its tools, a build, git see
// it), and Undo still reverts the edit in the editor (the document is dirty again until saved).
// Saving runs the save participants the user configured (format on save, code actions on save),
// as a save by hand would. The document is found by real path, the one the path checks allowed,
// so a document opened through a link is the same file, and one outside the folder never is.
import { promises as fsp } from 'node:fs';
import * as vscode from 'vscode';
import type { OpenDocuments } from '../acp/clientMethods/fs';

/** Documents Reins is writing for the agent right now (by URI): their changes are not the user's (handEdits.ts). */
export const agentEditing = new Set<string>();

export const editorFiles: OpenDocuments = {
  async text(real) {
    return (await openDocument(real))?.getText();
  },

  async replace(real, content) {
    const document = await openDocument(real);
    if (!document) return false;
    const key = document.uri.toString();
    agentEditing.add(key);
    try {
      if (document.getText() !== content) {
        const edit = new vscode.WorkspaceEdit();
        edit.replace(document.uri, document.validateRange(new vscode.Range(0, 0, document.lineCount, 0)), content);
        if (!(await vscode.workspace.applyEdit(edit))) throw new Error('the editor refused the edit (is the document read-only?)');
      }
      if (document.isDirty && !(await document.save())) throw new Error('the edit was made in the editor, but the document could not be saved');
    } finally {
      agentEditing.delete(key);
    }
    return true;
  },
};

/** The open document whose file's real path is `real`: by its path first, then by resolving each open file's path. */
async function openDocument(real: string): Promise<vscode.TextDocument | undefined> {
  const documents = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && !d.isClosed);
  const direct = documents.find((d) => d.uri.fsPath === real);
  if (direct) return direct;
  for (const document of documents) {
    // A document opened through a link, or by a path in another case on a case-insensitive disk.
    const resolved = await fsp.realpath(document.uri.fsPath).catch(() => undefined);
    if (resolved === real) return document;
  }
  return undefined;
}
