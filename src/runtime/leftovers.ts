// Tool processes that outlived a stopped turn (codex-acp leaves a cancelled `sleep 37`
// running). A safety net that ends the agent's own processes is worse than none, so a
// leftover is only a process that can be tied to one of the stopped turn's tool calls: its
// command line matches the command the agent announced (`rawInput.command`, `cmd`, or the
// title), or it descends from such a process. Starting during the turn proves nothing:
// claude-agent-acp starts one Claude Code process per session and pi-acp talks to `pi` for
// the whole session, and both may start while a stop unwinds.
//
// The listing is taken the moment the outcome is known, and the runtime sends nothing that
// changes the session (a prompt, session/new) until it is in (`barrier`), so that a process
// the next request makes can never be in it. What matches is listed once more a little later:
// only what is still there, with the same start, is reported (claude ends its own tool
// wrappers while a cancel unwinds).
//
// Terminals (terminal/create) are tool processes too, but Reins runs them: they are children
// of the extension host, each leading its own process group, so a listing below the agent
// never shows them, and no command needs matching: Reins knows which turn asked for each one.
// The controller hands the scan the pids of the stopped turn's terminals still in use; their
// trees are taken from the same listing and go through the same re-check, report and ending
// as any leftover. (Every terminal is ended with its session in any case: terminals.ts.)
import { descendantsOf, listProcesses, signalAll, type ProcessInfo } from '../acp/processTree';
import type { Logger } from '../util/logger';

/** ps gives start times to the second: allow that much slack when comparing them. */
const PS_SLACK_MS = 1500;
/**
 * Whether `p` started after `since`, as far as its start time tells. Read from /proc it is
 * known to a few ms: an agent's helper that came up just before the turn (a session's own
 * process) is then never the turn's, whether or not the baseline listing caught it.
 */
const startedAfter = (p: ProcessInfo, since: number) => p.startedAt >= since - (p.startedWithinMs ?? PS_SLACK_MS);
/** How long after the outcome a matching process must still run to count as left over. */
const RECHECK_MS = 300;

export interface ToolTrace {
  /** Command lines the agent announced for this tool call. */
  commands: string[];
  /** When the tool call was first seen (ms since the epoch). */
  seenAt: number;
}

export interface LeftoverQuery {
  agentPid: number;
  /** The agent's own processes, listed while it was idle: never leftovers. */
  baseline: ReadonlySet<number>;
  /** The stopped turn's start. */
  since: number;
  tools: ToolTrace[];
}

/** The command strings a tool call announces: `rawInput.command` (string or argv), `cmd`, the title. */
export function toolCommands(title: string | null | undefined, rawInput: unknown): string[] {
  const found: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.trim()) found.push(normalize(value));
    else if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) {
      const argv: string[] = value;
      found.push(normalize(argv.join(' ')));
      // ["bash", "-lc", "sleep 37"]: the script is what runs below the shell.
      const last = argv.at(-1);
      if (argv.length > 1 && last !== undefined && /\s/.test(last.trim())) found.push(normalize(last));
    }
  };
  if (rawInput && typeof rawInput === 'object') {
    const input = rawInput as Record<string, unknown>;
    add(input.command);
    add(input.cmd);
  }
  if (title) add(stripTitleVerb(title));
  return [...new Set(found.filter((c) => c.length > 0))];
}

/** Titles such as "Run `sleep 37`" or "Bash: sleep 37" name the command with a few words around it. */
function stripTitleVerb(title: string): string {
  const quoted = /`([^`]+)`/.exec(title)?.[1];
  if (quoted !== undefined) return quoted;
  return title.replace(/^(run|running|execute|executing|bash|shell|terminal)\s*:?\s+/i, '');
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const BOUNDARY = /[\s;&|()'"`/<>=]/;

/** `needle` occurs in `haystack` as whole words (bounded by spaces, quotes, shell operators or a path's `/`). */
function containsWords(haystack: string, needle: string): boolean {
  if (!needle) return false;
  let at = haystack.indexOf(needle);
  while (at >= 0) {
    const before = at === 0 ? ' ' : haystack.charAt(at - 1);
    const after = at + needle.length >= haystack.length ? ' ' : haystack.charAt(at + needle.length);
    if (BOUNDARY.test(before) && BOUNDARY.test(after)) return true;
    at = haystack.indexOf(needle, at + 1);
  }
  return false;
}

/**
 * Does a process running `args` carry out `command`? One contains the other as whole words:
 * `sh -c sleep 37` runs "sleep 37"; `sleep 37` is part of "sleep 37 && echo done". A bare
 * program name matches only that program run bare: "node" must never match the agent's own
 * `node cli.js …`, and a one-word process (`cat`) only counts below a matched shell.
 */
export function runsCommand(args: string, command: string): boolean {
  const a = normalize(args);
  const c = normalize(command);
  if (!a || !c) return false;
  if (!c.includes(' ')) return a === c || a.endsWith(`/${c}`);
  return containsWords(a, c) || (a.includes(' ') && containsWords(c, a));
}

