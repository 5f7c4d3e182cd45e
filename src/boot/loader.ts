// The extension's entry (package.json `main`, dist/extension.js): a few lines that load the real
// bundle, dist/reins.js (src/extension.ts), with a V8 code cache (codeCache.ts says why), and
// hand activate/deactivate to it. Nothing of Reins is imported here: a value imported would be
// a second copy of that module beside the bundle's.
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type * as Reins from '../extension';
import { loadBundle, type CompiledBundle } from './codeCache';

let reins: typeof Reins | undefined;

export function activate(context: vscode.ExtensionContext): ReturnType<typeof Reins.activate> {
  const storage = context.globalStorageUri;
  const cacheDir = storage.scheme === 'file' ? path.join(storage.fsPath, 'code-cache') : undefined;
  const { version } = context.extension.packageJSON as { version?: unknown };
  const file = path.join(__dirname, 'reins.js');
  const started = performance.now();
  let bundle: CompiledBundle;
  try {
    bundle = loadBundle(file, cacheDir, typeof version === 'string' ? version : '');
  } catch {
    // Whatever failed (the cache's folder, the bundle itself), the bundle required as usual either
    // works or throws what is wrong with it, as VS Code would have shown it.
    bundle = loadBundle(file, undefined, '');
  }
  reins = bundle.exports as typeof Reins;
  const api = reins.activate(context, { codeCache: bundle.use, loadMs: performance.now() - started });
  // Right after activation, the cache holds what activating compiled and no more: what a later
  // agent or panel compiles would only make every activation's cache bigger to read. (keep()
  // writes only when this activation had no cache that fitted.)
  const timer = setTimeout(() => bundle.keep(), 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  return api;
}

export function deactivate(): Promise<void> | undefined {
  return reins?.deactivate();
}
