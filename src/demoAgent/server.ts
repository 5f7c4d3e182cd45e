// The agent side of ACP: initialize, session/new, session/prompt, session/cancel (and, with a
// `sessions` block, session/load, resume, list, close, delete: sessions.ts); everything
// else is -32601. Turns of one session run one at a time (goose: a second one is rejected).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { InitializeResponse } from '@agentclientprotocol/sdk' with { 'resolution-mode': 'import' };
import { AuthGate } from './auth';
import { DEMO_SESSION, demoBody } from './demo';
import { clientFs, type ClientFs } from './demoFiles';
import { INVALID_PARAMS, METHOD_NOT_FOUND, Peer, type Id, type Message, type RpcError } from './peer';
import type { Recorder } from './recorder';
import { faultSpent, injectFault, isFrozen, type Fault } from './faults';
import { behaviourFor, type Behaviour, type Scenario } from './scenario';
import { isObj } from './scenarioCheck';
import { SessionBook } from './sessions';
import { AgentSessionConfig, answerSet, elicitFirst, paramsOf } from './sessionConfig';
import { scriptedBody } from './steps';
import { Tools } from './tools';
import { Turn, type TurnHost } from './turn';
import { writeLine } from './wire';

interface Session {
  id: string;
  cwd: string;
  /** The turn being answered; a goose run stays reserved until its answer. */
  turn?: Turn;
  queue: Turn[];
  /** oneBehindAfterCancel: a turn of this session was cancelled, the next answer is the stale one. */
  behind?: boolean;
  /** A cancelled turn's `afterCancel.atNextPrompt`: sent when the next prompt arrives. */
  lateAtNextPrompt?: () => void;
  /** Its modes and config options (a scenario's `session`: sessionConfig.ts). */
  config?: AgentSessionConfig;
}

const invalid = (data: string): RpcError => ({ code: INVALID_PARAMS, message: 'Invalid params', data });

/** Every prompt's answer once the scenario's one-time fault is spent (faults.ts). */
const RECOVERED: Behaviour = { steps: [{ text: 'recovered' }] };

export class Agent implements TurnHost {
  readonly peer: Peer;
  readonly tools: Tools;
  readonly goose: boolean;
  /** `state_update`s: beside the answer (scenario.stateUpdates), or v2's lifecycle once version 2 is agreed. */
  states: 'none' | 'v1' | 'v2';
  /** An earlier process of this agent had the scenario's one-time fault: answer every prompt at once (faults.ts). */
  private readonly recovered: boolean;
  private readonly sessions = new Map<string, Session>();
  private promptCount = 0;
  /** The client runs terminals (initialize's clientCapabilities.terminal): the demonstration shows one. */
  private clientTerminals = false;
  /** The client's fs methods (initialize's clientCapabilities.fs): the demonstration's edit goes through them. */
  private clientFs: ClientFs = { read: false, write: false };
  /** Sign-in (auth.ts): only with the scenario's `auth` block. */
  private readonly auth: AuthGate | undefined;
  /** session/load, resume, list, close, delete: only with the scenario's `sessions` block. */
  private readonly book: SessionBook | undefined;

  /** `scenario` undefined: the demonstration agent. */
  constructor(
    readonly rec: Recorder,
    private readonly scenario: Scenario | undefined,
  ) {
    this.peer = new Peer(rec, writeLine);
    this.tools = new Tools(rec);
    this.goose = scenario?.goose === true;
    this.states = scenario?.stateUpdates ? 'v1' : 'none';
    this.recovered = faultSpent(scenario?.fault?.once);
    this.auth = scenario?.auth ? new AuthGate(scenario.auth, rec, process.env) : undefined;
    this.book = scenario?.sessions ? new SessionBook(scenario.sessions, rec) : undefined;
    this.book?.tap(this.peer);
  }

  /** Exits now: what is still queued for stdout is lost, as when a real agent dies. */
  exit(code: number, reason: string): never {
    this.rec.event('exiting', { code, reason });
    this.tools.killOnExit();
    process.exit(code);
  }

