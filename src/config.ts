// Typed settings: the agents, their quirks, and the limits of the turn controller.
import * as vscode from 'vscode';
import type { FileLimits } from './acp/clientMethods/fs';
import type { TraceLevel } from './acp/trace';
import { WHEN_BUSY_SETTING, type WhenBusySetting } from './api';
import { readRuntimeSettings, type RuntimeSettings } from './runtime/runtimeOptions';

export function section() {
  return vscode.workspace.getConfiguration('reins');
}

/**
 * `reins.trace` is read for every protocol message, thousands a second while an answer streams,
 * and a getConfiguration read costs the extension host about 15 µs: a profile of the streaming
 * bench found it at 8 % of a core, with the trace off. So it is read once and forgotten when
 * the setting changes (watchSettings).
 */
let traceCached: TraceLevel | undefined;

export function traceLevel(): TraceLevel {
  return (traceCached ??= section().get<TraceLevel>('trace', 'off'));
}

/** Forgets the settings cached here when they change; owned by activate(). */
export function watchSettings(): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('reins.trace')) traceCached = undefined;
  });
}

export function runtimeSettings(): RuntimeSettings {
  const c = section();
  return readRuntimeSettings((key, fallback) => c.get(key, fallback));
}

export function maxLineBytes(): number {
  return Math.max(0.001, section().get<number>('maxMessageMegabytes', 64)) * 1024 * 1024;
}

/** What the agent may read and write through fs/*, per request (see clientMethods/fs.ts). */
export function fileLimits(): FileLimits {
  const c = section();
  return {
    maxReadBytes: Math.max(0.001, c.get<number>('maxFileReadMegabytes', 16)) * 1024 * 1024,
    maxWriteBytes: Math.max(0.001, c.get<number>('maxFileWriteMegabytes', 16)) * 1024 * 1024,
  };
}

/** reins.whenBusy: what Enter in the panel does while a turn runs (an unknown value: ask). */
export function whenBusySetting(): WhenBusySetting {
  const value = section().get<string>('whenBusy', 'ask');
  return WHEN_BUSY_SETTING.find((w) => w === value) ?? 'ask';
}

export function parallelTurnsPerFolder(): boolean {
  return section().get<boolean>('parallelTurnsPerFolder', false);
}

/** This extension's version, from its package.json (typed `any` by VS Code). */
export function extensionVersion(extension: vscode.Extension<unknown>): string {
  const version = (extension.packageJSON as { version?: unknown }).version;
  return typeof version === 'string' ? version : '0.0.0';
}
