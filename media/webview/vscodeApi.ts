// The webview's only channel to the extension host, plus VS Code's per-webview state
// (which survives the panel being hidden, when the webview document itself is discarded).
import type { WebviewToHost } from '../../src/shared/messages';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

// VS Code allows acquireVsCodeApi() once per document: every module shares this one.
const api = acquireVsCodeApi();

export function post(message: WebviewToHost): void {
  api.postMessage(message);
}

export interface PersistedState {
  /** The unsent text of the prompt box. */
  draft: string;
}

export function loadState(): PersistedState {
  const state = api.getState() as Partial<PersistedState> | undefined;
  return { draft: typeof state?.draft === 'string' ? state.draft : '' };
}

export function saveState(state: PersistedState): void {
  api.setState(state);
}
