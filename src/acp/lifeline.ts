// Ties each agent's life to this extension host's (the host side of watchdog.ts and
// agentRecords.ts). For every agent AgentProcess spawns: a watchdog process that ends the
// agent's tree if this host dies without ending it, and a record in the extension's storage
// for the next activation in case the watchdog could not. Configured once at activation
// (extension.ts); unconfigured (unit tests, the interop suite) nothing extra is spawned.
// POSIX only: on Windows `configureLifeline` is a no-op and agents are ended by taskkill.
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname, setPriority } from 'node:os';
import type { Logger } from '../util/logger';
import type { AgentRecord, AgentRecords } from './agentRecords';
import { groupExists, startTimeOf } from './processTree';

export interface LifelineConfig {
  /** The Node that runs the watchdog (the host's own: process.execPath; Electron runs it as Node). */
  node: string;
  /** dist/watchdog.js; without it, records only. */
  watchdogScript?: string;
  records?: AgentRecords;
  /** SIGTERM → SIGKILL grace the watchdog gives the tree. */
  graceMs?: number;
  /** How often the watchdog checks its parent and whether anything is left to guard (default 1 s). */
  pollMs?: number;
}

let config: LifelineConfig | undefined;

const WATCHDOG_NICENESS = 10;

let ownStartCache: string | undefined;
/** This host's start time: fixed for its life (and a `ps` on macOS), so read once. */
function ownStart(): string | undefined {
  ownStartCache ??= startTimeOf(process.pid);
  return ownStartCache;
}

export function configureLifeline(next: LifelineConfig | undefined): void {
  config = process.platform === 'win32' ? undefined : next;
}

export interface GuardedAgent {
  pid: number;
  /** startTimeOf(pid) right after the spawn. */
  start: string;
  commandLine: string;
  cwd: string;
}

export class Lifeline {
  private watchdog: ChildProcess | undefined;
  private released = false;
  /** release() was asked while terminals were guarded: done when the last is unguarded. */
  private releaseWanted = false;
  /** The agent's terminals (pid → start time), told to the watchdog (again, if it starts later). */
  private readonly guarded = new Map<number, string>();
  private record: AgentRecord | undefined;
  private recordWritten: Promise<void> = Promise.resolve();

  private constructor(
    private readonly agent: GuardedAgent,
    private readonly cfg: LifelineConfig,
    private readonly log: Logger,
  ) {}

  /** Starts guarding `agent` when a lifeline is configured; undefined otherwise. */
  static attach(agent: GuardedAgent, log: Logger): Lifeline | undefined {
    if (!config) return undefined;
    const lifeline = new Lifeline(agent, config, log);
    // Off the agent's start: the caller writes its first message before the host spends its
    // ~10 ms of spawning (a fork of a large process) on the watchdog. (An 'exit' event cannot
    // come before this: it is delivered by a later turn of the event loop.)
    setImmediate(() => {
      lifeline.startWatchdog();
      lifeline.writeRecord();
    });
    return lifeline;
  }

  get watchdogPid(): number | undefined {
    return this.watchdog?.pid;
  }