/** The processes of `snapshot` that belong to the stopped turn's tools. Pure: tested with fake lists. */
export function findLeftovers(snapshot: ProcessInfo[], q: LeftoverQuery): ProcessInfo[] {
  const below = descendantsOf(q.agentPid, snapshot).filter((p) => p.pid !== q.agentPid && !q.baseline.has(p.pid) && startedAfter(p, q.since));
  const matched = new Map<number, ProcessInfo>();
  for (const p of below) {
    const tool = q.tools.some((t) => p.startedAt >= t.seenAt - PS_SLACK_MS && t.commands.some((c) => runsCommand(p.command, c)));
    if (tool) matched.set(p.pid, p);
  }
  // What a matched tool started (npm test → node …) is the tool's too.
  for (const root of [...matched.values()]) {
    for (const child of descendantsOf(root.pid, below)) matched.set(child.pid, child);
  }
  return [...matched.values()];
}

/**
 * The trees of the stopped turn's terminals in `snapshot`: each root (while it runs) and what
 * is below it or in its group. Started during the turn, as any leftover: a terminal whose
 * command exited long ago has a pid that may name another process by now.
 */
function terminalTrees(snapshot: ProcessInfo[], roots: number[], since: number): ProcessInfo[] {
  const found = new Map<number, ProcessInfo>();
  for (const root of roots) {
    for (const p of [...snapshot.filter((x) => x.pid === root), ...descendantsOf(root, snapshot)]) {
      if (startedAfter(p, since)) found.set(p.pid, p);
    }
  }
  return [...found.values()];
}

/** The same process still there: same pid, same command, the same start (to ps's second). */
export function stillRunning(found: ProcessInfo[], later: ProcessInfo[]): ProcessInfo[] {
  const now = new Map(later.map((p) => [p.pid, p]));
  return found.filter((p) => {
    const again = now.get(p.pid);
    return again !== undefined && again.command === p.command && Math.abs(again.startedAt - p.startedAt) <= PS_SLACK_MS;
  });
}

/**
 * One agent's leftover watch: the turn's tool calls, the agent's own processes, the listing
 * taken at a stop's outcome, and ending what was found.
 */
export class LeftoverWatch {
  private baseline = new Set<number>();
  private tools = new Map<string, ToolTrace>();
  private turnStartedAt = 0;
  private snapshotting: Promise<unknown> | undefined;
  private lastFound: ProcessInfo[] = [];

  constructor(
    private readonly log: Logger,
    private readonly list: () => Promise<ProcessInfo[]> = listProcesses,
  ) {}

  /** A turn starts: its tool calls are collected from here on. */
  beginTurn(at: number): void {
    this.turnStartedAt = at;
    this.tools = new Map();
  }

  /** A tool call (or its update, or a permission request that shows it) of the running turn. */
  noteTool(toolCallId: string, title: string | null | undefined, rawInput: unknown, at: number): void {
    const commands = toolCommands(title, rawInput);
    const known = this.tools.get(toolCallId);
    if (known) {
      for (const c of commands) if (!known.commands.includes(c)) known.commands.push(c);
    } else {
      this.tools.set(toolCallId, { commands, seenAt: at });
    }
  }

  /**
   * List the agent's processes as they are now, as its own: after start, after every session
   * change, after each turn. `stillIdle` is asked when the listing is in: a turn that began
   * meanwhile keeps the old baseline (its tools may be in the listing).
   */
  async refreshBaseline(agentPid: number, stillIdle: () => boolean): Promise<void> {
    if (process.platform === 'win32') return;
    const procs = descendantsOf(agentPid, await this.list());
    if (stillIdle()) this.baseline = new Set(procs.map((p) => p.pid));
  }

  /** Resolves once the listing of the last outcome has been taken (sends wait for it). */
  barrier(): Promise<void> {
    return this.snapshotting ? this.snapshotting.then(() => undefined) : Promise.resolve();
  }

  /**
   * Take the listing now, at the outcome of a stop; then find and re-check the turn's
   * leftovers. The turn's facts are captured here: a next turn replaces them.
   */
  scan(agentPid: number, terminals: number[] = []): Promise<ProcessInfo[]> {
    const query: LeftoverQuery = { agentPid, baseline: this.baseline, since: this.turnStartedAt, tools: [...this.tools.values()] };
    const listing = this.list();
    this.snapshotting = listing.catch(() => undefined);
    return listing.then(async (snapshot) => {
      if (query.tools.length === 0 && terminals.length === 0) return [];
      const byPid = new Map([...findLeftovers(snapshot, query), ...terminalTrees(snapshot, terminals, query.since)].map((p) => [p.pid, p]));
      const candidates = [...byPid.values()];
      if (candidates.length === 0) return [];
      await new Promise((resolve) => setTimeout(resolve, RECHECK_MS));
      const found = stillRunning(candidates, await this.list());
      this.lastFound = found;
      if (candidates.length !== found.length) {
        this.log.debug(`leftover check: ${candidates.length - found.length} matching process(es) ended by themselves after the stop`);
      }
      return found;
    });
  }

  /**
   * End what the last scan found, and only those that still are what was found: a pid is
   * reused once its process is gone, and the user may click *End Them* minutes later.
   */
  async endFound(): Promise<ProcessInfo[]> {
    const found = this.lastFound;
    this.lastFound = [];
    if (found.length === 0) return found;
    const ended = stillRunning(found, await this.list());
    const pids = ended.map((p) => p.pid);
    signalAll(pids, 'SIGTERM');
    setTimeout(() => signalAll(pids, 'SIGKILL'), 1000).unref();
    this.log.info(`ended ${ended.length} leftover tool process(es): ${ended.map((p) => `${p.pid} ${p.command}`).join('; ')}`);
    return ended;
  }
}
