// terminal/create, terminal/output, terminal/wait_for_exit, terminal/kill, terminal/release: the
// commands an agent asks Reins to run for it (terminalProcess.ts runs each one).
//
// The runtime owns one TerminalHost for its agent and ends every terminal when the session
// ends (a new session, the agent's exit, shutdown, Force Stop, dispose): a terminal is a tool
// process of the session, and nothing of it outlives the session. Requests are served only
// for the current session, and only for that session's own terminals; a terminal starts only
// while a turn is running (not while one is being stopped: nothing new starts until the agent
// is known to be quiet), only in a folder whose real path is inside the workspace folder.
// Each terminal remembers the turn that made it, so that a stopped turn's terminals count as
// that turn's leftovers (see `runningPids` and runtime/leftovers.ts).
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  KillTerminalRequest,
  KillTerminalResponse,
  ReleaseTerminalRequest,
  ReleaseTerminalResponse,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import { promises as fsp } from 'node:fs';
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import type { Disposable } from '../../util/disposable';
import { Emitter } from '../../util/emitter';
import type { Logger } from '../../util/logger';
import type { ProcessInfo } from '../processTree';
import { describeStatus, type ExitStatus } from './outputBuffer';
import { TerminalProcess } from './terminalProcess';
import { resolveForRead, RESOURCE_NOT_FOUND } from './workspacePath';

/** The handlers the connection registers, by method name. */
export interface TerminalMethods {
  'terminal/create'(params: CreateTerminalRequest): Promise<CreateTerminalResponse>;
  'terminal/output'(params: TerminalOutputRequest): Promise<TerminalOutputResponse>;
  'terminal/wait_for_exit'(params: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse>;
  'terminal/kill'(params: KillTerminalRequest): Promise<KillTerminalResponse>;
  'terminal/release'(params: ReleaseTerminalRequest): Promise<ReleaseTerminalResponse>;
}

export interface TerminalHostOptions {
  /** The workspace folder: a terminal's cwd must be inside it (real paths); the default cwd. */
  root: string;
  log: Logger;
  /** The current session's id; requests naming another are refused. */
  sessionId(): string | undefined;
  /** The turn as the turn machine has it: terminals start only in a running one. */
  turn(): { phase: string; turnId?: number };
  /**
   * Have a terminal's process group ended if the extension host dies (the agent's watchdog:
   * lifeline.ts); disposed once Reins has ended it. Absent where no lifeline runs.
   */
  guard?(pid: number, start: string): Disposable | undefined;
  /** Every byte a terminal prints, as it comes: its whole output, kept where the card's tail is not (Open Full Output). */
  onOutputData?(terminalId: string, data: Buffer): void;
}

/** What the panel shows in the tool call's card: the terminal's latest output. */
export interface TerminalView {
  terminalId: string;
  /** The last PANEL_TAIL_BYTES of the output. */
  text: string;
  /** Output was dropped (by the agent's limit, or for the panel). */
  truncated: boolean;
  /** UTF-8 bytes of the output before `text` (all in the terminal's log file). */
  omittedBytes?: number;
  exitStatus?: ExitStatus;
}

/** Why a terminal request was refused: the error's `data.reason`. */
type TerminalRefusal =
  'bad-params' | 'wrong-session' | 'unknown-terminal' | 'not-running-turn' | 'outside-workspace' | 'not-absolute' | 'not-a-directory' | 'command-not-found';

const MB = 1024 * 1024;
/** Most output kept per terminal, whatever the agent asks: the extension host's memory is shared. */
const OUTPUT_CEILING_BYTES = 16 * MB;
/** The panel gets at most this much of a terminal's output, at most every LIVE_INTERVAL_MS. */
const PANEL_TAIL_BYTES = 32 * 1024;
const LIVE_INTERVAL_MS = 100;
/** Ids of released or ended terminals remembered, so that a late request gets a precise error. */
const RETIRED_KEPT = 200;

let nextTerminal = 0;

interface Entry {
  id: string;
  sessionId: string;
  /** The turn that was running when the agent created it. */
  turnId: number;
  proc: TerminalProcess;
  /** Pending live-output timer, and what was last shown (buffer revision, exited). */
  timer: NodeJS.Timeout | undefined;
  shown: string;
  /** Its guard by the agent's watchdog, ended once Reins has ended it. */
  unguard: Disposable | undefined;
}

export class TerminalHost implements Disposable {
  private readonly live = new Map<string, Entry>();
  private readonly retired = new Map<string, string>();
  private disposed = false;
  /** Counts endAll calls: a terminal that finished starting after one began is ended too. */
  private generation = 0;
  private readonly _onOutput = new Emitter<TerminalView>();
  /** A terminal's output changed (at most every LIVE_INTERVAL_MS per terminal) or it exited. */
  readonly onOutput = this._onOutput.event;

