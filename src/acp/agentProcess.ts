// One agent as an operating-system process: spawned in its own process group so that its
// whole tree can be ended at once, stderr read line by line into the log, and its exit
// recorded. Ending it: stdin closed, then SIGTERM to the group, then SIGKILL after a short
// grace (codex-acp and claude-agent-acp do not exit when stdin closes). If this extension host
// dies without ending it, the lifeline (a watchdog process, a record for the next activation)
// does: see lifeline.ts.
import { spawn, execFile, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../util/logger';
import { endTree } from './endTree';
import { Lifeline } from './lifeline';
import { startTimeOf, type ProcessInfo } from './processTree';

export interface AgentLaunch {
  command: string;
  args: string[];
  /** Added to the editor's environment. Values are never logged. */
  env?: Record<string, string>;
  cwd: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The spawn error (command not found, not executable), if that is why it ended. */
  spawnError?: string;
  /** The last lines the agent wrote to stderr. */
  stderrTail: string[];
  /** ms since the epoch. */
  at: number;
}

/** What `end()` resolves to: the agent's exit, and what else of its tree was ended. */
export interface EndReport extends ExitInfo {
  /** Processes below the agent (its group and descendants, not the agent) that `end()` found running and ended. */
  ended: ProcessInfo[];
  /** Processes below the agent still running after SIGKILL (not ours to end, or stuck in the kernel). */
  survivors: ProcessInfo[];
}

const STDERR_TAIL_LINES = 40;
const STDIN_GRACE_MS = 300;
const TERM_GRACE_MS = 1500;

export function describeExit(exit: ExitInfo): string {
  const how = exit.spawnError ? exit.spawnError : exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const tail = exit.stderrTail.slice(-8).join('\n');
  return tail ? `${how}; stderr:\n${tail}` : how;
}

export class AgentProcess {
  readonly pid: number | undefined;
  readonly startedAt = Date.now();
  /** The agent's exact start time (`startTimeOf`): later signals check its pid still names it. */
  readonly startTime: string | undefined;
  /** Resolves once when the process has exited (or failed to start). Never rejects. */
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private readonly stderrTail: string[] = [];
  private ending: Promise<EndReport> | undefined;
  /** The 'exit' event came ('close', and so `exited`, waits for stdio to end as well). */
  private exitSeen = false;
  private readonly lifeline: Lifeline | undefined;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(
    readonly launch: AgentLaunch,
    private readonly log: Logger,
    onStderrLine?: (line: string) => void,
  ) {
    const envKeys = Object.keys(launch.env ?? {});
    log.info(`starting agent: ${launch.command} ${launch.args.join(' ')} (cwd ${launch.cwd}${envKeys.length ? `; env keys ${envKeys.join(', ')}` : ''})`);
    this.child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: { ...process.env, ...launch.env },
      // Its own process group (POSIX): kill(-pid) then reaches every process it started.
      detached: process.platform !== 'win32',
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.pid = this.child.pid;
    this.startTime = this.pid === undefined ? undefined : startTimeOf(this.pid);
    this.child.stdin.on('error', (error) => log.debug(`agent stdin: ${error.message}`));
    if (this.pid !== undefined && this.startTime !== undefined) {
      const commandLine = [launch.command, ...launch.args].join(' ');
      this.lifeline = Lifeline.attach({ pid: this.pid, start: this.startTime, commandLine, cwd: launch.cwd }, log);
    }
    this.child.on('exit', () => {
      this.exitSeen = true;
      this.lifeline?.agentExited();
    });

    createInterface({ input: this.child.stderr, crlfDelay: Infinity }).on('line', (line) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
      log.info(`[agent stderr] ${line.length > 2000 ? line.slice(0, 2000) + '…' : line}`);
      onStderrLine?.(line);
    });

    this.exited = new Promise<ExitInfo>((resolve) => {
      const finish = (info: Omit<ExitInfo, 'stderrTail' | 'at'>) => {
        if (this.exitInfo) return;
        this.exitInfo = { ...info, stderrTail: [...this.stderrTail], at: Date.now() };
        log.info(`agent ${this.pid ?? '?'} ${describeExit({ ...this.exitInfo, stderrTail: [] })}`);
        resolve(this.exitInfo);
      };
      this.child.on('error', (error: NodeJS.ErrnoException) => {
        const reason =
          error.code === 'ENOENT'
            ? `command not found: ${launch.command}`
            : error.code === 'EACCES'
              ? `command not executable: ${launch.command}`
              : `could not start ${launch.command}: ${error.message}`;
        finish({ code: null, signal: null, spawnError: reason });
      });
      // 'close' comes after stdio has ended, so the stderr tail is complete by then.
      this.child.on('close', (code, signal) => finish({ code, signal }));
    });
  }

  get stdin() {
    return this.child.stdin;
  }

  get stdout() {
    return this.child.stdout;
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  currentStderrTail(): string[] {
    return [...this.stderrTail];
  }

  /** Have one of the agent's terminals (a process group of its own) ended with its tree if the extension host dies. */
  guardTerminal(pid: number, start: string): { dispose(): void } | undefined {
    return this.lifeline?.guard(pid, start);
  }

  /** The watchdog's pid, while one guards this agent (for tests and the log). */
  get watchdogPid(): number | undefined {
    return this.lifeline?.watchdogPid;
  }

  /**
   * End the agent and everything it started. Safe to call twice (returns the same promise)
   * and after the process exited by itself (its group may still hold tool processes: they
   * are ended and listed in `ended`).
   */
  end(graceMs = TERM_GRACE_MS): Promise<EndReport> {
    this.ending ??= this.endTree(graceMs);
    return this.ending;
  }

  private async endTree(graceMs: number): Promise<EndReport> {
    const pid = this.pid;
    if (pid === undefined) return { ...(await this.exited), ended: [], survivors: [] };
    if (process.platform === 'win32') {
      // Windows keeps its old way: no process groups, no watchdog; taskkill ends the tree.
      await new Promise<void>((resolve) => execFile('taskkill', ['/pid', String(pid), '/T', '/F'], () => resolve()));
      return { ...(await this.exited), ended: [], survivors: [] };
    }
    const report = await endTree(pid, {
      graceMs,
      rootStart: this.startTime,
      rootGone: () => this.exitSeen,
      // Stdin first: an agent that exits on end of file gets to end its tools itself.
      beforeSignals: async () => {
        if (this.exitSeen) return;
        this.child.stdin.end();
        await Promise.race([this.exited, delay(STDIN_GRACE_MS)]);
      },
    });
    this.lifeline?.release();
    if (report.ended.length > 0) this.log.info(`ended with agent ${pid}: ${report.ended.map((p) => `${p.pid} ${p.command}`).join('; ')}`);
    return { ...(await this.exited), ...report };
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
