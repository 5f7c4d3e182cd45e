// `$/cancel_request` from the agent (cancellation.mdx): the agent withdraws a request it made
// to us, for example a permission it no longer needs. We must answer that request anyway:
// with a result, or with -32800 "Request cancelled". Nothing may stay pending.
//
// vscode-jsonrpc knows only LSP's form, `$/cancelRequest` with `{ id }`: its reader callback
// cancels the running handler's CancellationToken (or remembers the id when the request is
// not dispatched yet), and replies nothing by itself. ACP's `$/cancel_request` with
// `{ requestId }` would reach no handler at all. So the reader is wrapped to hand ACP's form to
// the library in LSP's (its native handling, races included, then applies), and handlers that
// wait on the user run through `cancellable`, which answers -32800 as soon as the token fires.
// Handlers that finish on their own (fs reads and writes) keep their normal answer, which the
// spec allows.
import { ResponseError, type CancellationToken, type DataCallback, type Disposable, type Message, type MessageReader } from 'vscode-jsonrpc/node';

const ACP_CANCEL_REQUEST = '$/cancel_request';
/** ACP's "Request cancelled" (error.mdx); vscode-jsonrpc's ErrorCodes has no name for it. */
const REQUEST_CANCELLED = -32800;
const LSP_CANCEL_REQUEST = '$/cancelRequest';

/** `reader`, with ACP's `$/cancel_request` handed on as the `$/cancelRequest` the library knows. */
export function withAcpCancellation(reader: MessageReader, onCancel?: (requestId: unknown) => void): MessageReader {
  return {
    onError: reader.onError,
    onClose: reader.onClose,
    onPartialMessage: reader.onPartialMessage,
    listen(callback: DataCallback): Disposable {
      return reader.listen((message) => callback(translate(message, onCancel)));
    },
    dispose: () => reader.dispose(),
  };
}

function translate(message: Message, onCancel?: (requestId: unknown) => void): Message {
  const m = message as { method?: unknown; params?: { requestId?: unknown }; id?: unknown };
  if (m.method !== ACP_CANCEL_REQUEST || 'id' in m) return message;
  const requestId = m.params?.requestId;
  onCancel?.(requestId);
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return message; // malformed: left to the unhandled-notification log
  return { jsonrpc: '2.0', method: LSP_CANCEL_REQUEST, params: { id: requestId } } as Message;
}

/**
 * Runs `work` with an AbortSignal that fires when the agent cancels the request; the request
 * is then answered -32800 at once, whatever `work` does later.
 */
export function cancellable<T>(token: CancellationToken | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const aborter = new AbortController();
  if (!token) return work(aborter.signal);
  const cancelled = () => new ResponseError(REQUEST_CANCELLED, 'Request cancelled');
  if (token.isCancellationRequested) {
    aborter.abort();
    return Promise.reject(cancelled());
  }
  let listener: Disposable | undefined;
  const onCancel = new Promise<never>((_, reject) => {
    listener = token.onCancellationRequested(() => {
      // Rejected first: whatever `work` settles on when aborted must not win the race.
      reject(cancelled());
      aborter.abort();
    });
  });
  return Promise.race([work(aborter.signal), onCancel]).finally(() => listener?.dispose());
}
