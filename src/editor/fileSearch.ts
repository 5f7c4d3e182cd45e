// The composer's `@`: workspace files of the panel's folder that match what the user typed.
// The list comes from workspace.findFiles (files.exclude and search.exclude apply, as in Quick
// Open), cached for a few seconds: a query is sent on each keystroke.
import * as vscode from 'vscode';
import type { FileMatch } from '../shared/messages';
import { rankFiles } from '../util/fileRank';

/** Files listed per folder at most: enough for Quick Open-like picking, bounded for huge trees. */
const MAX_LISTED = 20_000;
const FRESH_MS = 5_000;

export class FileSearch {
  private listed: { at: number; files: Promise<Map<string, vscode.Uri>> } | undefined;

  constructor(private readonly folder: vscode.WorkspaceFolder) {}

  async search(query: string): Promise<FileMatch[]> {
    const files = await this.files();
    return rankFiles(query, [...files.keys()]).map((label) => ({ label, uri: files.get(label)!.toString() }));
  }

  private files(): Promise<Map<string, vscode.Uri>> {
    if (!this.listed || Date.now() - this.listed.at > FRESH_MS) {
      const files = Promise.resolve(vscode.workspace.findFiles(new vscode.RelativePattern(this.folder, '**/*'), undefined, MAX_LISTED)).then((uris) => {
        const byLabel = new Map<string, vscode.Uri>();
        for (const uri of uris) byLabel.set(fileLabel(this.folder, uri), uri);
        return byLabel;
      });
      this.listed = { at: Date.now(), files };
      return files;
    }
    return this.listed.files;
  }
}

/** What the user reads for `uri`: its path relative to `folder`, `/`-separated (else its whole path). */
function fileLabel(folder: vscode.WorkspaceFolder, uri: vscode.Uri): string {
  const root = folder.uri.path.replace(/\/$/, '');
  return uri.path.startsWith(`${root}/`) ? uri.path.slice(root.length + 1) : uri.path;
}

/** An attached file given back to the input box (its chip), from the URI that `send` carried. */
export function fileMatch(folder: vscode.WorkspaceFolder, uri: string): FileMatch {
  const parsed = /^[a-z][\w+.-]*:/i.test(uri) ? vscode.Uri.parse(uri) : vscode.Uri.file(uri);
  return { label: fileLabel(folder, parsed), uri };
}
