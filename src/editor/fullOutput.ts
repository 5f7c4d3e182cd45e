// Open Full Output: a tool card shows its output's end only (shared/toolOutput.ts); the whole of
// it is in the log files of runtime/outputLog.ts, opened here in editors as they are on disk.
// VS Code reads a large file without tokenizing it, and the panel stays as it was.
import * as vscode from 'vscode';

/** Opens each file in an editor beside the panel (the last one focused); false: there was none. */
export async function openFullOutput(files: readonly string[]): Promise<boolean> {
  if (files.length === 0) return false;
  for (const file of files) {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(document, { preview: false, viewColumn: vscode.ViewColumn.Active });
  }
  return true;
}