  private startWatchdog(): void {
    const { node, watchdogScript, records, graceMs, pollMs } = this.cfg;
    const hostStart = ownStart();
    if (!watchdogScript || !hostStart) return;
    const args = [watchdogScript, '--agent', String(this.agent.pid), '--start', this.agent.start, '--host', String(process.pid)];
    if (graceMs !== undefined) args.push('--grace', String(graceMs));
    if (pollMs !== undefined) args.push('--poll', String(pollMs));
    if (records) args.push('--log', records.watchdogLog);
    args.push('--label', this.agent.commandLine.slice(0, 200));
    const dog = spawn(node, args, {
      // Its own session: signals meant for the host's process group (code-server's stop,
      // Ctrl-C in a terminal) must not take it down before it has done its job.
      detached: true,
      // stdin: the pipe whose end of file says the host is gone. Nothing to say on the others.
      stdio: ['pipe', 'ignore', 'ignore'],
      // Electron (desktop VS Code) runs a script as Node only with this; NODE_OPTIONS is the
      // host's (a debugger flag there would make the watchdog wait for one).
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', NODE_OPTIONS: undefined },
      windowsHide: true,
    });
    this.watchdog = dog;
    for (const [pid, start] of this.guarded) this.tell(`guard ${pid} ${start}`);
    // It mostly sleeps; its start (a Node, ~100 ms of CPU) must not slow the agent's own start
    // on a busy machine. Not the lowest: once the host is gone it has work to do promptly.
    if (dog.pid !== undefined) {
      try {
        setPriority(dog.pid, WATCHDOG_NICENESS);
      } catch {
        // Not permitted here: it runs at the host's priority.
      }
    }
    dog.on('error', (error) =>
      this.log.warn(`agent ${this.agent.pid}: watchdog could not start (${error.message}); the agent is not ended if this extension host dies`),
    );
    dog.stdin?.on('error', () => undefined); // EPIPE once it has exited: nothing to tell it then
    dog.on('exit', (code, signal) => {
      // 0: it found nothing left to guard. Anything else: it could not run (a missing script).
      if (!this.released && (code !== 0 || signal))
        this.log.warn(`agent ${this.agent.pid}: watchdog ${dog.pid} failed (${signal ?? `code ${code}`}); the agent is not ended if this extension host dies`);
      dog.stdin?.destroy();
    });
    // Neither it nor its pipe keeps this process alive.
    dog.unref();
    (dog.stdin as { unref?: () => void } | null)?.unref?.();
  }

  private writeRecord(): void {
    const records = this.cfg.records;
    const hostStart = ownStart();
    if (!records || !hostStart) return;
    this.record = {
      version: 1,
      hostname: hostname(),
      pid: this.agent.pid,
      pgid: this.agent.pid,
      start: this.agent.start,
      command: this.agent.commandLine,
      cwd: this.agent.cwd,
      startedAt: new Date().toISOString(),
      host: { pid: process.pid, start: hostStart },
    };
    this.recordWritten = records.write(this.record).catch((error: Error) => this.log.warn(`could not record agent ${this.agent.pid}: ${error.message}`));
  }

  /**
   * The agent has exited: its record goes (its pid may be reused from now on). The watchdog
   * stays while the agent's group still has members (tool processes it left), so that they go
   * if this host dies before ending them; it leaves by itself once the group is empty.
   */
  agentExited(): void {
    const { records } = this.cfg;
    const record = this.record;
    if (records && record) this.recordWritten = this.recordWritten.then(() => records.remove(record)).catch(() => undefined);
    if (!groupExists(this.agent.pid)) this.release();
  }

  /**
   * Also end the process group of `pid` (one of the agent's terminals: a child of this host, in
   * a group of its own, so not in the agent's tree) if this host dies. Disposing it, once this
   * host has ended that terminal, stops that.
   */
  guard(pid: number, start: string): { dispose(): void } {
    if (this.released) return { dispose: () => undefined };
    this.guarded.set(pid, start);
    this.tell(`guard ${pid} ${start}`);
    return {
      dispose: () => {
        if (!this.guarded.delete(pid)) return;
        this.tell(`unguard ${pid}`);
        if (this.releaseWanted && this.guarded.size === 0) this.release();
      },
    };
  }

  /** This host has ended the agent's tree itself: nothing left to guard (once its terminals are ended too). */
  release(): void {
    if (this.released) return;
    if (this.guarded.size > 0) {
      this.releaseWanted = true;
      return;
    }
    this.released = true;
    if (this.watchdog?.stdin?.writable) this.watchdog.stdin.end('release\n');
  }

  private tell(line: string): void {
    if (this.watchdog?.stdin?.writable) this.watchdog.stdin.write(`${line}\n`);
  }
}
