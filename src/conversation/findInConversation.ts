// Reins: Find in Conversation… (`reins.findInConversation`, the search button in the panel's
// title): a quick pick over the whole conversation, newest first. The panel holds only the end of
// a long one and what the reader scrolled to (media/webview/pageWindow.ts), so VS Code's Find in
// the panel reaches only that; this searches the transcript itself (runtime/transcriptSearch.ts),
// and the entry chosen is shown in the panel, brought in page by page if it is older, its match
// marked.
import * as vscode from 'vscode';
import { searchTranscript, type Found } from '../runtime/transcriptSearch';
import type { TranscriptEntry } from '../shared/messages';
import { NEEDS_FOLDER, type Conversations } from './conversations';
import type { FolderConversation } from './folderConversation';
import type { PanelHost } from '../panel/panelHost';

/** Matches listed at most (the newest): a word found in every entry of four hours would list thousands. */
const LIMIT = 200;
/** Typing pauses this long before the conversation is searched again. */
const DEBOUNCE_MS = 120;
/** How long a view being resolved may take to get its panel before the choice is given up. */
const PANEL_WAIT_MS = 5_000;

interface Item extends vscode.QuickPickItem {
  found: Found;
}

const ICONS: Record<TranscriptEntry['kind'], string> = {
  user: 'account',
  agent: 'comment-discussion',
  thought: 'lightbulb',
  tool: 'tools',
  permission: 'shield',
  elicitation: 'question',
  files: 'files',
  plan: 'checklist',
  notice: 'info',
};

/** Who said it or what it is: the item's label (the match itself is its detail). */
function who(found: Found, agentName: string): string {
  switch (found.kind) {
    case 'user':
      return 'You';
    case 'agent':
      return agentName;
    case 'thought':
      return `${agentName}, thinking`;
    case 'tool':
      return 'Tool call';
    case 'permission':
      return 'Permission';
    case 'elicitation':
      return 'Question';
    case 'files':
      return 'Files written';
    case 'plan':
      return 'Plan';
    case 'notice':
      return 'Reins';
  }
}

/** Where it is: in the last turn, or how many prompts back. */
function when(promptsAfter: number): string {
  return promptsAfter === 0 ? 'this turn' : promptsAfter === 1 ? '1 prompt ago' : `${promptsAfter} prompts ago`;
}

export function registerFindInConversation(reins: Conversations): vscode.Disposable {
  return vscode.commands.registerCommand('reins.findInConversation', async (query?: unknown) => {
    const conversation = reins.conversation();
    if (!conversation) return reins.say(undefined, 'info', NEEDS_FOLDER, [{ action: 'openFolder', label: 'Open Folder' }]);
    const chosen = await pick(conversation, typeof query === 'string' ? query : '');
    if (chosen) await show(reins, conversation, chosen.found.id, chosen.query);
  });
}

/** The quick pick: the matches of what is typed, searched again after each pause. */
function pick(conversation: FolderConversation, initial: string): Promise<{ found: Found; query: string } | undefined> {
  const transcript = conversation.transcript;
  const input = vscode.window.createQuickPick<Item>();
  input.title = `Find in Conversation with ${conversation.agentName}`;
  input.placeholder = transcript.length === 0 ? 'The conversation is empty' : `Text to find in ${transcript.length.toLocaleString('en')} entries, newest first`;
  input.matchOnDescription = false;
  input.matchOnDetail = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const search = (): void => {
    const query = input.value;
    const found = searchTranscript(transcript, query, LIMIT);
    input.items = found.map((f) => ({
      found: f,
      label: `$(${ICONS[f.kind]}) ${who(f, conversation.agentName)}`,
      description: when(f.promptsAfter),
      detail: f.snippet,
      // The label never holds the match, so the quick pick's own filter must not hide or reorder.
      alwaysShow: true,
    }));
    input.busy = false;
  };
  input.onDidChangeValue(() => {
    clearTimeout(timer);
    input.busy = true;
    timer = setTimeout(search, DEBOUNCE_MS);
  });
  if (initial) {
    input.value = initial;
    search();
  }
  return new Promise((resolve) => {
    input.onDidAccept(() => {
      // Enter before the pause ended: the list is of what was typed before; searched now, chosen next.
      if (input.busy) {
        clearTimeout(timer);
        return search();
      }
      const item = input.selectedItems[0];
      if (!item) return;
      // Listed before a new session or a load replaced the conversation: searched again, left open.
      if (transcript.indexOf(item.found.id) < 0) {
        input.title = 'The conversation changed: searched again';
        return search();
      }
      resolve({ found: item.found, query: input.value });
      input.hide();
    });
    input.onDidHide(() => {
      clearTimeout(timer);
      resolve(undefined);
      input.dispose();
    });
    input.show();
  });
}

/** Shows the entry in the folder's panel (opened if it must be; the view may take a moment to get it). */
async function show(reins: Conversations, conversation: FolderConversation, id: string, query: string): Promise<void> {
  const host = reins.openPanel(conversation.folder) ?? (await panelSoon(reins, conversation));
  if (host) return host.showEntry(id, query);
  conversation.log.warn('Find in Conversation: the panel did not open in time to show the entry');
}

function panelSoon(reins: Conversations, conversation: FolderConversation): Promise<PanelHost<FolderConversation> | undefined> {
  return new Promise((resolve) => {
    const done = (host: PanelHost<FolderConversation> | undefined): void => {
      clearTimeout(timer);
      listener.dispose();
      resolve(host);
    };
    const timer = setTimeout(() => done(reins.panelOf(conversation)), PANEL_WAIT_MS);
    const listener = reins.onDidChange(() => {
      const host = reins.panelOf(conversation);
      if (host) done(host);
    });
  });
}
