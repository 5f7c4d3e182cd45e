// activate/deactivate only: build the services, register them, own their disposal.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { notification } from './ui/notify';
import { AgentRecords, endAgentsLeftBehind } from './acp/agentRecords';
import { configureLifeline } from './acp/lifeline';
import { registerSignInCommands } from './conversation/signInCommands';
import { registerCommands, updateContextKeys } from './commands';
import { apiState, type ReinsApi } from './api';
import { extensionVersion, watchSettings } from './config';
import { registerFirstRun } from './conversation/firstRunCommands';
import { createLog, logError } from './ui/log';
import { registerDiffDocuments } from './editor/editorLinks';
import { registerPanelSerializer, revivePanel } from './conversation/panelSerializer';
import { Conversations } from './conversation/conversations';
import type { StopReport } from './runtime/agentRuntime';
import { registerSessionCommands } from './conversation/sessionCommands';
import { registerFindInConversation } from './conversation/findInConversation';
import { StatusBar } from './conversation/statusBar';
import { answerElicitation } from './panel/elicitationAnswer';

let reins: Conversations | undefined;
let logChannel: vscode.LogOutputChannel | undefined;

export type { ReinsApi, ReinsState, SendResult, StopResult } from './api';

/** `boot`: how dist/extension.js (src/boot/loader.ts) loaded this bundle (read, compiled, run), for the log. */
export function activate(context: vscode.ExtensionContext, boot?: { codeCache: string; loadMs: number }): ReinsApi {
  // The log and the folder conversations are not in context.subscriptions: VS Code disposes those
  // as soon as `deactivate` is called, while deactivation's stops still run and log their
  // outcome ("Channel has been closed"). `deactivate` disposes both once it is done.
  const started = Date.now();
  const log = createLog();
  logChannel = log;
  try {
    startLifeline(context, log);
    reins = new Conversations(context, log);
    const statusBar = new StatusBar(reins);
    const onDidStop = new vscode.EventEmitter<StopReport>();
    const onDidFindLeftovers = new vscode.EventEmitter<StopReport>();
    const created = reins;
    context.subscriptions.push(
      watchSettings(),
      statusBar,
      onDidStop,
      onDidFindLeftovers,
      ...registerCommands(created),
      ...registerSignInCommands(created, context),
    );
    // Sessions that survive: load / list / delete / the picker, and the panel after a window reload.
    context.subscriptions.push(...registerSessionCommands(created), registerFindInConversation(created), registerPanelSerializer(created));
    // The Reins view (secondary side bar) and the first run's welcome, walkthrough and commands.
    context.subscriptions.push(created.view.register(), ...registerFirstRun(created, created.firstRun));
    // The read-only documents Open Diff shows a tool call's old text in.
    context.subscriptions.push(registerDiffDocuments());
    context.subscriptions.push(
      // The instance made here, not the module variable: deactivation clears that first.
      created.onDidChange(() => updateContextKeys(created)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => updateContextKeys(created)),
    );
    updateContextKeys(created);
    // Last, once the commands and the view providers exist: until then package.json's `when`
    // clauses show the welcome (viewsWelcome, drawn by the workbench itself) and let Ctrl+Alt+R
    // open the Reins view through the workbench, so neither waits for the extension host.
    void vscode.commands.executeCommand('setContext', 'reins.activated', true);
    log.info(
      `Reins ${extensionVersion(context.extension)} activated in ${Date.now() - started} ms` +
        (boot ? ` (bundle loaded in ${boot.loadMs.toFixed(1)} ms, code cache: ${boot.codeCache})` : ''),
    );

    const r = reins;
    const watched = new WeakSet<object>();
    r.onDidChange(() => {
      for (const s of r.allConversations()) {
        const rt = s.runtime;
        if (rt && !watched.has(rt)) {
          watched.add(rt);
          rt.turns.onStop((report) => onDidStop.fire(report));
          rt.turns.onLeftovers((report) => onDidFindLeftovers.fire(report));
        }
      }
    });
    const conversationOf = (folder: vscode.Uri | undefined) => {
      const wf = folder ? vscode.workspace.getWorkspaceFolder(folder) : undefined;
      return wf ? r.conversation(wf) : r.activeConversation();
    };
    return {
      logUri: context.logUri,
      onDidStop: onDidStop.event,
      onDidFindLeftovers: onDidFindLeftovers.event,
      revivePanel: (panel, state) => revivePanel(created, panel, state),
      answerPermission(requestId, optionId, folder) {
        return conversationOf(folder)?.runtime?.turns.respondPermission(requestId, optionId) ?? false;
      },
      answerElicitation(requestId, action, input, folder) {
        const c = conversationOf(folder);
        return c ? answerElicitation(c, { type: 'elicitation', requestId, action, input }) : { ok: false, why: 'no conversation in that folder' };
      },
      state(folder) {
        const c = conversationOf(folder);
        return c && apiState(c, r.isInSight(c));
      },
    };
  } catch (error) {
    // VS Code would only say "activation failed"; say what failed, and where to look.
    logError(log, 'Reins failed to activate', error);
    // No conversation can say it (answers.ts's rule: a notification).
    void notification('error', 'Reins failed to activate.', ['Open Log']).then((c) => c && log.show());
    throw error;
  }
}

/**
 * Agents must not outlive this extension host: each gets a watchdog and a record (lifeline.ts),
 * and the trees that a previous host left running are ended now, in the background.
 */
function startLifeline(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const storage = context.globalStorageUri;
  const records = storage.scheme === 'file' ? new AgentRecords(path.join(storage.fsPath, 'running-agents')) : undefined;
  configureLifeline({ node: process.execPath, watchdogScript: context.asAbsolutePath(path.join('dist', 'watchdog.js')), records });
  if (records) void endAgentsLeftBehind(records, log).catch((error) => logError(log, 'Ending agents left by an earlier extension host failed', error));
}

/** Window reload or close: stop every running turn briefly, then end every agent tree. */
export async function deactivate(): Promise<void> {
  const r = reins;
  const log = logChannel;
  reins = undefined;
  logChannel = undefined;
  try {
    await r?.shutdown();
  } finally {
    r?.dispose();
    log?.dispose();
  }
}
