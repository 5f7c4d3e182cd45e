// The watchdog: a tiny process per agent that ends the agent's whole tree when the extension
// host that started it disappears without ending it (a crash, SIGKILL, code-server stopped,
// Ctrl-C of `npm start`). codex-acp and claude-agent-acp do not exit when their stdin closes,
// so without it their trees run on under init. POSIX only (Windows keeps taskkill at `end`).
//
// It runs beside the agent, not between: the host spawns the agent itself (so the agent's pid,
// process group, exit status and stdio stay exactly as they were, with no copy on the stream)
// and then this script, detached (its own session: a signal to the host's process group, such
// as code-server's stop, does not reach it). Its stdin is a pipe from the host, which nothing
// else holds: the host writes "release" when it has ended the agent itself or the agent's
// group is empty; end of file without it means the host is gone (the kernel closed the pipe).
// A change of parent (re-parented to init) says the same, checked every second as a backup.
//
// The agent's terminals (terminal/create) are children of the host in process groups of their
// own, not in the agent's tree: the host names each on the pipe (`guard PID START`, and
// `unguard PID` once it has ended it), and when the host dies they are ended with the agent.
//
//   node watchdog.js --agent PID --start TOKEN --host PID [--grace MS] [--poll MS] [--log FILE] [--label TEXT]
//
// Bundled to dist/watchdog.js (scripts/esbuild.mjs) and shipped in the .vsix (.vscodeignore).
import { appendFileSync } from 'node:fs';
import { endTree } from './endTree';
import { groupExists, startTimeOf } from './processTree';

interface WatchdogArgs {
  agent: number;
  start: string;
  host: number;
  graceMs: number;
  pollMs: number;
  log?: string;
  label: string;
}

function parseWatchdogArgs(argv: string[]): WatchdogArgs | string {
  const value = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const agent = Number(value('agent'));
  const host = Number(value('host'));
  const start = value('start');
  if (!(agent > 1) || !(host > 1) || !start) return 'usage: watchdog --agent PID --start TOKEN --host PID [--grace MS] [--poll MS] [--log FILE] [--label TEXT]';
  return {
    agent,
    start,
    host,
    graceMs: Number(value('grace') ?? 1500) || 1500,
    pollMs: Number(value('poll') ?? 1000) || 1000,
    log: value('log'),
    label: value('label') ?? '',
  };
}

function main(): void {
  const args = parseWatchdogArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    process.stderr.write(`${args}\n`);
    process.exit(2);
  }
  // The agent exited and its group is empty, or its pid now names another process (whose group,
  // if any, is not the agent's: a pid is not handed out while a group of that number exists).
  const nothingToGuard = () => {
    const now = startTimeOf(args.agent);
    return now === undefined ? !groupExists(args.agent) : now !== args.start;
  };
  let pending = '';
  let releasedByHost = false;
  /** The terminals' process groups to end with the agent: pid → start time. */
  const terminals = new Map<number, string>();
  let acting = false;
  const quit = () => process.exit(0);
  const heard = (line: string) => {
    const [word, pid, ...start] = line.trim().split(' ');
    if (word === 'release') releasedByHost = true;
    else if (word === 'guard' && Number(pid) > 1 && start.length > 0) terminals.set(Number(pid), start.join(' '));
    else if (word === 'unguard') terminals.delete(Number(pid));
  };
  // A terminal that exited and left nothing in its group (or whose pid names another process now).
  const terminalDone = (pid: number, start: string) => {
    const now = startTimeOf(pid);
    return now === undefined ? !groupExists(pid) : now !== start;
  };

  const hostGone = async (reason: string) => {
    if (acting) return;
    acting = true;
    clearInterval(timer);
    // endTree itself leaves a tree alone if its root's pid now names another process. The
    // terminals at the same time as the agent: each has the same grace, not one after another.
    const [report, ...terminalReports] = await Promise.all([
      endTree(args.agent, { graceMs: args.graceMs, rootStart: args.start }),
      ...[...terminals].map(([pid, start]) => endTree(pid, { graceMs: args.graceMs, rootStart: start })),
    ]);
    if (args.log) {
      // Read and logged by the next activation (agentRecords.ts): the only trace of this.
      const ended = [...report.ended, ...terminalReports.flatMap((r) => r.ended)];
      const survivors = [...report.survivors, ...terminalReports.flatMap((r) => r.survivors)];
      const line = { at: new Date().toISOString(), reason, agent: args.agent, label: args.label, terminals: [...terminals.keys()], ended, survivors };
      try {
        appendFileSync(args.log, JSON.stringify(line) + '\n');
      } catch {
        // The storage folder is gone: nothing to tell anyone.
      }
    }
    quit();
  };

  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) heard(line);
  });
  process.stdin.on('end', () => {
    heard(pending);
    return releasedByHost ? quit() : void hostGone('the extension host closed its pipe');
  });
  process.stdin.on('error', () => void hostGone('the pipe from the extension host failed'));

  const timer = setInterval(() => {
    if (process.ppid !== args.host) return void hostGone(`the extension host ${args.host} is no longer the parent`);
    for (const [pid, start] of terminals) if (terminalDone(pid, start)) terminals.delete(pid);
    // The host forgot to release us: leave.
    if (nothingToGuard() && terminals.size === 0) quit();
  }, args.pollMs);
}

main();
