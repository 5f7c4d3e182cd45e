// The one log: a LogOutputChannel named Reins. The protocol trace, agent stderr, every stop
// (one line each) and every failure go here. It never steals focus by itself.
import * as vscode from 'vscode';

export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Reins', { log: true });
}

/** Log an error with its stack; VS Code would swallow an activation failure otherwise. */
export function logError(log: vscode.LogOutputChannel, what: string, error: unknown): void {
  log.error(`${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
}