  constructor(private readonly options: TerminalHostOptions) {}

  readonly methods: TerminalMethods = {
    'terminal/create': (params) => this.create(params),
    'terminal/output': (params) => settle(() => this.find(params, 'terminal/output').proc.buffer.snapshot()),
    'terminal/wait_for_exit': async (params) => {
      const status = await this.find(params, 'terminal/wait_for_exit').proc.exited;
      return { exitCode: status.exitCode, signal: status.signal };
    },
    'terminal/kill': async (params) => {
      await this.find(params, 'terminal/kill').proc.end();
      return {};
    },
    'terminal/release': async (params) => {
      const entry = this.find(params, 'terminal/release');
      await this.retire(entry, 'released by the agent');
      return {};
    },
  };

  /** Terminals still in use (not released, not ended with their session). */
  get size(): number {
    return this.live.size;
  }

  /**
   * The pids of the terminals `turnId` created that are not yet released: the stopped turn's
   * leftover check lists their trees (they are Reins' children, so a listing below the agent
   * never shows them). A terminal whose command exited may still have processes in its group.
   */
  runningPids(turnId: number): number[] {
    const pids: number[] = [];
    for (const e of this.live.values()) if (e.turnId === turnId && e.proc.pid !== undefined) pids.push(e.proc.pid);
    return pids;
  }

  /**
   * End every terminal (the session ends: `why` says how) and forget them; says in the log
   * what was ended. Resolves once their trees are gone.
   */
  async endAll(why: string): Promise<void> {
    this.generation++;
    const entries = [...this.live.values()];
    const first = entries[0];
    if (!first) return;
    const running = entries.filter((e) => !e.proc.hasExited);
    const extra = (await Promise.all(entries.map((e) => this.retire(e, `ended with its session (${why})`)))).flat();
    const list = running.map((e) => `${e.id} \`${e.proc.commandLine}\` (pid ${e.proc.pid})`);
    const left = extra.filter((p) => !running.some((e) => e.proc.pid === p.pid));
    const also = left.length > 0 ? `; and what they left: ${left.map((p) => `${p.pid} ${p.command}`).join('; ')}` : '';
    this.options.log.info(
      `${why}: ended ${running.length} running terminal(s)${list.length ? `: ${list.join('; ')}` : ''}${also}; ${entries.length} terminal(s) of session ${first.sessionId} released`,
    );
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    void this.endAll('disposed');
    this._onOutput.dispose();
  }

  // ---- the methods -------------------------------------------------------------------------

