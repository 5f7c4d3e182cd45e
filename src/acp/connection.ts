// Typed ACP calls both ways over vscode-jsonrpc with our newline framing. The one rule this
// file exists to keep: a pending request never hangs. When the agent's process exits, its
// stdout ends, a write fails or the connection errors, every pending request is rejected with
// an AgentExitedError that says why (code, signal, stderr tail), and `closed` resolves.
import type {
  AuthenticateRequest,
  AuthenticateResponse,
  CancelNotification,
  InitializeRequest,
  InitializeResponse,
  NewSessionRequest,
  NewSessionResponse,
  LoadSessionRequest,
  LoadSessionResponse,
  ResumeSessionRequest,
  ResumeSessionResponse,
  ListSessionsRequest,
  ListSessionsResponse,
  CloseSessionRequest,
  DeleteSessionRequest,
  PromptRequest,
  PromptResponse,
  ReadTextFileRequest,
  ReadTextFileResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  SetSessionConfigOptionRequest,
  SetSessionConfigOptionResponse,
  SetSessionModeRequest,
  SetSessionModeResponse,
  WriteTextFileRequest,
  WriteTextFileResponse,
} from '@agentclientprotocol/sdk';
import { createMessageConnection, ErrorCodes, ResponseError, type CancellationToken, type MessageConnection } from 'vscode-jsonrpc/node';
import type { Logger } from '../util/logger';
import { Deferred } from '../util/deferred';
import { describeExit, type AgentProcess, type ExitInfo } from './agentProcess';
import { cancellable, withAcpCancellation } from './cancelRequest';
import { completedId, InvalidElicitation, parseElicitation, type ElicitationAnswer, type ElicitationRequest } from './elicitationParams';
import type { TerminalMethods } from './clientMethods/terminals';
import { LineTooLargeError, NdjsonMessageReader, NdjsonMessageWriter } from './framing';
import { DEFAULT_FLOW_LIMITS, ReadFlow, type FlowLimits } from './readFlow';
import { boundedJson, ProtocolTracer, type TraceLevel } from './trace';

/** Why the connection ended. Each one is a "dead stream" exit path for a running turn. */
export type CloseCause = 'process-exited' | 'stream-closed' | 'write-failed' | 'connection-error' | 'line-too-large' | 'disposed';

export interface ConnectionClosed {
  cause: CloseCause;
  detail: string;
  exit?: ExitInfo;
}

export class AgentExitedError extends Error {
  constructor(readonly closed: ConnectionClosed) {
    super(`the agent ${closed.exit ? describeExit(closed.exit) : closed.detail}`);
    this.name = 'AgentExitedError';
  }
}

