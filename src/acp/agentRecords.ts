// The record of running agents, for the one case the watchdog cannot cover (it was killed
// too, or never got to run): an extension host that died and left agent trees running. Each
// agent gets a small file in the extension's global storage while it runs; the next activation
// ends the trees whose host is gone and whose pid still names the same process (same start
// time), so a reused pid is never hit. The watchdog's own reports are read and logged there too.
//
// Global storage is shared by every window of this editor (and, for a home folder on a network
// share, by other machines): a record whose host still runs belongs to another window and is
// left alone; a record from another machine is not ours to judge. POSIX only (Windows: no
// records, no watchdog; see agentProcess.ts).
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../util/logger';
import { endTree, type TreeEndReport } from './endTree';
import { startTimeOf, type ProcessInfo } from './processTree';

export interface AgentRecord {
  version: 1;
  hostname: string;
  pid: number;
  /** The agent leads its own process group (spawned detached), so this is its pid. */
  pgid: number;
  /** `startTimeOf(pid)` when it was spawned. */
  start: string;
  /** The command line, as the log shows it (environment values are never recorded). */
  command: string;
  cwd: string;
  startedAt: string;
  /** The extension host that spawned it. */
  host: { pid: number; start: string };
}

/**
 * What to do with a record at activation:
 * `other-machine` leave it (not ours to judge); `owner-alive` leave it (another window's agent);
 * `end` its host is gone and its pid still names it: end the tree; `gone` the agent is gone:
 * drop the record; `reused` its pid names another process now: drop the record, touch nothing.
 */
export type Verdict = 'other-machine' | 'owner-alive' | 'end' | 'gone' | 'reused';

/** What `judge` asks of the system; a fake process list in the tests. */
export interface ProcessProbe {
  hostname: string;
  startTimeOf(pid: number): string | undefined;
}

const systemProbe: ProcessProbe = { hostname: hostname(), startTimeOf };

export function judge(record: AgentRecord, probe: ProcessProbe): Verdict {
  if (record.hostname !== probe.hostname) return 'other-machine';
  if (probe.startTimeOf(record.host.pid) === record.host.start) return 'owner-alive';
  const now = probe.startTimeOf(record.pid);
  if (now === undefined) return 'gone';
  return now === record.start ? 'end' : 'reused';
}

function isRecord(value: unknown): value is AgentRecord {
  const r = value as AgentRecord;
  return (
    typeof r === 'object' &&
    r !== null &&
    r.version === 1 &&
    typeof r.hostname === 'string' &&
    Number.isInteger(r.pid) &&
    r.pid > 1 &&
    Number.isInteger(r.pgid) &&
    typeof r.start === 'string' &&
    typeof r.command === 'string' &&
    typeof r.host === 'object' &&
    r.host !== null &&
    Number.isInteger(r.host.pid) &&
    typeof r.host.start === 'string'
  );
}

export class AgentRecords {
  constructor(readonly dir: string) {}

  /** Where the watchdog appends what it ended (one JSON line each), read at activation. */
  get watchdogLog(): string {
    return path.join(this.dir, 'watchdog.jsonl');
  }

  private fileFor(record: Pick<AgentRecord, 'hostname' | 'pid'>): string {
    return path.join(this.dir, `agent-${record.hostname.replace(/[^A-Za-z0-9.-]/g, '_')}-${record.pid}.json`);
  }

  async write(record: AgentRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Written whole, then renamed: an activation reading meanwhile never sees half a record.
    const file = this.fileFor(record);
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(record, null, 1));
    await rename(temp, file);
  }

  async remove(record: Pick<AgentRecord, 'hostname' | 'pid'>): Promise<void> {
    await rm(this.fileFor(record), { force: true });
  }

  /** Every record, with the file it was read from; files that do not parse as one are removed. */
  async readAll(): Promise<(AgentRecord & { file: string })[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const found: (AgentRecord & { file: string })[] = [];
    for (const name of names.filter((n) => /^agent-.*\.json$/.test(n))) {
      const file = path.join(this.dir, name);
      try {
        const value: unknown = JSON.parse(await readFile(file, 'utf8'));
        if (isRecord(value)) found.push({ ...value, file });
        else await rm(file, { force: true });
      } catch {
        await rm(file, { force: true }).catch(() => undefined);
      }
    }
    return found;
  }

  /** The watchdog's reports since the last activation, taken (renamed away first: a watchdog may be appending). */
  async takeWatchdogReports(): Promise<string[]> {
    const taken = `${this.watchdogLog}.${process.pid}.read`;
    try {
      await rename(this.watchdogLog, taken);
    } catch {
      return [];
    }
    try {
      return (await readFile(taken, 'utf8')).split('\n').filter((l) => l.trim());
    } finally {
      await rm(taken, { force: true });
    }
  }
}

export interface EndedAgent {
  record: AgentRecord;
  report: TreeEndReport;
}

export interface CleanupOptions {
  probe?: ProcessProbe;
  end?: (pid: number, start: string) => Promise<TreeEndReport>;
  graceMs?: number;
}

/**
 * At activation: log what the watchdog ended while no host was there, then end the agent trees
 * that a dead host left and drop records that name nothing. Returns the agents it ended.
 */
export async function endAgentsLeftBehind(records: AgentRecords, log: Logger, options: CleanupOptions = {}): Promise<EndedAgent[]> {
  if (process.platform === 'win32') return [];
  const probe = options.probe ?? systemProbe;
  const end = options.end ?? ((pid, start) => endTree(pid, { graceMs: options.graceMs ?? 1500, rootStart: start }));
  for (const line of await records.takeWatchdogReports()) logWatchdogReport(line, log);
  const ended: EndedAgent[] = [];
  for (const { file, ...record } of await records.readAll()) {
    const verdict = judge(record, probe);
    if (verdict === 'other-machine' || verdict === 'owner-alive') continue;
    if (verdict === 'end') {
      const report = await end(record.pid, record.start);
      ended.push({ record, report });
      log.warn(
        `ended agent ${record.pid} (${record.command}, started ${record.startedAt} in ${record.cwd}), left running by an extension host that is gone` +
          describeEnded(report),
      );
    } else {
      log.debug(`record of agent ${record.pid} (${record.command}) dropped: ${verdict === 'gone' ? 'it is gone' : 'its pid names another process now'}`);
    }
    await rm(file, { force: true });
  }
  return ended;
}

function describeEnded(report: TreeEndReport): string {
  const list = (ps: ProcessInfo[]) => ps.map((p) => `${p.pid} ${p.command}`).join('; ');
  return (
    (report.ended.length ? `; also ended: ${list(report.ended)}` : '') +
    (report.survivors.length ? `; still running (could not be ended): ${list(report.survivors)}` : '')
  );
}

function logWatchdogReport(line: string, log: Logger): void {
  try {
    const r = JSON.parse(line) as { at: string; reason: string; agent: number; label: string } & TreeEndReport;
    log.warn(`at ${r.at} the watchdog ended agent ${r.agent} (${r.label}): ${r.reason}${describeEnded(r)}`);
  } catch {
    log.debug(`unreadable watchdog report: ${line}`);
  }
}
