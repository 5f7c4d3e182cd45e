// The protocol trace: every message with its direction and timing, when `reins.trace` asks.
// `messages` logs the method, id and size; `verbose` adds the payload, shortened.
import type { Message } from 'vscode-jsonrpc/node';
import type { Logger } from '../util/logger';

export type TraceLevel = 'off' | 'messages' | 'verbose';

const PAYLOAD_LIMIT = 2000;

export function shorten(text: string, limit = PAYLOAD_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

interface AnyMessage {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

export class ProtocolTracer {
  private readonly sentAt = new Map<string, { at: number; method: string }>();
  private readonly receivedAt = new Map<string, { at: number; method: string }>();
  private readonly origin = Date.now();

  constructor(
    private readonly log: Logger,
    private readonly level: () => TraceLevel,
  ) {}

  outgoing(message: Message, bytes: number): void {
    this.trace('→', message as AnyMessage, bytes, this.sentAt, this.receivedAt);
  }

  incoming(message: Message, bytes: number): void {
    this.trace('←', message as AnyMessage, bytes, this.receivedAt, this.sentAt);
  }

  private trace(
    arrow: string,
    m: AnyMessage,
    bytes: number,
    mine: Map<string, { at: number; method: string }>,
    theirs: Map<string, { at: number; method: string }>,
  ): void {
    const now = Date.now();
    const level = this.level();
    let head = '';
    if (m.method !== undefined && m.id !== undefined && m.id !== null) {
      mine.set(String(m.id), { at: now, method: m.method });
      if (level !== 'off') head = `request ${m.method} #${m.id}`;
    } else if (m.method !== undefined) {
      // Most messages are notifications (streamed updates): build nothing when not tracing.
      if (level === 'off') return;
      head = `notification ${m.method}${describeUpdate(m)}`;
    } else {
      const key = String(m.id);
      const request = theirs.get(key);
      theirs.delete(key);
      // vscode-jsonrpc drops these silently; say so whatever the trace level.
      if (!request && arrow === '←') this.log.warn(`ignored a response to an unknown request id ${JSON.stringify(m.id)}`);
      if (level === 'off') return;
      const took = request ? ` to ${request.method} after ${now - request.at} ms` : ' to an unknown request';
      head = `${m.error ? `error ${m.error.code} "${m.error.message}"` : 'response'} #${m.id}${took}`;
    }
    if (level === 'off') return;
    const clock = `+${((now - this.origin) / 1000).toFixed(3)}s`;
    let line = `${arrow} ${clock} ${head} (${bytes} B)`;
    if (level === 'verbose') {
      line += ` ${shorten(JSON.stringify(m.params ?? m.result ?? m.error ?? null))}`;
    }
    // Info, not trace: the setting is the switch, and the channel hides trace by default.
    this.log.info(line);
  }
}

function describeUpdate(m: AnyMessage): string {
  const update = (m.params as { update?: { sessionUpdate?: string } } | undefined)?.update;
  return update?.sessionUpdate ? ` ${update.sessionUpdate}` : '';
}
