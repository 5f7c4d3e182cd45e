// The webview's requests that reach into the editor rather than the conversation: Open Diff
// on a tool card, a location clicked, the composer's `@` file search. Failures are logged and
// said where the user can act; a search that fails answers no files.
import * as vscode from 'vscode';
import type { PanelConversation } from './panelConversation';
import type { HostToWebview, WebviewToHost } from '../shared/messages';
import { openLocation, openToolDiff } from '../editor/editorLinks';
import { openFullOutput } from '../editor/fullOutput';
import { FileSearch } from '../editor/fileSearch';

export type EditorRequest = Extract<WebviewToHost, { type: 'openDiff' | 'openFullOutput' | 'openLocation' | 'searchFiles' }>;

const searches = new WeakMap<PanelConversation, FileSearch>();

export function handleEditorRequest(
  m: EditorRequest,
  conversation: PanelConversation,
  reply: (message: HostToWebview) => void,
  log: vscode.LogOutputChannel,
): void {
  switch (m.type) {
    case 'openDiff': {
      const entry = conversation.transcript.get(m.toolCallId);
      const diff = entry?.kind === 'tool' ? entry.diffs?.[m.index] : undefined;
      if (!diff) return void log.warn(`Open Diff: tool call ${m.toolCallId} has no diff ${m.index}`);
      openToolDiff(diff, conversation.folder).catch((err: unknown) => {
        log.error(`Open Diff ${diff.path}: ${String(err)}`);
        conversation.say('error', `Could not open the diff of ${diff.path}: ${err instanceof Error ? err.message : String(err)}`);
      });
      return;
    }
    case 'openFullOutput':
      openFullOutput(conversation.fullOutputFiles(m.toolCallId)).then(
        (opened) => opened || conversation.say('warning', 'The full output of this tool call is no longer kept (a new session, or a window reload).'),
        (err: unknown) => {
          log.error(`Open Full Output ${m.toolCallId}: ${String(err)}`);
          conversation.say('error', `Could not open the full output: ${err instanceof Error ? err.message : String(err)}`);
        },
      );
      return;
    case 'openLocation':
      if (!m.path) return;
      openLocation({ path: m.path, line: m.line }, conversation.folder).catch((err: unknown) => {
        log.warn(`open location: ${String(err)}`);
        conversation.say('warning', err instanceof Error ? err.message : String(err));
      });
      return;
    case 'searchFiles': {
      let search = searches.get(conversation);
      if (!search) searches.set(conversation, (search = new FileSearch(conversation.folder)));
      search.search(m.query).then(
        (files) => reply({ type: 'fileMatches', requestId: m.requestId, files }),
        (err: unknown) => {
          log.warn(`@ file search: ${String(err)}`);
          reply({ type: 'fileMatches', requestId: m.requestId, files: [] });
        },
      );
      return;
    }
  }
}
