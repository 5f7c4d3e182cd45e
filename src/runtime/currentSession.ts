// The runtime's current session: which one it is, how it is opened (the process's first,
// session/new, a load or a resume) and replaced by the one routine's rules, listed and deleted;
// and the agent's updates routed to it (its config first, then the turn, then the listeners).
// Its parts are SessionControls (modes, options, commands, updates before session/new's answer)
// and SessionSwitch (load, resume, close, list, delete); the runtime (agentRuntime.ts) owns one.
import type { McpServer, NewSessionResponse, SessionNotification } from '@agentclientprotocol/sdk';
import type { AcpConnection } from '../acp/connection';
import { Emitter } from '../util/emitter';
import { SessionControls } from './sessionControls';
import type { ListOutcome } from './sessionList';
import { SessionSwitch, type LoadOutcome, type ReopenRequest, type SwitchPort } from './sessionSwitch';
import type { StopReport } from './stopReport';
import type { StopCause } from './turnMachine';

/** What the session needs of the runtime it belongs to: what its SessionSwitch needs (the connection, `initialize`'s answer, the time a request may take), and more. */
export interface SessionHost extends Pick<SwitchPort, 'name' | 'log' | 'cwd' | 'conn' | 'init' | 'timeoutMs'> {
  phase(): string;
  /** The validated `reins.mcpServers`, read at each session/new. */
  readonly mcpServers?: () => McpServer[];
  /** The one routine: the running turn is stopped before its session is replaced. */
  stop(cause: StopCause): Promise<StopReport>;
  /** Resolves once the stopped turn's process listing is taken. */
  barrier(): Promise<void>;
  /** The old session's terminals end with it. */
  endTerminals(why: string): Promise<void>;
  /** An update for the current session, after its config: the turn's (TurnController.noteUpdate). */
  noteTurn(notification: SessionNotification): void;
  /** The session was replaced: the runtime's state changed, and the turn forgets the old one. */
  replaced(): Promise<void>;
  changed(): void;
}

export class CurrentSession {
  private idValue: string | undefined;
  /** Modes, config options, commands, title, usage; the session's MCP servers and early updates. */
  readonly controls: SessionControls;
  /** Load, resume, close, list, delete: sessions beyond session/new. */
  readonly switch: SessionSwitch;
  private readonly _onUpdate = new Emitter<SessionNotification>();
  readonly onUpdate = this._onUpdate.event;

  constructor(private readonly host: SessionHost) {
    this.controls = new SessionControls({
      name: host.name,
      log: host.log,
      link: () => ({ conn: host.conn(), sessionId: this.idValue }),
      phase: () => host.phase(),
      timeoutMs: () => host.timeoutMs(),
      mcpServers: host.mcpServers,
    });
    this.controls.onDidChange(() => host.changed());
    this.switch = new SessionSwitch({
      name: host.name,
      log: host.log,
      cwd: host.cwd,
      conn: () => host.conn(),
      init: () => host.init(),
      timeoutMs: () => host.timeoutMs(),
      current: () => this.idValue,
      setCurrent: (id) => (this.idValue = id),
      params: () => this.controls.newSessionParams(host.cwd, host.init()),
      openNew: async () => (await this.openNew(host.conn()!)).sessionId,
      openExisting: (request, id) =>
        this.controls.open(
          request,
          () => (this.idValue = id),
          (n) => this.deliver(n),
        ),
      renote: (n) => this.controls.note(n),
      onUpdate: this.onUpdate,
    });
  }

  get id(): string | undefined {
    return this.idValue;
  }

  /** A process's first session: `want` reopened where the agent can, else a new one (sessionSwitch.ts). */
  openFirst(want: ReopenRequest | undefined): Promise<{ sessionId: string }> {
    return this.switch.openFirst(want);
  }

  /** A fresh session in the same process, by `replace`'s rules. */
  async renew(): Promise<StopReport> {
    const { report } = await this.replace('new session', async (conn) => {
      // session/close for the settled old session, where the agent offers it (sessionSwitch.ts).
      await this.switch.closeCurrent();
      const replaced = this.idValue;
      const session = await this.openNew(conn);
      this.host.log.info(`agent ${this.host.name}: new session ${session.sessionId} replaces ${replaced}`);
      this.switch.noteNew(session.sessionId, replaced);
    });
    return report;
  }

  /** An earlier session (session/load, or session/resume: sessionSwitch.ts), by `replace`'s rules. */
  load(sessionId: string, keepTranscript = false): Promise<{ report: StopReport; outcome?: LoadOutcome }> {
    return this.replace('session replaced', () => this.switch.replace(sessionId, keepTranscript));
  }

  /**
   * renew's and load's common rules: stop the running turn; unverified, or the agent exited
   * meanwhile: nothing is replaced (no `outcome`). Else the stopped turn's process listing is
   * taken before `open` can start anything, and the old session's terminals end with it (after
   * the listing: the stopped turn's show there).
   */
  private async replace<T>(why: string, open: (conn: AcpConnection) => Promise<T>): Promise<{ report: StopReport; outcome?: T }> {
    const { host } = this;
    const report = await host.stop('replace-session');
    const conn = host.conn();
    if (report.outcome === 'abort-unverified' || !conn || host.phase() !== 'ready') return { report };
    await host.barrier();
    await host.endTerminals(why);
    const outcome = await open(conn);
    await host.replaced();
    return { report, outcome };
  }

  /** session/new on `conn`, with the early updates it brings delivered once it names its session. */
  private openNew(conn: AcpConnection): Promise<NewSessionResponse> {
    const { host } = this;
    return this.controls.open(
      () => conn.newSession(this.controls.newSessionParams(host.cwd, host.init()), host.timeoutMs()),
      (answer) => (this.idValue = answer.sessionId),
      (n) => this.deliver(n),
    );
  }

  /** session/list, every page (only where the agent offers it). */
  list(): Promise<ListOutcome> {
    return this.switch.list();
  }

  /** session/delete (only where offered; never the current session). */
  delete(sessionId: string): Promise<void> {
    return this.switch.delete(sessionId);
  }

  /** An update from the agent: for the current session, or kept until session/new names it, or ignored. */
  receive(notification: SessionNotification): void {
    if (notification.sessionId !== this.idValue) {
      // Sent before the answer to session/new named its session: kept, applied once it does.
      if (this.controls.keepEarly(notification)) return;
      this.host.log.debug(`ignored an update for session ${notification.sessionId} (current ${this.idValue})`);
      return;
    }
    this.deliver(notification);
  }

  /** An update for the current session: its config, the turn, then the listeners (transcript). */
  private deliver(notification: SessionNotification): void {
    this.controls.note(notification);
    this.host.noteTurn(notification);
    this._onUpdate.fire(notification);
  }

  dispose(): void {
    this.controls.dispose();
    this.switch.dispose();
  }
}