export class TimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} got no answer within ${Math.round(ms / 1000)} s`);
    this.name = 'TimeoutError';
  }
}

/** What the agent may ask of the client. Unset optional handlers answer -32601. */
export interface ClientHandlers {
  sessionUpdate(params: SessionNotification): void;
  /** `signal` fires when the agent withdraws the request ($/cancel_request); it is then answered -32800. */
  requestPermission(params: RequestPermissionRequest, signal?: AbortSignal): Promise<RequestPermissionResponse>;
  /** elicitation/create, its params checked (elicitationParams.ts); `signal` as for requestPermission. */
  elicit?(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer>;
  /** elicitation/complete's id (unknown and repeated ids are the handler's to ignore). */
  elicitationComplete?(elicitationId: string): void;
  readTextFile?(params: ReadTextFileRequest): Promise<ReadTextFileResponse>;
  writeTextFile?(params: WriteTextFileRequest): Promise<WriteTextFileResponse>;
  /** terminal/* by method name (clientMethods/terminals.ts checks the rest of their params). */
  terminal?: TerminalMethods;
}

export interface ConnectionOptions {
  trace?: () => TraceLevel;
  maxLineBytes?: number;
  /** When reading the agent's output pauses (readFlow.ts). */
  flow?: FlowLimits;
}

/** How long to wait for the process's exit status after its stdout ended. */
const EXIT_INFO_WAIT_MS = 500;

export class AcpConnection {
  private readonly rpc: MessageConnection;
  /** Reading pauses while too many of the agent's messages wait to be handled. */
  private readonly flow: ReadFlow;
  private readonly closedDeferred = new Deferred<ConnectionClosed>();
  /** Resolves (never rejects) once, when the connection can carry no more messages. */
  readonly closed: Promise<ConnectionClosed> = this.closedDeferred.promise;

  constructor(
    private readonly agent: AgentProcess,
    handlers: ClientHandlers,
    private readonly log: Logger,
    options: ConnectionOptions = {},
  ) {
    const tracer = new ProtocolTracer(log, options.trace ?? (() => 'off'));
    const limits = options.flow ?? DEFAULT_FLOW_LIMITS;
    const flow = (this.flow = new ReadFlow(agent.stdout, limits, undefined, (messages, bytes) =>
      log.warn(`reading the agent's output resumed after ${limits.stallMs} ms with nothing handled, ${messages} messages (${bytes} bytes) counted as waiting`),
    ));
    const reader = new NdjsonMessageReader(
      agent.stdout,
      {
        onMalformedLine: (first, error) => log.warn(`skipped a line from the agent that is not JSON-RPC (${error}): ${first}`),
        onMessage: (m, bytes) => {
          tracer.incoming(m, bytes);
          flow.queued(m, bytes);
        },
      },
      options.maxLineBytes,
    );
    const writer = new NdjsonMessageWriter(agent.stdin, { onMessage: (m, bytes) => tracer.outgoing(m, bytes) });

    // ACP's `$/cancel_request` reaches vscode-jsonrpc as the `$/cancelRequest` it knows (cancelRequest.ts).
    const withdrawn = (id: unknown) => log.info(`the agent withdrew its request ${JSON.stringify(id)} ($/cancel_request)`);
    this.rpc = createMessageConnection(
      withAcpCancellation(reader, withdrawn),
      writer,
      {
        error: (m) => log.warn(`[jsonrpc] ${m}`),
        warn: (m) => log.warn(`[jsonrpc] ${m}`),
        info: (m) => log.info(`[jsonrpc] ${m}`),
        log: (m) => log.debug(`[jsonrpc] ${m}`),
      },
      {
        // Called as the library takes a message from its queue: what waits shrinks by one.
        messageStrategy: {
          handleMessage: (message, next) => {
            flow.handled(message);
            return next(message);
          },
        },
      },
    );

    reader.onError((error) => {
      if (error instanceof LineTooLargeError) this.close('line-too-large', error.message);
      else this.close('connection-error', `reading from the agent failed: ${error.message}`);
    });
    reader.onClose(() => this.close('stream-closed', "the agent's output stream closed"));
    writer.onError(([error]) => this.close('write-failed', `writing to the agent failed: ${error.message}`));
    void agent.exited.then(() => this.close('process-exited', 'the agent process exited'));

    this.rpc.onRequest('session/request_permission', (params: RequestPermissionRequest, token: CancellationToken) => {
      requireSession(params, 'session/request_permission');
      if (!Array.isArray(params.options)) throw invalid('session/request_permission needs options');
      return cancellable(token, (signal) => handlers.requestPermission(params, signal));
    });
    if (handlers.elicit) {
      const elicit = handlers.elicit.bind(handlers);
      this.rpc.onRequest('elicitation/create', (params: unknown, token: CancellationToken) => {
        let request: ElicitationRequest;
        try {
          request = parseElicitation(params);
        } catch (error) {
          if (!(error instanceof InvalidElicitation)) throw error;
          log.warn(`refused an elicitation the spec does not allow (-32602): ${error.message}`);
          throw invalid(error.message);
        }
        return cancellable(token, (signal) => elicit(request, signal));
      });
    }
    if (handlers.elicitationComplete) {
      const complete = handlers.elicitationComplete.bind(handlers);
      this.rpc.onNotification('elicitation/complete', (params: unknown) => {
        const id = completedId(params);
        if (id === undefined) log.warn(`ignored a malformed elicitation/complete: ${boundedJson(params, 200)}`);
        else complete(id);
      });
    }
    if (handlers.readTextFile) {
      const read = handlers.readTextFile.bind(handlers);
      this.rpc.onRequest('fs/read_text_file', (params: ReadTextFileRequest) => {
        this.requireClientSurface('fs/read_text_file');
        requireSession(params, 'fs/read_text_file');
        if (typeof params.path !== 'string') throw invalid('fs/read_text_file needs a path');
        return read(params);
      });
    }
    if (handlers.writeTextFile) {
      const write = handlers.writeTextFile.bind(handlers);
      this.rpc.onRequest('fs/write_text_file', (params: WriteTextFileRequest) => {
        this.requireClientSurface('fs/write_text_file');
        requireSession(params, 'fs/write_text_file');
        if (typeof params.path !== 'string' || typeof params.content !== 'string') {
          throw invalid('fs/write_text_file needs a path and content');
        }
        return write(params);
      });
    }
    for (const [method, handle] of Object.entries(handlers.terminal ?? {}) as [string, (params: unknown) => Promise<unknown>][]) {
      this.rpc.onRequest(method, (params: { sessionId?: unknown } | undefined) => {
        this.requireClientSurface(method);
        requireSession(params, method);
        return handle(params);
      });
    }
    this.rpc.onNotification('session/update', (params: SessionNotification) => {
      if (!params || typeof params.sessionId !== 'string' || typeof params.update !== 'object') {
        log.warn(`ignored a malformed session/update: ${boundedJson(params, 200)}`);
        return;
      }
      handlers.sessionUpdate(params);
    });
    this.rpc.onUnhandledNotification((n) => log.debug(`ignored notification ${n.method}`));
    this.rpc.listen();
  }

  private closing = false;
  /** ACP v2 removed the client's fs/* and terminal/* (migration.mdx): off once v2 is agreed. */
  private clientSurface = true;

  /** The agent speaks v2: its fs/* and terminal/* requests are unknown methods from now on. */
  dropClientSurface(): void {
    this.clientSurface = false;
  }

  private requireClientSurface(method: string): void {
    if (!this.clientSurface) throw new ResponseError(ErrorCodes.MethodNotFound, `Method not found: ${method} (not an ACP v2 method)`);
  }

  get isClosed(): boolean {
    return this.closing;
  }

  initialize(params: InitializeRequest, timeoutMs: number): Promise<InitializeResponse> {
    return this.request<InitializeResponse>('initialize', params, timeoutMs);
  }

  newSession(params: NewSessionRequest, timeoutMs: number): Promise<NewSessionResponse> {
    return this.request<NewSessionResponse>('session/new', params, timeoutMs);
  }

  /** The answer is the complete set of options again (session-config-options.mdx). */
  setConfigOption(params: SetSessionConfigOptionRequest, timeoutMs: number): Promise<SetSessionConfigOptionResponse> {
    return this.request<SetSessionConfigOptionResponse>('session/set_config_option', params, timeoutMs);
  }

  /**
   * The agent replays the conversation as session/update notifications before it answers; no
   * time limit here, a long replay is watched by its caller (runtime/sessionSwitch.ts). The
   * spec's own example answers `null`.
   */
  loadSession(params: LoadSessionRequest): Promise<LoadSessionResponse | null> {
    return this.request<LoadSessionResponse | null>('session/load', params);
  }

  /** ACP v2's load: session/resume replaying the conversation from its start; no time limit, as loadSession. */
  replaySession(params: ResumeSessionRequest): Promise<LoadSessionResponse | null> {
    return this.request<LoadSessionResponse | null>('session/resume', { ...params, replayFrom: { type: 'start' } });
  }

  resumeSession(params: ResumeSessionRequest, timeoutMs: number): Promise<ResumeSessionResponse | null> {
    return this.request<ResumeSessionResponse | null>('session/resume', params, timeoutMs);
  }

  /** One page; `nextCursor` names the next (runtime/sessionList.ts asks for all). */
  listSessions(params: ListSessionsRequest, timeoutMs: number): Promise<ListSessionsResponse> {
    return this.request<ListSessionsResponse>('session/list', params, timeoutMs);
  }

  closeSession(params: CloseSessionRequest, timeoutMs: number): Promise<unknown> {
    return this.request<unknown>('session/close', params, timeoutMs);
  }

  deleteSession(params: DeleteSessionRequest, timeoutMs: number): Promise<unknown> {
    return this.request<unknown>('session/delete', params, timeoutMs);
  }

  setMode(params: SetSessionModeRequest, timeoutMs: number): Promise<SetSessionModeResponse> {
    return this.request<SetSessionModeResponse>('session/set_mode', params, timeoutMs);
  }

  /** Only after the user chose the method (auth/signIn.ts); an OAuth flow may take minutes. */
  authenticate(params: AuthenticateRequest, timeoutMs: number, v2 = false): Promise<AuthenticateResponse> {
    return this.request<AuthenticateResponse>(v2 ? 'auth/login' : 'authenticate', params, timeoutMs);
  }

  /** No time limit: a turn lasts as long as it lasts; the turn controller owns its budget. */
  prompt(params: PromptRequest): Promise<PromptResponse> {
    return this.request<PromptResponse>('session/prompt', params);
  }

  /** Text into the running turn, by the method this agent offers (runtime/steering.ts says which). */
  steer(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    return this.request<unknown>(method, params, timeoutMs);
  }

  /** `session/cancel` is a notification: no id, no answer. Resolves when written. */
  cancel(params: CancelNotification): Promise<void> {
    if (this.isClosed) return Promise.reject(new AgentExitedError(this.closedSnapshot()));
    // vscode-jsonrpc throws (not rejects) once the agent's stdin has closed, which can come a
    // moment before its stdout ends and `closed` says so: a re-send then must not be uncaught.
    try {
      return this.rpc.sendNotification('session/cancel', params);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private request<R>(method: string, params: unknown, timeoutMs?: number): Promise<R> {
    if (this.isClosed) return Promise.reject(new AgentExitedError(this.closedSnapshot()));
    // vscode-jsonrpc rejects what is pending with its own "disposed" error when we dispose it
    // on close; say instead why the connection closed.
    const pending = this.rpc.sendRequest<R>(method, params).catch((error: unknown) => {
      if (this.closing)
        return this.closed.then((closed): R => {
          throw new AgentExitedError(closed);
        });
      throw error;
    });
    const racers: Promise<R>[] = [
      pending,
      this.closed.then((closed) => {
        throw new AgentExitedError(closed);
      }),
    ];
    let timer: NodeJS.Timeout | undefined;
    if (timeoutMs !== undefined) {
      racers.push(
        new Promise<R>((_, reject) => {
          timer = setTimeout(() => reject(new TimeoutError(method, timeoutMs)), timeoutMs);
        }),
      );
    }
    return Promise.race(racers).finally(() => clearTimeout(timer));
  }

  private closedSnapshot(): ConnectionClosed {
    return { cause: 'disposed', detail: 'the connection is closed', exit: this.agent.exit };
  }

  private close(cause: CloseCause, detail: string): void {
    if (this.closing) return;
    this.closing = true;
    this.flow.close();
    // Mark closed now so no new request starts; the reason waits briefly for the exit status
    // so that the error can say "exited with code 3" rather than "stream closed".
    const finish = (exit: ExitInfo | undefined) => {
      if (this.closedDeferred.settled) return;
      const closed: ConnectionClosed = { cause: exit && cause === 'stream-closed' ? 'process-exited' : cause, detail, exit };
      this.log.info(`connection closed: ${closed.cause}: ${exit ? describeExit(exit) : detail}`);
      this.closedDeferred.resolve(closed);
      this.rpc.dispose();
    };
    if (this.agent.exit) {
      finish(this.agent.exit);
      return;
    }
    const timer = setTimeout(() => finish(this.agent.exit), EXIT_INFO_WAIT_MS);
    void this.agent.exited.then((exit) => {
      clearTimeout(timer);
      finish(exit);
    });
  }

  dispose(): void {
    this.close('disposed', 'the connection was disposed');
  }
}

function invalid(message: string): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, message);
}

function requireSession(params: { sessionId?: unknown } | undefined, method: string): void {
  if (!params || typeof params.sessionId !== 'string') throw invalid(`${method} needs a sessionId`);
}
