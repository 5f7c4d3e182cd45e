// What runs below an agent process: for ending its whole tree, and for finding the tool
// processes a turn left behind (runtime/leftovers.ts decides which those are).
// Linux reads /proc; other POSIX systems read `ps`, whose `-A -o pid=,ppid=,pgid=,etime=,args=`
// works on Linux and macOS alike.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** When the process started, in ms since the epoch (to the second: `ps` says no more). */
  startedAt: number;
  /** How far `startedAt` may be off when it is known better than `ps` knows it (/proc: clock ticks). */
  startedWithinMs?: number;
  command: string;
}

/** `[[dd-]hh:]mm:ss` → seconds. */
export function parseElapsed(text: string): number {
  const [days = '0', rest = ''] = text.includes('-') ? text.split('-') : ['0', text];
  // From the right: seconds, minutes, hours; the missing ones are 0.
  const [s = 0, m = 0, h = 0] = rest.split(':').map(Number).reverse();
  return Number(days) * 86400 + h * 3600 + m * 60 + s;
}

export function parsePsOutput(output: string, now: number): ProcessInfo[] {
  const result: ProcessInfo[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!match) continue;
    // Every group of the pattern is mandatory: the defaults never apply.
    const [, pid = '', ppid = '', pgid = '', elapsed = '', command = ''] = match;
    result.push({
      pid: Number(pid),
      ppid: Number(ppid),
      pgid: Number(pgid),
      startedAt: now - parseElapsed(elapsed) * 1000,
      command: command.trim(),
    });
  }
  return result;
}

/**
 * Every process on the machine. On Linux read from /proc: no process is started, because
 * starting `ps` forks the extension host (hundreds of MB), and the fork holds its event loop
 * for 10–50 ms on a loaded machine, right when a stop's outcome is to reach the user.
 */
export function listProcesses(): Promise<ProcessInfo[]> {
  if (process.platform === 'win32') return Promise.resolve([]);
  if (process.platform === 'linux') return listFromProc().catch(() => listFromPs());
  return listFromPs();
}

/** USER_HZ, the unit of /proc's start times: 100 on every Linux that runs VS Code. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Processes read per turn of the event loop: about a millisecond of /proc reads each. */
const PROC_BATCH = 16;

/**
 * Reads in small synchronous batches, each after a turn of the event loop: the caller goes on
 * at once, nothing holds the loop for more than a batch, and no read waits in the thread pool
 * (promise reads of a few hundred /proc files took several times as long on a loaded machine).
 */
async function listFromProc(): Promise<ProcessInfo[]> {
  const found: ProcessInfo[] = [];
  let pids: string[] | undefined;
  for (let at = 0; pids === undefined || at < pids.length; at += PROC_BATCH) {
    await new Promise((resolve) => setImmediate(resolve));
    pids ??= readdirSync('/proc').filter((n) => /^\d+$/.test(n));
    const now = Date.now();
    const upSeconds = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    for (const pid of pids.slice(at, at + PROC_BATCH)) {
      let entry: ProcessInfo | undefined;
      try {
        entry = procEntry(Number(pid), readFileSync(`/proc/${pid}/stat`, 'utf8'), readFileSync(`/proc/${pid}/cmdline`, 'utf8'), now, upSeconds);
      } catch {
        // It exited while the listing was read.
      }
      if (entry) found.push(entry);
    }
  }
  return found;
}

/**
 * One process from its /proc/<pid>/stat and /proc/<pid>/cmdline (arguments separated by NULs);
 * `upSeconds` is /proc/uptime's first field at `now`. Pure: tested with fixed text. A process
 * without arguments (a kernel thread, a zombie) shows as `[name]`, as `ps` shows it.
 */
export function procEntry(pid: number, stat: string, cmdline: string, now: number, upSeconds: number): ProcessInfo | undefined {
  const fields = parseProcStat(pid, stat);
  if (!fields) return undefined;
  const args = cmdline.replace(/\0+$/, '').replace(/\0/g, ' ').trim();
  return {
    pid,
    ppid: fields.ppid,
    pgid: fields.pgid,
    startedAt: Math.round(now - (upSeconds - fields.startTicks / CLOCK_TICKS_PER_SECOND) * 1000),
    // Ticks of 10 ms, and /proc/uptime read a moment apart from `now`.
    startedWithinMs: 50,
    command: args || `[${fields.name}]`,
  };
}

function listFromPs(): Promise<ProcessInfo[]> {
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
interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie: exited, not yet reaped), T, … */
  state: string;
  ppid: number;
  pgid: number;
  /** Clock ticks after boot at which the process started: never changes for its life. */
  startTicks: number;
  /** The command's name (`comm`, at most 15 bytes). */
  name: string;
}

/** The text of /proc/<pid>/stat parsed, or undefined when it is not one. */
function parseProcStat(pid: number, text: string): ProcStat | undefined {
  // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses; parse after the last ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 (state) of proc(5); starttime is field 22.
  const state = fields[0];
  if (!state || fields.length < 20) return undefined;
  return { pid, state, ppid: Number(fields[1]), pgid: Number(fields[2]), startTicks: Number(fields[19]), name: text.slice(text.indexOf('(') + 1, close) };
}

/** /proc/<pid>/stat parsed, or undefined (no such process, or not Linux). */
function readProcStat(pid: number): ProcStat | undefined {
  if (process.platform !== 'linux') return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return parseProcStat(pid, text);
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
