// JSON-RPC 2.0 over the wire, both ways: what we send is recorded before it is written, what
// arrives is recorded before it is handled; our requests to the client are matched by id.
import { isFrozen } from './faults';
import type { Recorder } from './recorder';
export type Id = string | number | null;

export interface Message {
  jsonrpc?: unknown;
  id?: Id;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: RpcError;
}

/** The client's answer to one of our requests, or `aborted` when we stopped waiting. */
export type Reply = { result: unknown } | { error: RpcError } | 'aborted';

export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

interface Pending {
  method: string;
  resolve: (reply: Reply) => void;
  /** We stopped waiting; a late answer is still recorded. */
  abandoned: boolean;
}

export class Peer {
  private nextId = 0;
  private readonly pending = new Map<Id, Pending>();

  constructor(
    private readonly rec: Recorder,
    private readonly write: (line: string) => void,
  ) {}

  send(msg: object): void {
    if (isFrozen()) return; // hung (faults.ts): nothing more goes out
    this.rec.out(msg);
    this.write(JSON.stringify(msg));
  }

  /** A line that is not a JSON-RPC message; `recordAs` stands for it in the record. */
  sendRaw(line: string, recordAs: unknown): void {
    if (isFrozen()) return;
    this.rec.out(recordAs);
    this.write(line);
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  respond(id: Id, result: unknown): void {
    this.send({ jsonrpc: '2.0', id, result });
  }

  fail(id: Id, error: RpcError): void {
    this.send({ jsonrpc: '2.0', id, error });
  }

  /** Sends a request and waits for its answer; with `signal`, stops waiting when it aborts. `onSent` gets its id. */
  request(method: string, params: unknown, signal?: AbortSignal, onSent?: (id: Id) => void): Promise<Reply> {
    const id = this.nextId++;
    return new Promise<Reply>((resolve) => {
      const entry: Pending = { method, resolve, abandoned: false };
      this.pending.set(id, entry);
      this.send({ jsonrpc: '2.0', id, method, params });
      onSent?.(id);
      signal?.addEventListener('abort', () => {
        if (entry.abandoned || !this.pending.has(id)) return;
        entry.abandoned = true;
        resolve('aborted');
      });
    });
  }

  /** Handles a response from the client; false if `msg` is not a response at all. */
  takeResponse(msg: Message): boolean {
    if (msg.method !== undefined || !('id' in msg) || !('result' in msg || 'error' in msg)) return false;
    const entry = this.pending.get(msg.id ?? null);
    if (!entry) {
      this.rec.event('unexpected-response', { id: msg.id });
      return true;
    }
    this.pending.delete(msg.id ?? null);
    const reply: Reply = msg.error !== undefined ? { error: msg.error } : { result: msg.result };
    if (entry.abandoned) this.rec.event('late-response', { id: msg.id, method: entry.method });
    else entry.resolve(reply);
    return true;
  }
}

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}
