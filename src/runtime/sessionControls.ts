// The session's side that is not the turn: how a session is opened (its MCP servers, the
// updates that come before the answer), what the agent says about it (modes, config options,
// slash commands, title, usage: sessionConfig.ts), and the requests that change it
// (`session/set_config_option`, `session/set_mode`). The runtime owns one of these; no
// `vscode` here.
//
// A config change while a turn runs is sent at once: the spec allows it "at any point during
// a session, whether the Agent is idle or generating a response" (session-config-options.mdx,
// session-modes.mdx). It starts no work, so the folder admission does not apply to it.
import type { InitializeResponse, McpServer, NewSessionRequest, SessionModeState, SessionConfigOption, SessionNotification } from '@agentclientprotocol/sdk';
import { ResponseError } from 'vscode-jsonrpc/node';
import type { AcpConnection } from '../acp/connection';
import { typedServers } from '../acp/v2Init';
import { serversFor } from '../acp/mcpServers';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { PendingUpdates } from './pendingUpdates';
import { SessionConfig, type SetValue } from './sessionConfig';

/** What `reins.setConfigOption` resolves with. */
export type SetConfigResult =
  { status: 'ok'; configId: string; value: SetValue; method: 'session/set_config_option' | 'session/set_mode' } | { status: 'failed'; error: string };

export interface ControlsPort {
  readonly name: string;
  readonly log: Logger;
  link(): { conn: AcpConnection | undefined; sessionId: string | undefined };
  phase(): string;
  /** How long a session/set_* request may take. */
  timeoutMs(): number;
  /** The validated `reins.mcpServers` (empty when unset). */
  mcpServers?(): McpServer[];
}

export type McpSkipped = { name: string; type: 'http' | 'sse' }[];

/** The update kinds Reins shows or keeps; any other is logged once per kind. */
const KNOWN_UPDATES = new Set([
  'agent_message_chunk',
  'agent_thought_chunk',
  'user_message_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
  'available_commands_update',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
  'usage_update',
]);

export class SessionControls {
  private current: SessionConfig | undefined;
  private readonly early = new PendingUpdates();
  /** Requests in flight that create a session: while > 0, updates for unknown ids are kept. */
  private opening = 0;
  private readonly unknownKinds = new Set<string>();

  private readonly _onDidChange = new Emitter<void>();
  /** The config, commands, title or usage changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onMcpSkipped = new Emitter<McpSkipped>();
  /** Servers left out of a session because the agent does not advertise their transport. */
  readonly onMcpSkipped = this._onMcpSkipped.event;

  constructor(private readonly port: ControlsPort) {}

  /** The current session's config (undefined before the first session exists). */
  get config(): SessionConfig | undefined {
    return this.current;
  }

  /** The MCP servers this agent may be given: stdio always, http / sse per `mcpCapabilities`. */
  mcpServersFor(init: InitializeResponse | undefined): McpServer[] {
    const { allowed, skipped } = serversFor(this.port.mcpServers?.() ?? [], init?.agentCapabilities?.mcpCapabilities);
    if (skipped.length > 0) {
      for (const s of skipped)
        this.port.log.info(`MCP server "${s.name}" (${s.type}) not given to ${this.port.name}: it does not advertise mcpCapabilities.${s.type}`);
      this._onMcpSkipped.fire(skipped);
    }
    return (init?.protocolVersion ?? 1) >= 2 ? typedServers(allowed) : allowed;
  }

  newSessionParams(cwd: string, init: InitializeResponse | undefined): NewSessionRequest {
    return { cwd, mcpServers: this.mcpServersFor(init) };
  }

  /**
   * Run a request that creates a session (session/new; load and resume alike). Updates for a
   * session not known yet are kept meanwhile; once `install` has made the answer's session
   * the current one, they are delivered in order, and then the answer's modes and options
   * are applied (the answer was written after them).
   */
  async open<T extends { modes?: SessionModeState | null; configOptions?: SessionConfigOption[] | null } | null>(
    request: () => Promise<T>,
    install: (answer: T) => string,
    deliver: (n: SessionNotification) => void,
  ): Promise<T> {
    this.opening++;
    let answer: T;
    try {
      answer = await request();
    } catch (error) {
      if (--this.opening === 0) this.early.clear();
      throw error;
    }
    this.opening--;
    const sessionId = install(answer);
    const config = new SessionConfig(sessionId);
    this.current = config;
    if (this.early.dropped > 0) this.port.log.warn(`${this.early.dropped} update(s) that came before the session existed were dropped (too many)`);
    const kept = this.early.take(sessionId);
    if (kept.length > 0) this.port.log.debug(`applying ${kept.length} update(s) for session ${sessionId} that came before its answer`);
    for (const n of kept) deliver(n);
    config.setInitial(answer);
    this._onDidChange.fire();
    return answer;
  }

  /** An update for a session that is not the current one: kept while one is being opened. */
  keepEarly(n: SessionNotification): boolean {
    if (this.opening === 0) return false;
    this.early.keep(n);
    return true;
  }

  /** An update for the current session. */
  note(n: SessionNotification): void {
    const kind = String(n.update?.sessionUpdate);
    if (!KNOWN_UPDATES.has(kind)) {
      if (this.unknownKinds.has(kind)) return;
      this.unknownKinds.add(kind);
      this.port.log.info(
        `${this.port.name} sent a session/update of kind "${kind}", which Reins does not handle (said once per kind): ${JSON.stringify(n.update).slice(0, 300)}`,
      );
      return;
    }
    if (this.current?.sessionId === n.sessionId && this.current.apply(n.update)) this._onDidChange.fire();
  }

  /** Set `configId` ('mode' and 'model' name the option of that category) to `value`. */
  async set(configId: string, value: SetValue): Promise<SetConfigResult> {
    const { conn, sessionId } = this.port.link();
    const config = this.current;
    if (this.port.phase() !== 'ready' || !conn || conn.isClosed || !sessionId || config?.sessionId !== sessionId) {
      return { status: 'failed', error: `${this.port.name} has no session (it is ${this.port.phase()})` };
    }
    const plan = config.plan(configId, value);
    if ('error' in plan) return { status: 'failed', error: plan.error };
    const target = plan.method === 'session/set_mode' ? 'mode' : plan.params.configId;
    try {
      const timeout = this.port.timeoutMs();
      const answer = plan.method === 'session/set_mode' ? await conn.setMode(plan.params, timeout) : await conn.setConfigOption(plan.params, timeout);
      config.applySetAnswer(plan, answer);
      this.port.log.info(`${this.port.name}: ${target} set to ${JSON.stringify(value)} (${plan.method})`);
      if (this.current === config) this._onDidChange.fire();
      return { status: 'ok', configId: target, value, method: plan.method };
    } catch (error) {
      const why = describe(error, plan.method);
      this.port.log.warn(`${this.port.name}: setting ${target} to ${JSON.stringify(value)} failed: ${why}`);
      return { status: 'failed', error: why };
    }
  }

  dispose(): void {
    this._onDidChange.dispose();
    this._onMcpSkipped.dispose();
  }
}

function describe(error: unknown, method: string): string {
  if (error instanceof ResponseError) {
    if (error.code === -32601) return `the agent does not support ${method}`;
    const data = error.data === undefined ? '' : `: ${typeof error.data === 'string' ? error.data : JSON.stringify(error.data)}`;
    return `${error.message}${data}`;
  }
  return (error as Error)?.message ?? String(error);
}
