// Ending a process tree for good, and saying what was ended: SIGTERM to the root's process
// group and to every descendant listed before anything died, a grace, SIGKILL to whatever is
// left. One routine for the three places that end trees: AgentProcess.end (the host ends its
// own agent), the watchdog (the host is gone) and the activation clean-up (a previous host
// left a tree). POSIX only: Windows ends trees with taskkill in agentProcess.ts.
//
// Pids are held across a grace period here, and a pid is reused once its process is gone: every
// signal after the first listing goes only to a pid that still has the start time it had then
// (exact on Linux), and to the group only while its leader's pid is free or still the leader.
import { descendantsOf, groupExists, isRunning, listProcesses, startTimeOf as systemStartTimeOf, type ProcessInfo } from './processTree';

export interface TreeEndReport {
  /** Processes below the root (not the root itself) that were running and are gone now. */
  ended: ProcessInfo[];
  /** Processes below the root still running after SIGKILL (another user's, or stuck in the kernel). */
  survivors: ProcessInfo[];
}

export interface EndTreeOptions {
  /** How long the tree has to exit after SIGTERM before SIGKILL. */
  graceMs: number;
  /** The root's start time (`startTimeOf`) when it was started: guards against a reused pid. */
  rootStart?: string;
  /** Whether the root has exited. Default: its pid no longer names that running process. */
  rootGone?: () => boolean;
  /** Runs after the listing, before the first signal (AgentProcess closes stdin there). */
  beforeSignals?: () => Promise<void>;
  /** Once the root is gone, how long its remaining descendants get before SIGKILL (it had its chance to end them). */
  afterRootMs?: number;
  /** Injected in tests: the process list, and the start times (a pid reused during the grace). */
  list?: () => Promise<ProcessInfo[]>;
  startTimeOf?: (pid: number) => string | undefined;
}

const POLL_MS = 25;
const KILL_WAIT_MS = 1000;
const AFTER_ROOT_MS = 250;

export async function endTree(root: number, options: EndTreeOptions): Promise<TreeEndReport> {
  const startTimeOf = options.startTimeOf ?? systemStartTimeOf;
  // The root's pid names another process now (the root exited, its group emptied, the pid was
  // handed out again): what is below that pid is someone else's. Nothing of ours is left there.
  if (options.rootStart !== undefined && ![undefined, options.rootStart].includes(startTimeOf(root))) return { ended: [], survivors: [] };
  const all = await (options.list ?? listProcesses)();
  // Taken before anything dies: once the root exits its children are re-parented to init and
  // only the process group still ties them to it (and a child that left the group, only this).
  const tree = descendantsOf(root, all).filter((p) => p.pid !== root && isRunning(p.pid));
  // Exact start times are cheap on Linux only (elsewhere each is a `ps`): checked there.
  const exact = process.platform === 'linux';
  const starts = new Map(tree.map((p) => [p.pid, exact ? startTimeOf(p.pid) : undefined]));
  const same = (p: ProcessInfo) => {
    const start = starts.get(p.pid);
    return isRunning(p.pid) && (start === undefined || startTimeOf(p.pid) === start);
  };
  const checkRoot = () => {
    if (options.rootStart === undefined) return true;
    const now = startTimeOf(root);
    // A free pid: the group (if it still has members) is the root's own, since a pid is not
    // handed out while a group of that number exists. Taken with another start time: not ours.
    return now === undefined || now === options.rootStart;
  };
  let rootOurs = checkRoot();
  const rootIsOurs = () => (exact ? (rootOurs = checkRoot()) : rootOurs);
  const rootGone = options.rootGone ?? (() => !rootIsOurs() || !isRunning(root));
  const treeGone = () => tree.every((p) => !same(p)) && !(rootIsOurs() && groupExists(root));
  const signal = (sig: NodeJS.Signals) => {
    rootOurs = checkRoot();
    if (rootOurs) kill(-root, sig);
    for (const p of tree) if (same(p)) kill(p.pid, sig);
  };

  await options.beforeSignals?.();
  if (!(rootGone() && treeGone())) {
    signal('SIGTERM');
    const deadline = Date.now() + options.graceMs;
    let rootGoneAt: number | undefined;
    await waitUntil(() => {
      if (!rootGone()) return false;
      rootGoneAt ??= Date.now();
      return treeGone() || Date.now() - rootGoneAt >= (options.afterRootMs ?? AFTER_ROOT_MS);
    }, deadline);
    if (!(rootGone() && treeGone())) {
      // No second chance: tool processes that ignore SIGTERM, an agent that does.
      signal('SIGKILL');
      await waitUntil(() => rootGone() && treeGone(), Date.now() + KILL_WAIT_MS);
    }
  }
  const survivors = tree.filter(same);
  return { ended: tree.filter((p) => !survivors.includes(p)), survivors };
}

function kill(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // ESRCH: gone already. EPERM: not ours to end (reported as a survivor).
  }
}

function waitUntil(done: () => boolean, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => (done() || Date.now() >= deadline ? resolve() : setTimeout(tick, POLL_MS));
    tick();
  });
}
