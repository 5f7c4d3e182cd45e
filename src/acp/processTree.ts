// What runs below an agent process: for ending its whole tree, and for finding the tool
// processes a turn left behind (session/leftovers.ts decides which those are).
// POSIX reads `ps`, whose `-A -o pid=,ppid=,pgid=,etime=,args=` works on Linux and macOS alike.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** When the process started, in ms since the epoch (to the second: `ps` says no more). */
  startedAt: number;
  command: string;
}

/** `[[dd-]hh:]mm:ss` → seconds. */
export function parseElapsed(text: string): number {
  const [days, rest] = text.includes('-') ? text.split('-') : ['0', text];
  const parts = rest.split(':').map(Number);
  while (parts.length < 3) parts.unshift(0);
  const [h, m, s] = parts;
  return Number(days) * 86400 + h * 3600 + m * 60 + s;
}

export function parsePsOutput(output: string, now: number): ProcessInfo[] {
  const result: ProcessInfo[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!match) continue;
    result.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      pgid: Number(match[3]),
      startedAt: now - parseElapsed(match[4]) * 1000,
      command: match[5].trim(),
    });
  }
  return result;
}

export function listProcesses(): Promise<ProcessInfo[]> {
  if (process.platform === 'win32') return Promise.resolve([]);
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,pgid=,etime=,args='], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      // No `ps` (a minimal container): report nothing rather than fail a stop.
      resolve(error ? [] : parsePsOutput(stdout, Date.now()));
    });
  });
}

/** Every process below `rootPid` (children, their children, …) plus the members of its group. */
export function descendantsOf(rootPid: number, all: ProcessInfo[]): ProcessInfo[] {
  const byParent = new Map<number, ProcessInfo[]>();
  for (const p of all) {
    const list = byParent.get(p.ppid) ?? [];
    list.push(p);
    byParent.set(p.ppid, list);
  }
  const found = new Map<number, ProcessInfo>();
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    for (const child of byParent.get(pid) ?? []) {
      if (!found.has(child.pid)) {
        found.set(child.pid, child);
        stack.push(child.pid);
      }
    }
  }
  // A child whose parent exited is re-parented to init but stays in the agent's group.
  for (const p of all) {
    if (p.pgid === rootPid && p.pid !== rootPid && !found.has(p.pid)) found.set(p.pid, p);
  }
  return [...found.values()];
}

/** The processes below the agent now. */
export async function descendantsNow(rootPid: number): Promise<ProcessInfo[]> {
  return descendantsOf(rootPid, await listProcesses());
}

/** Send `signal` to each pid, ignoring the ones already gone. */
export function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // ESRCH: already gone.
    }
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// ---- identity: which process a pid names now ---------------------------------------------
// A pid is reused once its process is gone (pid_max is 32768 on many Linux machines), so a pid
// kept for later (in the record of running agents, in the watchdog, across a grace period) is
// only signalled again while it still names the process that was meant: the one with the same
// start time. `ps` gives start times to the second; Linux gives them exactly.

/** The fields of /proc/<pid>/stat that identity checks need (Linux). */
export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie: exited, not yet reaped), T, … */
  state: string;
  ppid: number;
  pgid: number;
  /** Clock ticks after boot at which the process started: never changes for its life. */
  startTicks: number;
}

/** /proc/<pid>/stat parsed, or undefined (no such process, or not Linux). */
export function readProcStat(pid: number): ProcStat | undefined {
  if (process.platform !== 'linux') return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses; parse after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state) of proc(5); starttime is field 22.
  return { pid, state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]), startTicks: Number(fields[19]) };
}

let bootIdCache: string | undefined;
function bootId(): string {
  // Start ticks count from boot: with the boot id a token also tells another boot apart.
  bootIdCache ??= (() => {
    try {
      return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      return 'unknown-boot';
    }
  })();
  return bootIdCache;
}

/**
 * A token naming one process for its whole life, or undefined when `pid` names no process.
 * Linux: boot id and start ticks from /proc (exact, no process started). Other POSIX: `ps -o
 * lstart=` (to the second; a synchronous `ps`, a few ms). Windows: undefined.
 */
export function startTimeOf(pid: number): string | undefined {
  if (process.platform === 'win32' || !(pid > 0)) return undefined;
  if (process.platform === 'linux') {
    const stat = readProcStat(pid);
    return stat ? `${bootId()}:${stat.startTicks}` : undefined;
  }
  try {
    const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return out || undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` exists and has not exited: a zombie (exited, not yet reaped) is not running. */
export function isRunning(pid: number): boolean {
  const stat = readProcStat(pid);
  if (stat) return stat.state !== 'Z' && stat.state !== 'X';
  return process.platform === 'linux' ? false : isAlive(pid);
}

/** Whether the process group `pgid` still has a member (a zombie counts). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