  private async create(params: CreateTerminalRequest): Promise<CreateTerminalResponse> {
    const sessionId = this.checkSession(params.sessionId, 'terminal/create');
    if (typeof params.command !== 'string' || params.command.trim() === '') throw refuse('bad-params', 'terminal/create needs a command (a non-empty string)');
    const args = params.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw refuse('bad-params', 'terminal/create: args must be an array of strings');
    const env = envFrom(params.env);
    const limit = outputLimit(params.outputByteLimit);
    const turn = this.options.turn();
    if (turn.phase !== 'running' || turn.turnId === undefined) {
      const why =
        turn.phase === 'stopping' || turn.phase === 'unverified'
          ? 'the turn is being stopped, and nothing new starts until the agent is known to be quiet'
          : 'no turn is running';
      throw refuse('not-running-turn', `terminal/create refused: ${why}`);
    }
    const generation = this.generation;
    const cwd = await this.workingDirectory(params.cwd);
    if (this.disposed || generation !== this.generation) throw refuse('not-running-turn', 'terminal/create refused: the session has ended');
    const id = `term-${++nextTerminal}`;
    const proc = new TerminalProcess({ command: params.command, args, env, cwd, outputByteLimit: limit }, (data) => {
      if (data) this.options.onOutputData?.(id, data);
      const entry = this.live.get(id);
      if (entry) this.changed(entry);
    });
    try {
      await proc.started();
    } catch (error) {
      throw spawnRefusal(error as NodeJS.ErrnoException, params.command);
    }
    const unguard = proc.pid !== undefined && proc.startTime !== undefined ? this.options.guard?.(proc.pid, proc.startTime) : undefined;
    const entry: Entry = { id, sessionId, turnId: turn.turnId, proc, timer: undefined, shown: '', unguard };
    this.live.set(id, entry);
    this.changed(entry); // what it printed while starting
    const envNames = Object.keys(env);
    this.options.log.info(
      `terminal ${id} (turn ${turn.turnId}): \`${proc.commandLine}\` in ${cwd} (pid ${proc.pid}${envNames.length ? `; env keys ${envNames.join(', ')}` : ''})`,
    );
    void proc.exited.then((status) => this.options.log.info(`terminal ${id} exited: ${describeStatus(status)}`));
    // The session ended while it was starting: it does not outlive it either.
    if (this.disposed || generation !== this.generation) void this.retire(entry, 'ended with its session, which ended while it started');
    return { terminalId: id };
  }

  /** The terminal named by a request, if it is this session's and still in use. */
  private find(params: { sessionId?: unknown; terminalId?: unknown }, method: string): Entry {
    const sessionId = this.checkSession(params.sessionId, method);
    const id = params.terminalId;
    if (typeof id !== 'string') throw refuse('bad-params', `${method} needs a terminalId (a string)`);
    const entry = this.live.get(id);
    if (!entry) {
      const gone = this.retired.get(id);
      throw new ResponseError(
        RESOURCE_NOT_FOUND,
        gone
          ? `terminal ${id} was ${gone}; its id is no longer valid`
          : `unknown terminal ${JSON.stringify(id)}: no terminal/create of this client gave that id`,
        {
          reason: 'unknown-terminal' satisfies TerminalRefusal,
          terminalId: id,
        },
      );
    }
    if (entry.sessionId !== sessionId) {
      throw refuse('wrong-session', `${method}: terminal ${id} belongs to session ${entry.sessionId}, not ${sessionId}`);
    }
    return entry;
  }

  private checkSession(sessionId: unknown, method: string): string {
    const current = this.options.sessionId();
    if (current === undefined || sessionId !== current) {
      throw refuse(
        'wrong-session',
        `${method} names session ${JSON.stringify(sessionId)}, which is not this client's current session${current ? ` (${current})` : ''}`,
      );
    }
    return current;
  }

  /** The cwd asked for, as a real path inside the workspace folder; the folder when none is given. */
  private async workingDirectory(requested: string | null | undefined): Promise<string> {
    const asked = requested ?? this.options.root;
    if (typeof asked !== 'string') throw refuse('bad-params', 'terminal/create: cwd must be an absolute path (a string)');
    let real: string;
    try {
      real = (await resolveForRead(this.options.root, asked)).real;
    } catch (error) {
      // The path checks are fs/*'s (workspacePath.ts); their refusals say "path", this says "cwd".
      if (error instanceof ResponseError) {
        const reason = (error.data as { reason?: string } | undefined)?.reason ?? 'not-a-directory';
        const what = error.code === RESOURCE_NOT_FOUND ? `the working directory does not exist: ${asked}` : error.message.replace(/^path/, 'cwd');
        throw new ResponseError(error.code, `terminal/create refused: ${what}`, { reason, cwd: asked });
      }
      throw error;
    }
    const stat = await fsp.stat(real).catch(() => undefined);
    if (!stat?.isDirectory()) throw refuse('not-a-directory', `terminal/create refused: cwd is not a directory: ${asked}`);
    return real;
  }

