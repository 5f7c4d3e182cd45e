// What the webview posts is checked here before the host uses any of it. The webview is our
// own script, but it renders the agent's text: if that ever ran code, or a future webview
// version posted an older shape, the host must not act on (or throw on) a message it did not
// define. Every message of WebviewToHost is checked field by field, with a size bound on each
// string and list; a bad one is refused with a reason the caller logs, never thrown.
// No `vscode` here: the unit tests (test/unit/webviewInput.test.ts) run it in plain Node.
import type { BusyChoice, PanelAction, WebviewToHost } from '../shared/messages';

/** A prompt or draft longer than this is refused (about 1 MB of text: far beyond a real prompt). */
export const MAX_TEXT = 1_000_000;
/** Paths, URIs, ids and search queries. */
export const MAX_SHORT = 8_192;
/** Files attached to one prompt with `@`. */
export const MAX_FILES = 1_000;

export type Checked =
  | { ok: true; message: WebviewToHost }
  /** `text`: a prompt that was refused for its size, to give back to the input box (nothing typed is lost). */
  | { ok: false; reason: string; text?: string };

type Check = (m: Record<string, unknown>) => string | undefined;

// A Record over the union's `type`s and over PanelAction: a new message or action without its
// check here does not compile.
const ACTIONS: Record<PanelAction, true> = {
  openLog: true,
  aboutStop: true,
  checkAgain: true,
  forceStop: true,
  newSession: true,
  selectAgent: true,
  restartAgent: true,
  endLeftovers: true,
  undoTurn: true,
  setMode: true,
  selectModel: true,
  signIn: true,
  openSettings: true,
  installAgent: true,
  copyInstall: true,
  manageTrust: true,
  openFolder: true,
};

const BUSY_CHOICES: Record<BusyChoice, true> = { queue: true, steer: true, stopAndSend: true };

const CHECKS: Record<WebviewToHost['type'], Check> = {
  ready: (m) => optional(m, 'first', () => text(m, 'first', MAX_SHORT)),
  earlier: (m) => text(m, 'before', MAX_SHORT),
  dropped: (m) => text(m, 'first', MAX_SHORT),
  stop: () => undefined,
  send: (m) =>
    text(m, 'text', MAX_TEXT) ??
    optional(m, 'files', (v) => stringList(v, MAX_FILES, MAX_SHORT)) ??
    optional(m, 'whenBusy', (v) => (typeof v === 'string' && Object.hasOwn(BUSY_CHOICES, v) ? undefined : `unknown choice ${preview(v)}`)),
  editQueued: (m) => integer(m, 'id', 1) ?? text(m, 'text', MAX_TEXT),
  removeQueued: (m) => integer(m, 'id', 1),
  permission: (m) => text(m, 'requestId', MAX_SHORT) ?? text(m, 'optionId', MAX_SHORT),
  elicitation: (m) =>
    text(m, 'requestId', MAX_SHORT) ??
    (m.action === 'accept' || m.action === 'decline' || m.action === 'cancel' ? undefined : `unknown action ${preview(m.action)}`) ??
    optional(m, 'input', formInput),
  action: (m) =>
    (typeof m.action === 'string' && Object.hasOwn(ACTIONS, m.action) ? undefined : `unknown action ${preview(m.action)}`) ??
    (m.arg === undefined ? undefined : text(m, 'arg', MAX_SHORT)),
  uiState: (m) => text(m, 'draft', MAX_TEXT) ?? optional(m, 'scroll', scroll),
  openDiff: (m) => text(m, 'toolCallId', MAX_SHORT) ?? integer(m, 'index', 0),
  openFullOutput: (m) => text(m, 'toolCallId', MAX_SHORT),
  openLocation: (m) => text(m, 'path', MAX_SHORT) ?? optional(m, 'line', (v) => (isInteger(v, 1) ? undefined : 'not an integer ≥ 1')),
  searchFiles: (m) => integer(m, 'requestId', 0) ?? text(m, 'query', MAX_SHORT),
  // The address itself is checked where it is opened (checkLink in panelHost.ts).
  openLink: (m) => text(m, 'href', MAX_SHORT),
};

