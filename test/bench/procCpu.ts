// CPU time per process over a window, from /proc (Linux only): where the two cores went while
// the webview streamed. The streaming rows' long tasks were measured waiting for a core (a
// task's wall time several times its thread time), so what the other processes take is part of
// the webview's figure. Processes are grouped by role from their command lines.
import { readdirSync, readFileSync } from 'node:fs';

type Ticks = Map<number, { role: string; ticks: number }>;

const HZ = 100; // USER_HZ: /proc's clock ticks per second on Linux

/** The role of a process, from its command line ('' for what the bench does not care about).
 *  Renderers one by one: the workbench's and the webview's may be separate processes. */
function roleOf(cmd: string, pid: number): string {
  if (/scripted-agent\.js/.test(cmd)) return 'agent (scripted)';
  if (/--type=extensionHost|extensionHostProcess|bootstrap-fork.*extensionHost/.test(cmd)) return 'extension host';
  if (/chrom(e|ium).*--type=renderer/.test(cmd)) return `browser renderer ${pid}`;
  if (/chrom(e|ium).*--type=gpu-process/.test(cmd)) return 'browser GPU';
  if (/chrom(e|ium).*--type=/.test(cmd)) return 'browser helpers';
  if (/chrom(e|ium)/.test(cmd)) return 'browser main';
  if (/code-server|server-main|out\/node\/entry/.test(cmd)) return 'code-server';
  if (/ptyHost|fileWatcher|watcherMain/.test(cmd)) return 'code-server helpers';
  if (/bench\/index\.js/.test(cmd)) return 'bench driver';
  return '';
}

/** utime + stime of every process the bench cares about, now. */
export function sampleCpu(): Ticks {
  const out: Ticks = new Map();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const role = roleOf(cmd, pid);
      if (!role) continue;
      // Fields after the command's closing parenthesis: state is 3rd, utime 14th, stime 15th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, { role, ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}

/** Busy and total CPU time of the whole machine so far (/proc/stat, clock ticks). */
export function machineTicks(): { busy: number; total: number } {
  // The first line: "cpu  user nice system idle iowait irq softirq steal …"; idle and iowait are not busy.
  const f = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
}

/** CPU seconds per role between two samples (a process that started in between counts from 0). */
export function cpuBetween(before: Ticks, after: Ticks): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const [pid, { role, ticks }] of after) {
    const used = (ticks - (before.get(pid)?.ticks ?? 0)) / HZ;
    byRole.set(role, (byRole.get(role) ?? 0) + used);
  }
  return new Map([...byRole].sort((a, b) => b[1] - a[1]));
}

/** "extension host 3.1 s, browser renderers 2.4 s, …" over `wallS` seconds. */
export function formatCpu(byRole: Map<string, number>, wallS: number): string {
  const total = [...byRole.values()].reduce((a, b) => a + b, 0);
  const parts = [...byRole].filter(([, s]) => s >= 0.05).map(([role, s]) => `${role} ${s.toFixed(1)} s`);
  return `${total.toFixed(1)} CPU-s in ${wallS.toFixed(1)} s (${(total / wallS).toFixed(2)} cores): ${parts.join(', ')}`;
}