  // ---- ending and showing ------------------------------------------------------------------

  /** End the terminal's tree if it runs, show its last output, forget its id. */
  private async retire(entry: Entry, why: string): Promise<ProcessInfo[]> {
    if (this.live.get(entry.id) === entry) {
      this.live.delete(entry.id);
      this.retired.set(entry.id, why);
      if (this.retired.size > RETIRED_KEPT) this.retired.delete(this.retired.keys().next().value!);
    }
    const ended = await entry.proc.end();
    entry.unguard?.dispose();
    this.show(entry);
    return ended;
  }

  /** New output: shown at most every LIVE_INTERVAL_MS; the exit at once. */
  private changed(entry: Entry): void {
    if (entry.proc.buffer.exitStatus) {
      this.show(entry);
      return;
    }
    entry.timer ??= setTimeout(() => this.show(entry), LIVE_INTERVAL_MS);
  }

  private show(entry: Entry): void {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    const buffer = entry.proc.buffer;
    const revision = `${buffer.revision}${buffer.exitStatus ? ' exited' : ''}`;
    if (revision === entry.shown || this.disposed) return;
    entry.shown = revision;
    const exitStatus = buffer.exitStatus;
    const text = buffer.tail(PANEL_TAIL_BYTES);
    const omittedBytes = buffer.written - Buffer.byteLength(text);
    this._onOutput.fire({
      terminalId: entry.id,
      text,
      truncated: buffer.truncated || buffer.size > PANEL_TAIL_BYTES,
      ...(omittedBytes > 0 && { omittedBytes }),
      ...(exitStatus && { exitStatus }),
    });
  }
}

/** `fn`'s value, or its throw as a rejection: a refusal is an answer, not an exception in the caller. */
function settle<T>(fn: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(fn())); // a throw in the executor rejects
}

function refuse(reason: TerminalRefusal, message: string): ResponseError<{ reason: TerminalRefusal }> {
  return new ResponseError(ErrorCodes.InvalidParams, message, { reason });
}

function envFrom(env: CreateTerminalRequest['env']): Record<string, string> {
  if (env == null) return {};
  if (!Array.isArray(env)) throw refuse('bad-params', 'terminal/create: env must be an array of {name, value}');
  const out: Record<string, string> = {};
  for (const v of env) {
    if (!v || typeof v.name !== 'string' || typeof v.value !== 'string' || v.name === '' || v.name.includes('=')) {
      throw refuse(
        'bad-params',
        `terminal/create: each env entry needs a name (no "=") and a value, both strings; got ${JSON.stringify(v && { name: v.name })}`,
      );
    }
    out[v.name] = v.value;
  }
  return out;
}

function outputLimit(given: number | null | undefined): number {
  if (given == null) return OUTPUT_CEILING_BYTES;
  if (!Number.isInteger(given) || given < 0)
    throw refuse('bad-params', `terminal/create: outputByteLimit must be a whole number of bytes, not ${JSON.stringify(given)}`);
  return Math.min(given, OUTPUT_CEILING_BYTES);
}

function spawnRefusal(error: NodeJS.ErrnoException, command: string): ResponseError<unknown> {
  if (error?.code === 'ENOENT')
    return new ResponseError(RESOURCE_NOT_FOUND, `terminal/create: command not found: ${command}`, { reason: 'command-not-found' satisfies TerminalRefusal });
  if (error?.code === 'EACCES')
    return new ResponseError(ErrorCodes.InvalidParams, `terminal/create: command not executable: ${command}`, {
      reason: 'command-not-found' satisfies TerminalRefusal,
    });
  return new ResponseError(ErrorCodes.InternalError, `terminal/create: could not start ${command}: ${error?.message ?? String(error)}`);
}
