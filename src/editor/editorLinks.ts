// Links from the panel into the editor: a tool location opens its file at the line, Open Diff
// shows a tool call's edit in VS Code's diff editor, and (with reins.followAgent on) the editor
// follows the files the agent reads. The diff's old text is the tool call's own, served as a
// read-only virtual document; the right side is the file itself once it holds the new text,
// else the proposed text, read-only too.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import type { ToolDiffView, ToolLocationView } from '../shared/messages';
import type { Disposable } from '../util/disposable';
import { patchSides } from './patchSides';

const SCHEME = 'reins-diff';
/** Texts kept for diff documents VS Code may ask for again (a reopened tab); the oldest go first. */
const KEPT = 50;

/** The `reins-diff:` documents: texts by URI, read-only (a content provider has no save). */
class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private seq = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** A document holding `text`, named after `file` (so the editor picks its language). */
  add(file: string, label: string, text: string): vscode.Uri {
    // The counter in the path keeps two edits of one file apart; the file name stays last.
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${++this.seq}/${label}/${path.basename(file)}` });
    this.texts.set(uri.toString(), text);
    if (this.texts.size > KEPT) this.texts.delete(this.texts.keys().next().value!);
    return uri;
  }

  /** The tool call's edit in the diff editor: its old text against the file, or the proposed text. */
  async open(given: ToolDiffView, folder: vscode.WorkspaceFolder): Promise<void> {
    const file = resolveIn(folder, given.path);
    const current = await readText(file);
    if (given.tooLarge) return void (await showAt(file, undefined));
    // An ACP v2 patch holds only its hunks: the whole file on both sides where it applies.
    const sides = given.patch === undefined ? undefined : patchSides(given.patch, current);
    const diff = sides ? { ...given, ...sides, oldText: given.oldText === undefined ? undefined : sides.oldText } : given;
    const left = this.add(diff.path, 'before', diff.oldText ?? '');
    // The edit is on disk: compare with the file itself (editable, as the user expects); else
    // what the agent proposes (a pending permission, a rejected edit).
    const right = current === diff.newText ? file : this.add(diff.path, 'proposed', diff.newText);
    const name = vscode.workspace.asRelativePath(file, false);
    const title = `${name} (${diff.oldText === undefined ? 'new file' : 'before'} ↔ ${right === file ? 'now' : 'proposed'})`;
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true, viewColumn: editorColumn() });
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}

let documents: DiffDocuments | undefined;

/** The window's diff documents; extension.ts owns the registration (disposing it ends them). */
export function registerDiffDocuments(): vscode.Disposable {
  const made = new DiffDocuments();
  documents = made;
  return {
    dispose: () => {
      if (documents === made) documents = undefined;
      made.dispose();
    },
  };
}

/** Open Diff on a tool card. */
export async function openToolDiff(diff: ToolDiffView, folder: vscode.WorkspaceFolder): Promise<void> {
  if (!documents) throw new Error('Reins is not active');
  await documents.open(diff, folder);
}

/** A read-only document holding `text`, named after `file` (Undo This Turn's Changes shows a checkpoint's text in one). */
export function diffDocument(file: string, label: string, text: string): vscode.Uri {
  if (!documents) throw new Error('Reins is not active');
  return documents.add(file, label, text);
}

/** A tool location clicked: the file in an editor beside the panel, the line revealed. */
export async function openLocation(location: ToolLocationView, folder: vscode.WorkspaceFolder, preserveFocus = false): Promise<void> {
  await showAt(resolveIn(folder, location.path), location.line, preserveFocus);
}

/**
 * With reins.followAgent on, each tool call that names locations opens the last one, without
 * taking focus from the panel. The returned disposable stops following.
 */
export function followAgent(
  source: { onUpdate(listener: (n: SessionNotification) => void): Disposable },
  folder: vscode.WorkspaceFolder,
  log: vscode.LogOutputChannel,
): Disposable {
  return source.onUpdate((n) => {
    const u = n.update;
    if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') return;
    const last = u.locations?.at(-1);
    if (!last) return;
    if (!vscode.workspace.getConfiguration('reins').get<boolean>('followAgent', false)) return;
    openLocation({ path: last.path, line: last.line ?? undefined }, folder, true).catch((err: unknown) => log.debug(`follow: ${last.path}: ${String(err)}`));
  });
}

/** Agents give absolute paths; a relative one is taken inside the folder. */
function resolveIn(folder: vscode.WorkspaceFolder, file: string): vscode.Uri {
  return path.isAbsolute(file) ? vscode.Uri.file(file) : vscode.Uri.joinPath(folder.uri, file);
}

async function readText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined; // not there (a new file not yet written)
  }
}

/** Rejects with "Cannot open <path>: <why>": the caller says it where the user looks (or logs it). */
async function showAt(uri: vscode.Uri, line: number | undefined, preserveFocus = false): Promise<void> {
  const at = line !== undefined ? new vscode.Position(Math.max(0, line - 1), 0) : undefined;
  try {
    await vscode.window.showTextDocument(uri, {
      preview: true,
      preserveFocus,
      viewColumn: editorColumn(),
      ...(at && { selection: new vscode.Range(at, at) }),
    });
  } catch (err) {
    throw new Error(`Cannot open ${vscode.workspace.asRelativePath(uri, false)}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A group that does not hold the Reins panel (so a file or a diff never covers it), else beside it. */
export function editorColumn(): vscode.ViewColumn {
  const groups = vscode.window.tabGroups.all;
  const holdsPanel = (g: vscode.TabGroup) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('reins.panel'));
  const other = groups.find((g) => !holdsPanel(g));
  return other?.viewColumn ?? vscode.ViewColumn.Beside;
}
