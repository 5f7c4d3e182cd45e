// The protocol trace: every message with its direction and timing, when `reins.trace` asks.
// `messages` logs the method, id and size; `verbose` adds the payload, shortened.
// The trace runs inside the reader's loop, on whatever the agent wrote: it must be total. It
// never throws (a message 100,000 levels deep, an id that is an object) and never costs more
// than a bounded walk of the message, however large.
import type { Message } from 'vscode-jsonrpc/node';
import type { Logger } from '../util/logger';

export type TraceLevel = 'off' | 'messages' | 'verbose';

const PAYLOAD_LIMIT = 2000;
/** Deeper than this a payload is shown as `[…]` / `{…}`: the walk's recursion stays small. */
const PAYLOAD_DEPTH = 16;
/** Requests remembered for their answer's timing; beyond this the oldest are forgotten. */
const PENDING_LIMIT = 10_000;

/**
 * Lists of `{ name, value }` under these keys hold environment variables and HTTP headers (MCP
 * servers in session/new, terminal/create): tokens and keys. Their values are never traced.
 */
const SECRET_LISTS = new Set(['env', 'headers']);
const HIDDEN = '"<hidden>"';

/**
 * `value` as JSON text of at most about `limit` characters, nested at most `maxDepth` deep.
 * Stops walking once the limit is reached, so a 60 MB payload costs as little as a small one.
 * Never throws: what cannot be shown (a getter that throws, a BigInt) is shown as a marker.
 * The values in `env` and `headers` lists are shown as "<hidden>".
 */
export function boundedJson(value: unknown, limit = PAYLOAD_LIMIT, maxDepth = PAYLOAD_DEPTH): string {
  const out: string[] = [];
  let length = 0;
  const put = (s: string) => {
    out.push(s);
    length += s.length;
  };
  const full = () => length >= limit;
  const walk = (v: unknown, depth: number, secret = false): void => {
    if (full()) return;
    if (v === null || typeof v === 'boolean' || typeof v === 'number') return put(Number.isFinite(v) || typeof v !== 'number' ? String(v) : 'null');
    if (typeof v === 'string') return put(JSON.stringify(v.length > limit ? v.slice(0, limit) : v));
    if (typeof v !== 'object') return put(`"<${typeof v}>"`);
    const isArray = Array.isArray(v);
    if (depth >= maxDepth) return put(isArray ? '[…]' : '{…}');
    put(isArray ? '[' : '{');
    let first = true;
    for (const key of isArray ? (v as unknown[]).keys() : Object.keys(v)) {
      if (full()) break;
      if (!first) put(',');
      first = false;
      if (!isArray) put(`${JSON.stringify(key)}:`);
      // `secret`: v is an env or headers list, or an item of one, whose `value` is hidden.
      if (secret && !isArray && key === 'value') {
        put(HIDDEN);
        continue;
      }
      let item: unknown;
      try {
        item = (v as Record<string | number, unknown>)[key];
      } catch {
        item = '<unreadable>';
      }
      const itemSecret = isArray ? secret : typeof key === 'string' && SECRET_LISTS.has(key) && Array.isArray(item);
      walk(item === undefined ? null : item, depth + 1, itemSecret);
    }
    put(isArray ? ']' : '}');
  };
  try {
    walk(value, 0);
  } catch {
    put('<unreadable>');
  }
  const text = out.join('');
  return text.length <= limit ? text : `${text.slice(0, limit)}… (shortened)`;
}

/** An id or method as the trace shows it: a string or number as is, anything else as short JSON. */
function label(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : boundedJson(value, 80, 2);
}

interface AnyMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

interface Pending {
  at: number;
  method: string;
}

export class ProtocolTracer {
  private readonly sentAt = new Map<string, Pending>();
  private readonly receivedAt = new Map<string, Pending>();
  private readonly origin = Date.now();
  private failed = false;

  constructor(
    private readonly log: Logger,
    private readonly level: () => TraceLevel,
  ) {}

  outgoing(message: Message, bytes: number): void {
    this.safely('→', message, bytes, this.sentAt, this.receivedAt);
  }

  incoming(message: Message, bytes: number): void {
    this.safely('←', message, bytes, this.receivedAt, this.sentAt);
  }

  private safely(arrow: string, message: Message, bytes: number, mine: Map<string, Pending>, theirs: Map<string, Pending>): void {
    try {
      this.trace(arrow, message as AnyMessage, bytes, mine, theirs);
    } catch (error) {
      // Not expected (boundedJson and label are total), but a trace line is never worth the
      // read loop: say it once and go on.
      if (this.failed) return;
      this.failed = true;
      this.log.warn(`the protocol trace could not describe a message (${String(error)}); later failures are not reported`);
    }
  }

  private trace(arrow: string, m: AnyMessage, bytes: number, mine: Map<string, Pending>, theirs: Map<string, Pending>): void {
    const now = Date.now();
    const level = this.level();
    const hasId = m.id !== undefined && m.id !== null;
    let head = '';
    if (m.method !== undefined && hasId) {
      remember(mine, label(m.id), { at: now, method: label(m.method) });
      if (level !== 'off') head = `request ${label(m.method)} #${label(m.id)}`;
    } else if (m.method !== undefined) {
      // Most messages are notifications (streamed updates): build nothing when not tracing.
      if (level === 'off') return;
      head = `notification ${label(m.method)}${describeUpdate(m)}`;
    } else {
      const key = label(m.id);
      const request = theirs.get(key);
      theirs.delete(key);
      // vscode-jsonrpc drops these silently; say so whatever the trace level.
      if (!request && arrow === '←') this.log.warn(`ignored a response to an unknown request id ${boundedJson(m.id, 80, 2)}`);
      if (level === 'off') return;
      const took = request ? ` to ${request.method} after ${now - request.at} ms` : ' to an unknown request';
      const error = m.error ? `error ${label(m.error.code)} ${boundedJson(m.error.message, 200, 1)}` : 'response';
      head = `${error} #${label(m.id)}${took}`;
    }
    if (level === 'off') return;
    const clock = `+${((now - this.origin) / 1000).toFixed(3)}s`;
    let line = `${arrow} ${clock} ${head} (${bytes} B)`;
    if (level === 'verbose') line += ` ${boundedJson(m.params ?? m.result ?? m.error ?? null)}`;
    // Info, not trace: the setting is the switch, and the channel hides trace by default.
    this.log.info(line);
  }
}

function remember(pending: Map<string, Pending>, key: string, entry: Pending): void {
  pending.set(key, entry);
  // A request never answered (the agent died, or lied about ids) must not grow this forever.
  if (pending.size > PENDING_LIMIT) pending.delete(pending.keys().next().value as string);
}

function describeUpdate(m: AnyMessage): string {
  const params = m.params;
  const update = typeof params === 'object' && params !== null ? (params as { update?: unknown }).update : undefined;
  const kind = typeof update === 'object' && update !== null ? (update as { sessionUpdate?: unknown }).sessionUpdate : undefined;
  return kind ? ` ${label(kind)}` : '';
}
