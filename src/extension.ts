// activate/deactivate only: build the services, register them, own their disposal.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AgentRecords, endAgentsLeftBehind } from './acp/agentRecords';
import { configureLifeline } from './acp/lifeline';
import { registerSignInCommands } from './auth/commands';
import { registerCommands, updateContextKeys } from './commands';
import type { SendResult, StopResult } from './folderSession';
import { createLog, logError } from './log';
import { registerPanelSerializer, revivePanel } from './panel/panelSerializer';
import { Reins } from './reins';
import type { StopReport } from './session/agentRuntime';
import type { SessionView, TranscriptEntry } from './shared/messages';
import { registerSessionCommands } from './sessions';
import { StatusBar } from './statusBar';

let reins: Reins | undefined;

/** What `activate` returns: a read-only view for other extensions and the integration tests. */
export interface ReinsApi {
  state(folder?: vscode.Uri): ReinsState | undefined;
  /** The folder holding this extension's log files (the Reins channel's file is below it). */
  logUri: vscode.Uri;
  onDidStop: vscode.Event<StopReport>;
  /** What VS Code calls to restore a Reins panel after a window reload (panel/panelSerializer.ts); tests call it with a panel of their own. */
  revivePanel(panel: vscode.WebviewPanel, state: unknown): Promise<void>;
}

export interface ReinsState {
  agent: string;
  agentPhase: string | undefined;
  turn: string;
  sessionId: string | undefined;
  pid: number | undefined;
  canSend: boolean;
  canStop: boolean;
  transcript: TranscriptEntry[];
  lastStop: StopReport | undefined;
  lastRestoredInput: string | undefined;
  sent: { prompts: number; cancels: number };
  /** The session's mode, model, slash commands, title and usage. */
  session?: SessionView;
}

export type { SendResult, StopResult };

export function activate(context: vscode.ExtensionContext): ReinsApi {
  const log = createLog();
  context.subscriptions.push(log);
  try {
    startLifeline(context, log);
    reins = new Reins(context, log);
    const statusBar = new StatusBar(reins);
    const onDidStop = new vscode.EventEmitter<StopReport>();
    context.subscriptions.push(reins, statusBar, onDidStop, ...registerCommands(reins), ...registerSignInCommands(reins, context));
    // Sessions that survive: load / list / delete / the picker, and the panel after a window reload.
    context.subscriptions.push(...registerSessionCommands(reins), registerPanelSerializer(reins));
    context.subscriptions.push(
      reins.onDidChange(() => updateContextKeys(reins!)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => updateContextKeys(reins!)),
    );
    updateContextKeys(reins);
    log.info(`Reins ${context.extension.packageJSON.version} activated`);

    const r = reins;
    const watched = new WeakSet<object>();
    r.onDidChange(() => {
      for (const s of r.allSessions()) {
        const rt = s.runtime;
        if (rt && !watched.has(rt)) {
          watched.add(rt);
          rt.onStop((report) => onDidStop.fire(report));
        }
      }
    });
    return {
      logUri: context.logUri,
      onDidStop: onDidStop.event,
      revivePanel: (panel, state) => revivePanel(r, panel, state),
      state(folder) {
        const wf = folder ? vscode.workspace.getWorkspaceFolder(folder) : undefined;
        const s = wf ? r.session(wf) : r.activeSession();
        if (!s) return undefined;
        const status = s.status();
        return {
          agent: s.agentName,
          agentPhase: s.runtime?.phase,
          turn: status.turn,
          sessionId: s.runtime?.sessionId,
          pid: s.runtime?.pid,
          canSend: status.canSend,
          canStop: status.canStop,
          transcript: s.transcript.entries,
          lastStop: s.runtime?.lastStopReport,
          lastRestoredInput: s.lastRestoredInput,
          sent: { ...(s.runtime?.sent ?? { prompts: 0, cancels: 0 }) },
          session: status.session,
        };
      },
    };
  } catch (error) {
    // VS Code would only say "activation failed"; say what failed, and where to look.
    logError(log, 'Reins failed to activate', error);
    void vscode.window.showErrorMessage('Reins failed to activate.', 'Open Log').then((c) => c && log.show());
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
  reins = undefined;
  if (!r) return;
  try {
    await r.shutdown();
  } finally {
    r.dispose();
  }
}
