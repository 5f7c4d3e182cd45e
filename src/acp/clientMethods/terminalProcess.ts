// One terminal's command as an operating-system process: spawned in its own process group
// (so that ending it reaches everything it started, the way agents are ended), stdout and
// stderr interleaved into one OutputBuffer as a terminal would show them, its exit status
// recorded once. It is a child of the extension host, not of the agent: the agent asked for
// it, Reins runs it, and Reins ends it (terminals.ts decides when).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { endTree } from '../endTree';
import { startTimeOf, type ProcessInfo } from '../processTree';
import { OutputBuffer, type ExitStatus } from './outputBuffer';

export interface TerminalLaunch {
  command: string;
  args: string[];
  /** Added to the extension host's environment. Values are never logged. */
  env: Record<string, string>;
  /** A real path inside the workspace folder (checked by the caller). */
  cwd: string;
  outputByteLimit: number;
}

/** After the command exits, how long its output pipes may take to drain before the exit is reported. */
const DRAIN_MS = 100;
/** SIGTERM → SIGKILL grace for a terminal's tree (a tool, not an agent: no stdin dance). */
const TERM_GRACE_MS = 1000;

export class TerminalProcess {
  readonly pid: number | undefined;
  /** startTimeOf(pid) right after the spawn: a later signal checks the pid still names it. */
  readonly startTime: string | undefined;
  readonly buffer: OutputBuffer;
  /** Resolves once with the exit status (a spawn failure resolves too, with exitCode null). */
  readonly exited: Promise<ExitStatus>;
  /** Why it could not start (command not found, …), once known. */
  spawnError: NodeJS.ErrnoException | undefined;
  private exitSeen = false;
  private ending: Promise<ProcessInfo[]> | undefined;
  private readonly child: ChildProcess;

  constructor(
    readonly launch: TerminalLaunch,
    /** New output (`data`: what was printed), or the exit (no data). */
    private readonly onData: (data?: Buffer) => void,
  ) {
    this.buffer = new OutputBuffer(launch.outputByteLimit);
    // No args: `command` is a command line ("npm test -- --watch=false", what kimi-cli and
    // others send), so it goes through the shell as it would in a terminal. With args: the
    // program and its argv exactly, no shell to re-interpret them.
    const shell = launch.args.length === 0;
    this.child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: { ...process.env, ...launch.env },
      shell,
      // Its own process group (POSIX): kill(-pid) reaches every process it started.
      detached: process.platform !== 'win32',
      // ACP has no way to type into a terminal: input is at its end at once.
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.pid = this.child.pid;
    this.startTime = this.pid === undefined ? undefined : startTimeOf(this.pid);
    const take = (data: Buffer) => {
      this.buffer.write(data);
      this.onData(data);
    };
    this.child.stdout?.on('data', take);
    this.child.stderr?.on('data', take);

    this.exited = new Promise<ExitStatus>((resolve) => {
      let closed = false;
      const finish = (status: ExitStatus) => {
        if (this.buffer.exitStatus) return;
        this.buffer.finish(status);
        this.onData();
        resolve(status);
      };
      this.child.on('error', (error: NodeJS.ErrnoException) => {
        this.spawnError ??= error;
        if (this.pid === undefined) finish({ exitCode: null, signal: null });
      });
      this.child.on('close', (code, signal) => {
        closed = true;
        finish({ exitCode: code, signal });
      });
      this.child.on('exit', (code, signal) => {
        this.exitSeen = true;
        // A background child (`server &`) may keep the pipes open long after the command
        // itself exited: the command's exit is what the agent waits for.
        if (!closed) setTimeout(() => finish({ exitCode: code, signal }), DRAIN_MS).unref();
      });
    });
  }

  /** Resolves once the process has started, or rejects with why it could not. */
  started(): Promise<void> {
    if (this.pid === undefined) {
      return new Promise((_, reject) => this.child.once('error', reject));
    }
    return new Promise((resolve, reject) => {
      this.child.once('spawn', () => resolve());
      this.child.once('error', reject);
    });
  }

  /** The command has exited (its group may still hold processes it left). */
  get hasExited(): boolean {
    return this.exitSeen || this.buffer.exitStatus !== undefined;
  }

  /** The command line for the log and the panel (never the environment). */
  get commandLine(): string {
    return [this.launch.command, ...this.launch.args].join(' ');
  }

  /**
   * End the command and everything in its process group (and below it): SIGTERM, a grace,
   * SIGKILL. Safe to call twice (same promise) and after it exited by itself (what it left in
   * its group is ended). Resolves with what else of its tree was ended, once the exit status
   * is known.
   */
  end(): Promise<ProcessInfo[]> {
    this.ending ??= this.endTree();
    return this.ending;
  }

  private async endTree(): Promise<ProcessInfo[]> {
    const pid = this.pid;
    if (pid === undefined) return [];
    if (process.platform === 'win32') {
      if (!this.exitSeen) await new Promise<void>((resolve) => execFile('taskkill', ['/pid', String(pid), '/T', '/F'], () => resolve()));
      await this.exited;
      return [];
    }
    const report = await endTree(pid, { graceMs: TERM_GRACE_MS, rootStart: this.startTime, rootGone: () => this.exitSeen });
    await this.exited;
    return report.ended;
  }
}
