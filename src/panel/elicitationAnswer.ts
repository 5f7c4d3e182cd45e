// The panel's answer to an elicitation (its Submit, Decline, Escape or close), and the API's
// (`answerElicitation`, what those buttons do). A form's input is checked again against its
// schema (runtime/elicitations.ts) before the agent gets it; a URL is opened only after the
// user consented (`accept`), through VS Code's openExternal (the browser, outside the agent's
// and the model's reach), and only the URL the agent sent, held on this side: nothing the
// webview says is opened.
import * as vscode from 'vscode';
import type { ElicitationAnswerResult } from '../api';
import type { WebviewToHost } from '../shared/messages';
import { urlToOpen } from '../runtime/elicitations';
import type { PanelConversation } from './panelConversation';

export function answerElicitation(
  conversation: Pick<PanelConversation, 'runtime' | 'log'>,
  m: Extract<WebviewToHost, { type: 'elicitation' }>,
): ElicitationAnswerResult {
  const elicitations = conversation.runtime?.turns.elicitations;
  const request = elicitations?.get(m.requestId)?.request;
  if (!elicitations || !request) {
    conversation.log.info(`Panel: elicitation ${m.requestId} not answered: it no longer waits`);
    return { ok: false, why: 'no such elicitation waits' };
  }
  const answered = elicitations.respond(m.requestId, m.action, m.input);
  if (!answered.ok) {
    // The webview checks the same rules first: this is a stale or tampered message.
    const fields = answered.errors ? ` (${Object.keys(answered.errors).join(', ')})` : '';
    conversation.log.warn(`Panel: elicitation ${m.requestId} not answered: ${answered.why}${fields}`);
    return answered;
  }
  const url = urlToOpen(request, m.action);
  if (url !== undefined) void vscode.env.openExternal(vscode.Uri.parse(url, true));
  return answered;
}
