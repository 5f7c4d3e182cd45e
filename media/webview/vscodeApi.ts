// The webview's only channel to the extension host, plus VS Code's per-webview state
// (which survives the panel being hidden, when the webview document itself is discarded).
import type { CarriedState, WebviewToHost } from '../../src/shared/messages';
import type { SeenQueue } from './busyModel';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/**
 * The page's first script (src/panel/panelHost.ts BOOT): it took the API, said `ready` and kept
 * what the host posted meanwhile, so that the snapshot comes while this bundle loads.
 */
interface Boot {
  api: VsCodeApi;
  early: unknown[];
  stop(): void;
}
const boot = (globalThis as { reinsBoot?: Boot }).reinsBoot;

// VS Code allows acquireVsCodeApi() once per document: every module shares this one.
const api = boot?.api ?? acquireVsCodeApi();

/**
 * From now on the host's messages go to `handle`: first those the page's first script kept, in
 * order. Returns whether that script said `ready` already (else the caller says it).
 */
export function listen(handle: (message: unknown) => void): boolean {
  window.addEventListener('message', (event: MessageEvent<unknown>) => handle(event.data));
  if (!boot) return false;
  // In this one task: no message is handled twice or out of order.
  boot.stop();
  for (const message of boot.early.splice(0)) handle(message);
  return true;
}

export function post(message: WebviewToHost): void {
  api.postMessage(message);
}

export interface PersistedState {
  /** The unsent text of the prompt box. */
  draft: string;
  /** The workspace folder the panel shows (from the host's snapshot): after a window reload,
   *  VS Code hands this state to the panel serializer, which reopens that folder's panel. */
  folder?: string;
  /** Where the transcript was scrolled to; `following`: at the end, following it. */
  scroll?: ScrollState;
  /** Prompts sent from this panel, oldest first (Up/Down in the prompt box). */
  history?: string[];
  /** The queue this panel last showed, and the extension host that had it (busyModel.ts lostQueue). */
  seenQueue?: SeenQueue;
}

export type ScrollState = NonNullable<CarriedState['scroll']>;

export function loadState(): PersistedState {
  const state = api.getState() as Partial<PersistedState> | undefined;
  const scroll = state?.scroll;
  return {
    draft: typeof state?.draft === 'string' ? state.draft : '',
    folder: typeof state?.folder === 'string' ? state.folder : undefined,
    scroll:
      scroll && typeof scroll.top === 'number' && typeof scroll.following === 'boolean'
        ? {
            top: scroll.top,
            following: scroll.following,
            fraction: typeof scroll.fraction === 'number' ? scroll.fraction : undefined,
            fromEnd: typeof scroll.fromEnd === 'number' ? scroll.fromEnd : undefined,
          }
        : undefined,
    history: Array.isArray(state?.history) ? state.history.filter((h): h is string => typeof h === 'string') : undefined,
    seenQueue: seenQueueOf(state?.seenQueue),
  };
}

function seenQueueOf(value: unknown): SeenQueue | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { host, queued } = value as SeenQueue;
  return {
    host: typeof host === 'string' ? host : undefined,
    queued: Array.isArray(queued) ? queued.filter((q): q is string => typeof q === 'string') : undefined,
  };
}

/** Changes the fields given; the others keep their value. */
export function saveState(patch: Partial<PersistedState>): void {
  const next = { ...loadState(), ...patch };
  api.setState(next);
  // The host keeps a copy, so that moving the conversation (tab ⇄ view) carries the draft and
  // scroll position along even when this document is hidden (and gone) at the time.
  if ('draft' in patch || 'scroll' in patch) api.postMessage({ type: 'uiState', draft: next.draft, scroll: next.scroll } satisfies WebviewToHost);
}
