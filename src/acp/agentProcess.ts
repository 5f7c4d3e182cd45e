// One agent as an operating-system process: spawned in its own process group so that its
// whole tree can be ended at once, stderr read line by line into the log, and its exit
// recorded. Ending it: stdin closed, then SIGTERM to the group, then SIGKILL after a short
// grace (codex-acp and claude-agent-acp do not exit when stdin closes).
import { spawn, execFile, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../util/logger';
import { descendantsOf, listProcesses, signalAll } from './processTree';

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

const STDERR_TAIL_LINES = 40;
const STDIN_GRACE_MS = 300;
const TERM_GRACE_MS = 1500;

export function describeExit(exit: ExitInfo): string {
  const how = exit.spawnError
    ? exit.spawnError
    : exit.signal
      ? `killed by ${exit.signal}`
      : `exited with code ${exit.code}`;
  const tail = exit.stderrTail.slice(-8).join('\n');
  return tail ? `${how}; stderr:\n${tail}` : how;
}

export class AgentProcess {
  readonly pid: number | undefined;
  readonly startedAt = Date.now();
  /** Resolves once when the process has exited (or failed to start). Never rejects. */
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private readonly stderrTail: string[] = [];
  private ending: Promise<ExitInfo> | undefined;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(
    readonly launch: AgentLaunch,
    log: Logger,
    onStderrLine?: (line: string) => void,
  ) {
    const envKeys = Object.keys(launch.env ?? {});
    log.info(
      `starting agent: ${launch.command} ${launch.args.join(' ')} (cwd ${launch.cwd}${envKeys.length ? `; env keys ${envKeys.join(', ')}` : ''})`,
    );
    this.child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: { ...process.env, ...launch.env },
      // Its own process group (POSIX): kill(-pid) then reaches every process it started.
      detached: process.platform !== 'win32',
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.pid = this.child.pid;
    this.child.stdin.on('error', (error) => log.debug(`agent stdin: ${error.message}`));

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

  /**
   * End the agent and everything it started. Safe to call twice (returns the same promise)
   * and after the process exited by itself (its group may still hold tool processes).
   */
  end(graceMs = TERM_GRACE_MS): Promise<ExitInfo> {
    this.ending ??= this.endTree(graceMs);
    return this.ending;
  }

  private async endTree(graceMs: number): Promise<ExitInfo> {
    const pid = this.pid;
    if (pid === undefined) return this.exited;
    // Take the tree before anything dies: once the agent exits its children are re-parented
    // and only the process group still ties them to it.
    const tree = descendantsOf(pid, await listProcesses()).map((p) => p.pid);
    if (process.platform === 'win32') {
      await new Promise<void>((resolve) => execFile('taskkill', ['/pid', String(pid), '/T', '/F'], () => resolve()));
      return this.exited;
    }
    if (!this.hasExited) {
      this.child.stdin.end();
      await Promise.race([this.exited, delay(STDIN_GRACE_MS)]);
    }
    this.signalGroup(pid, 'SIGTERM');
    signalAll(tree, 'SIGTERM');
    await Promise.race([this.exited, delay(graceMs)]);
    // Whatever is still there gets no second chance: tool processes that ignore SIGTERM too.
    this.signalGroup(pid, 'SIGKILL');
    signalAll(tree, 'SIGKILL');
    return this.exited;
  }

  private signalGroup(pid: number, signal: NodeJS.Signals): void {
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is empty already.
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