  /** The scenario's fault at `at` (faults.ts); false when this process is past it. */
  fault(fault: Fault, at: string): boolean {
    return !this.recovered && injectFault(this.rec, fault, at, this.scenario?.fault?.once, this.scenario?.fault?.armed);
  }

  /** A clean exit (stdin closed, SIGTERM): first lets stdout drain, for at most two seconds. */
  shutdown(code: number, reason: string): void {
    if (process.stdout.writableLength === 0) this.exit(code, reason);
    this.rec.event('draining', { bytes: process.stdout.writableLength });
    const exit = () => this.exit(code, reason);
    process.stdout.write('', exit);
    setTimeout(exit, 2000);
  }

  onLine(line: string): void {
    if (isFrozen()) return; // hung: lines still buffered are never read
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.rec.in({ raw: line });
      this.rec.event('unparsable-line', { bytes: Buffer.byteLength(line) });
      return;
    }
    this.rec.in(msg);
    if (!isObj(msg)) {
      this.rec.event('not-a-message');
      return;
    }
    const m = msg as Message;
    if (this.peer.takeResponse(m)) return;
    if (typeof m.method !== 'string') {
      this.rec.event('not-a-message');
      if ('id' in m) this.peer.fail(m.id ?? null, { code: -32600, message: 'Invalid Request' });
      return;
    }
    if ('id' in m) this.onRequest(m.id ?? null, m.method, m.params);
    else this.onNotification(m.method, m.params);
  }

  onStdinEnd(): void {
    this.rec.event('stdin-closed');
    if (!this.scenario?.startup?.stayOnStdinClose) this.shutdown(0, 'stdin-closed');
    // Stay alive with nothing to do, as codex-acp does, until a signal ends it.
    else setInterval(() => {}, 1 << 30);
  }

  private onRequest(id: Id, method: string, params: unknown): void {
    switch (method) {
      case 'initialize':
        return this.initialize(id, params);
      case 'session/new':
        return this.newSession(id, params);
      case 'session/prompt':
        return this.prompt(id, params);
      case 'session/set_mode':
      case 'session/set_config_option':
        return this.setConfig(id, method, params);
      case 'authenticate':
        if (this.auth) return this.auth.authenticate(id, params, this.peer);
        this.rec.event('unknown-request', { id, method });
        return this.peer.fail(id, { code: METHOD_NOT_FOUND, message: 'Method not found', data: method });
      case '_session/steering':
      case '_goose/unstable/session/steer':
        if (this.scenario?.steering === (method === '_session/steering' ? 'acp' : 'goose')) return this.steer(id, method, params);
        this.rec.event('unknown-request', { id, method });
        return this.peer.fail(id, { code: METHOD_NOT_FOUND, message: 'Method not found', data: method });
      case 'session/cancel':
        // goose: a cancel sent as a request is an unknown method, and cancels nothing.
        this.rec.event('cancel-as-request', { id });
        return this.peer.fail(id, { code: METHOD_NOT_FOUND, message: 'Method not found', data: method });
      default:
        if (this.book?.handles(method)) return this.book.handle(id, method, params, this.live, this.peer);
        this.rec.event('unknown-request', { id, method });
        return this.peer.fail(id, { code: METHOD_NOT_FOUND, message: 'Method not found', data: method });
    }
  }

  private onNotification(method: string, params: unknown): void {
    if (method !== 'session/cancel') {
      this.rec.event('unknown-notification', { method });
      return;
    }
    const sessionId = isObj(params) ? params.sessionId : undefined;
    const session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (!session) {
      this.rec.event('cancel-unknown-session', { sessionId });
      return;
    }
    if (!session.turn) {
      this.rec.event('cancel-without-turn', { sessionId });
      return;
    }
    session.turn.cancel('session/cancel');
    // claude, OpenCode and pi: one cancel cancels the queued prompts too.
    for (const queued of session.queue) queued.cancel('session/cancel');
  }

  private initialize(id: Id, params: unknown): void {
    if (!isObj(params) || typeof params.protocolVersion !== 'number') {
      return this.peer.fail(id, invalid('protocolVersion must be a number'));
    }
    const init = this.scenario?.init ?? {};
    this.clientTerminals = isObj(params.clientCapabilities) && params.clientCapabilities.terminal === true;
    this.clientFs = clientFs(params.clientCapabilities);
    for (const line of init.stderr ?? []) process.stderr.write(line + '\n');
    if (init.exitCode !== undefined) this.exit(init.exitCode, 'initialize');
    const fault = this.scenario?.fault?.initialize;
    if (fault && this.fault(fault, 'initialize')) return;
    if (init.never) {
      this.rec.event('initialize-unanswered', { id });
      return;
    }
    // ACP v2's negotiation: a version it does not speak is refused, listing those it does.
    if (init.supported && !init.supported.includes(params.protocolVersion)) {
      this.rec.event('version-refused', { id, requested: params.protocolVersion });
      return this.peer.fail(id, {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { requested: params.protocolVersion, supported: init.supported },
      });
    }
    const version = init.supported ? params.protocolVersion : (init.protocolVersion ?? 1);
    if (version >= 2) this.states = 'v2';
    if (this.book && version >= 2) this.book.v2 = true;
    const result: InitializeResponse = {
      // A scenario may answer another version: Reins must refuse it.
      protocolVersion: version,
      agentCapabilities: {
        loadSession: this.book?.options.load === true,
        ...(this.book ? { sessionCapabilities: this.book.capabilities() } : {}),
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        // A scenario's `init.capabilities` replace these (promptCapabilities, mcpCapabilities, …).
        ...(init.capabilities as object | undefined),
      },
      // Advertised as claude-agent-acp and codex-acp do (later versions than those pinned in test/agents).
      ...(this.scenario?.steering === 'acp' ? { _meta: { steering: { supported: true } } } : {}),
      // ACP v2's capabilities: `session` is the baseline (list, resume, close).
      ...(this.book?.v2 ? { capabilities: { session: this.book.options.delete ? { delete: {} } : {} } } : {}),
      agentInfo: init.agentInfo
        ? { version: '1.0.0', ...init.agentInfo }
        : {
            name: 'reins-scripted-agent',
            title: this.scenario
              ? `Reins scripted agent${this.scenario.name ? ` (${this.scenario.name})` : ''}`
              : 'Reins demonstration agent (scripted, no model)',
            version: '1.0.0',
          },
      authMethods: (this.auth?.methods ?? []) as InitializeResponse['authMethods'],
    };
    // ACP v2 answers in its own shape only: `info` and `capabilities` (v1's fields are gone).
    const { agentCapabilities: _v1Caps, agentInfo, ...rest } = result;
    const v2 = { ...rest, info: agentInfo, capabilities: (result as { capabilities?: object }).capabilities ?? {} };
    const answer = () => this.peer.respond(id, version >= 2 ? v2 : result);
    if (init.delayMs) setTimeout(answer, init.delayMs);
    else answer();
  }

  private newSession(id: Id, params: unknown): void {
    if (!isObj(params) || typeof params.cwd !== 'string') return this.peer.fail(id, invalid('cwd must be a string'));
    if (!Array.isArray(params.mcpServers)) return this.peer.fail(id, invalid('mcpServers must be an array'));
    const fault = this.scenario?.fault?.sessionNew;
    if (fault && this.fault(fault, 'session/new')) return;
    const refused = this.auth?.refuse('session');
    if (refused) return this.peer.fail(id, refused);
    const sessionId = this.book?.nextId() ?? `sess-${this.sessions.size + 1}`;
    // The demonstration offers a pretend mode and model, and slash commands (demo.ts).
    const setup = this.scenario ? this.scenario.session : DEMO_SESSION;
    const config = new AgentSessionConfig(setup);
    this.sessions.set(sessionId, { id: sessionId, cwd: params.cwd, queue: [], config });
    this.book?.created(sessionId, params.cwd);
    const own = this.scenario?.startup?.sessionProcess;
    if (own) void this.tools.start(own, this.sessions, true, `session-process:${sessionId}`);
    // Updates for the new session before its answer, as several agents send them.
    for (const update of setup?.before ?? []) this.peer.notify('session/update', { sessionId, update });
    const answer = () => this.peer.respond(id, { sessionId, ...config.answerFields() });
    void (setup?.elicit ? elicitFirst(setup.elicit, id, this.peer, this.rec).then(answer) : answer());
  }

  private prompt(id: Id, params: unknown): void {
    if (!isObj(params) || typeof params.sessionId !== 'string') return this.peer.fail(id, invalid('sessionId must be a string'));
    if (!Array.isArray(params.prompt)) return this.peer.fail(id, invalid('prompt must be an array of content blocks'));
    const session = this.sessions.get(params.sessionId);
    if (!session) return this.peer.fail(id, invalid(`unknown session ${params.sessionId}`));
    const refused = this.auth?.refuse('prompt');
    if (refused) return this.peer.fail(id, refused);
    const running = session.turn;
    if (running && this.goose) {
      this.rec.event('busy-rejected', { requestId: id, runId: running.runId });
      return this.peer.fail(id, invalid(`session already has active run \`${running.runId}\`; use _goose/unstable/session/steer`));
    }
    this.book?.prompted(session.id, promptText(params.prompt), this.states === 'v2');
    session.lateAtNextPrompt?.();
    session.lateAtNextPrompt = undefined;
    const index = this.nextPromptIndex();
    const behaviour = this.recovered ? RECOVERED : this.scenario ? behaviourFor(this.scenario, index) : { steps: [] };
    if (session.behind && !running) return void this.answerOneBehind(id, session, behaviour);
    const body = this.scenario
      ? scriptedBody(behaviour, this)
      : demoBody(promptText(params.prompt), session.cwd, { first: index === 0, terminals: this.clientTerminals, fs: this.clientFs });
    const turn = new Turn(id, session, index, behaviour, body, this);
    // ACP v2: the answer says the prompt was taken in; its end is the idle state_update.
    if (this.states === 'v2') {
      this.peer.respond(id, { messageId: `msg-${index + 1}` });
      // Where the prompt went in the session's history, and its id (v2's acknowledgement).
      const ack = { sessionUpdate: 'user_message', messageId: `user-${index + 1}`, content: params.prompt };
      this.peer.notify('session/update', { sessionId: session.id, update: ack });
    }
    if (running) {
      this.rec.event('prompt-while-busy', { requestId: id, running: running.requestId });
      session.queue.push(turn);
    } else {
      this.start(session, turn);
    }
  }

  /**
   * Text into the running turn. ACP's extension answers `{ outcome }` (`injected`, or, asked for
   * `promptRequired` when no turn runs, `promptRequired`); goose's needs the run id it announced
   * and answers `{}`, or -32602 when there is no such run.
   */
  private steer(id: Id, method: string, params: unknown): void {
    if (!isObj(params) || typeof params.sessionId !== 'string' || !Array.isArray(params.prompt)) {
      return this.peer.fail(id, invalid('sessionId and prompt are required'));
    }
    const session = this.sessions.get(params.sessionId);
    if (!session) return this.peer.fail(id, invalid(`unknown session ${params.sessionId}`));
    const text = promptText(params.prompt);
    const turn = session.turn;
    if (method === '_goose/unstable/session/steer') {
      if (!turn || params.expectedRunId !== turn.runId || !turn.steer(text)) {
        this.rec.event('steer-refused', { id, expectedRunId: params.expectedRunId, runId: turn?.runId });
        return this.peer.fail(id, invalid(`no active run \`${String(params.expectedRunId)}\` to steer`));
      }
      return this.peer.respond(id, {});
    }
    if (turn?.steer(text)) return this.peer.respond(id, { outcome: 'injected' });
    this.rec.event('steer-refused', { id });
    return this.peer.respond(id, { outcome: 'promptRequired', reason: 'noRunningTurn' });
  }

  /** What session/load, resume and close do to the sessions this process runs. */
  private readonly live = {
    open: (sessionId: string, cwd: string) => {
      let session = this.sessions.get(sessionId);
      if (!session) {
        session = { id: sessionId, cwd, queue: [], config: new AgentSessionConfig(this.scenario?.session) };
        this.sessions.set(sessionId, session);
      }
      return session.config?.answerFields() ?? {};
    },
    close: (sessionId: string) => {
      const session = this.sessions.get(sessionId);
      if (!session) return false;
      // "as if session/cancel had been called" (session-setup.mdx), then the session is gone.
      session.turn?.cancel('session/cancel');
      for (const queued of session.queue) queued.cancel('session/cancel');
      this.sessions.delete(sessionId);
      return true;
    },
  };

  /** session/set_mode and session/set_config_option, against the session's own copy. */
  private setConfig(id: Id, method: string, params: unknown): void {
    const p = paramsOf(params);
    const session = typeof p.sessionId === 'string' ? this.sessions.get(p.sessionId) : undefined;
    if (!session) return this.peer.fail(id, invalid(`unknown session ${JSON.stringify(p.sessionId)}`));
    // A session reopened by session/load or resume gets the scenario's options afresh.
    const config = (session.config ??= new AgentSessionConfig(this.scenario?.session));
    const outcome = method === 'session/set_mode' ? config.setMode(p) : config.setConfig(p);
    if (outcome === 'unknown-method') {
      this.rec.event('unknown-request', { id, method });
      return this.peer.fail(id, { code: METHOD_NOT_FOUND, message: 'Method not found', data: method });
    }
    this.rec.event('config-set', { requestId: id, method, ok: !('error' in outcome) });
    answerSet(this.peer, id, outcome);
  }

  /** This prompt's place in the scenario: counted in this process, or across processes in the scenario's `promptCountFile`. */
  private nextPromptIndex(): number {
    const file = this.scenario?.promptCountFile;
    if (!file) return this.promptCount++;
    const index = Number(existsSync(file) ? readFileSync(file, 'utf8') : 0) || 0;
    writeFileSync(file, String(index + 1));
    return index;
  }

  /** The stale answer: at once, empty, zero usage; the prompt's tools start anyway, unseen (those with `wait` end first). */
  private async answerOneBehind(id: Id, session: Session, behaviour: ReturnType<typeof behaviourFor>): Promise<void> {
    session.behind = false;
    const unseen = {};
    for (const step of behaviour.steps) {
      if (!('spawn' in step)) continue;
      const done = this.tools.start(step.spawn, unseen, false, step.toolCallId);
      if (step.wait) await done;
    }
    this.rec.event('answered-one-behind', { requestId: id, sessionId: session.id });
    this.peer.respond(id, {
      stopReason: 'end_turn',
      usage: { inputTokens: 0, outputTokens: 0, cachedReadTokens: 0, cachedWriteTokens: 0, totalTokens: 0 },
    });
  }

  private start(session: Session, turn: Turn): void {
    session.turn = turn;
    void turn.run().then(() => {
      if (turn.cancelled && this.scenario?.oneBehindAfterCancel) session.behind = true;
      const late = turn.lateAtNextPrompt;
      if (late) session.lateAtNextPrompt = () => turn.sendLate(late, 'next-prompt');
      // Runs before any further input is read: the answer and the run's end are one step.
      session.turn = undefined;
      const next = session.queue.shift();
      if (next) this.start(session, next);
    });
  }
}

/** The prompt's text blocks (and the names of its linked resources), for the demonstration. */
function promptText(blocks: unknown[]): string {
  return blocks
    .map((b) => (isObj(b) ? (b.type === 'text' ? b.text : b.type === 'resource_link' ? `[${String(b.name)}]` : '') : ''))
    .filter((t): t is string => typeof t === 'string' && t !== '')
    .join('\n');
}
