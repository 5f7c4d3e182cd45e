// The extension's entry (package.json `main`, dist/extension.js): a few lines that load the real
// bundle, dist/reins.js (src/extension.ts), with a V8 code cache (codeCache.ts says why), and
// hand activate/deactivate to it. Nothing of Reins is imported here: a value imported would be
// a second copy of that module beside the bundle's.
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type * as Reins from '../extension';
import { loadBundle, type CodeCacheUse } from './codeCache';

let reins: typeof Reins | undefined;

export function activate(context: vscode.ExtensionContext): ReturnType<typeof Reins.activate> {
  const storage = context.globalStorageUri;
  const cacheDir = storage.scheme === 'file' ? path.join(storage.fsPath, 'code-cache') : undefined;
  const { version } = context.extension.packageJSON as { version?: unknown };
  const file = path.join(__dirname, 'reins.js');
  const started = performance.now();
  let use: CodeCacheUse = 'none';
  let keep = (): void => undefined;
  try {
    const bundle = loadBundle(file, cacheDir, typeof version === 'string' ? version : '');
    reins = bundle.exports as typeof Reins;
    use = bundle.use;
    keep = () => bundle.keep();
  } catch {
    // Whatever failed (the cache's folder, the bundle itself), a plain require either works or
    // throws what is wrong with the bundle, as VS Code would have shown it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle, loaded as VS Code would
    reins = require(file) as typeof Reins;
  }
  const api = reins.activate(context, { codeCache: use, loadMs: performance.now() - started });
  // Right after activation, the cache holds what activating compiled and no more: what a later
  // agent or panel compiles would only make every activation's cache bigger to read.
  if (use !== 'used') {
    const timer = setTimeout(keep, 0);
    context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }
  return api;
}

export function deactivate(): Promise<void> | undefined {
  return reins?.deactivate();
}