/** The message, typed, or why it was refused. Never throws, whatever `raw` is. */
export function checkWebviewMessage(raw: unknown): Checked {
  try {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: `not an object: ${preview(raw)}` };
    const m = raw as Record<string, unknown>;
    const type = m.type;
    if (typeof type !== 'string' || !Object.hasOwn(CHECKS, type)) return { ok: false, reason: `unknown message type ${preview(type)}` };
    const problem = CHECKS[type as WebviewToHost['type']](m);
    if (problem === undefined) return { ok: true, message: m as unknown as WebviewToHost };
    const reason = `${type}: ${problem}`;
    // A prompt refused only for its size goes back to the input box.
    return type === 'send' && typeof m.text === 'string' && m.text.length > MAX_TEXT ? { ok: false, reason, text: m.text } : { ok: false, reason };
  } catch (err) {
    // A getter or proxy in a structured clone cannot reach us, but a refusal is still the answer.
    return { ok: false, reason: `unreadable message: ${err instanceof Error ? err.message : 'error'}` };
  }
}

function text(m: Record<string, unknown>, field: string, max: number): string | undefined {
  const v = m[field];
  if (typeof v !== 'string') return `${field} is ${kind(v)}, not a string`;
  return v.length > max ? `${field} is ${v.length} characters (limit ${max})` : undefined;
}

function integer(m: Record<string, unknown>, field: string, min: number): string | undefined {
  return isInteger(m[field], min) ? undefined : `${field} is ${preview(m[field])}, not an integer ≥ ${min}`;
}

function isInteger(v: unknown, min: number): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min;
}

function optional(m: Record<string, unknown>, field: string, check: (v: unknown) => string | undefined): string | undefined {
  if (m[field] === undefined) return undefined;
  const problem = check(m[field]);
  return problem === undefined ? undefined : `${field}: ${problem}`;
}

function stringList(v: unknown, maxItems: number, maxLength: number): string | undefined {
  if (!Array.isArray(v)) return `${kind(v)}, not a list`;
  if (v.length > maxItems) return `${v.length} items (limit ${maxItems})`;
  const bad = v.findIndex((item) => typeof item !== 'string' || item.length > maxLength);
  return bad < 0 ? undefined : `item ${bad} is not a string of at most ${maxLength} characters`;
}

/** A form's input: field names to text, a checkbox, or chosen options (what shared/elicitationForm.ts checks next). */
function formInput(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${kind(v)}, not an object`;
  const fields = Object.entries(v as Record<string, unknown>);
  if (fields.length > 64) return `${fields.length} fields (limit 64)`;
  for (const [name, value] of fields) {
    if (typeof value === 'boolean') continue;
    if (typeof value === 'string' && value.length <= MAX_TEXT) continue;
    if (Array.isArray(value) && stringList(value, 500, MAX_SHORT) === undefined) continue;
    return `field ${preview(name)} is ${kind(value)}, not text, a boolean or a list of choices`;
  }
  return undefined;
}

function scroll(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${kind(v)}, not an object`;
  const s = v as Record<string, unknown>;
  if (typeof s.top !== 'number' || !Number.isFinite(s.top)) return 'top is not a finite number';
  if (typeof s.following !== 'boolean') return 'following is not a boolean';
  if (s.fraction !== undefined && (typeof s.fraction !== 'number' || !Number.isFinite(s.fraction))) return 'fraction is not a finite number';
  if (s.fromEnd !== undefined && (typeof s.fromEnd !== 'number' || !Number.isFinite(s.fromEnd))) return 'fromEnd is not a finite number';
  return undefined;
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v;
}

/** A short, safe rendering of a bad value for the log line. */
function preview(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  return kind(v);
}
