// One running turn per checkout across windows: the folder admission (folderAdmission.ts) holds inside one
// extension host; this lock holds across all of them on the machine. It is a file per checkout,
// keyed by the checkout's real root (the git top level when there is one, else the folder's
// real path), in a directory every window of this user shares. Created with O_EXCL, so two
// windows cannot both take it; held while a turn runs or its stop is unverified; released when
// the turn settles and when the window ends. A lock whose owner (extension host pid and start
// time, as agentRecords.ts names agents) is gone is stale and taken over by renaming it away
// first: rename is atomic, so of two windows taking it over at once only one wins.
// Inside a window several folders can hold one checkout at once (nested workspace folders with
// reins.parallelTurnsPerFolder): the window counts its holders per root, and the file goes only
// when the last of them lets go (the first to end must not free a checkout the other still edits).
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { promises as fsp, unlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startTimeOf } from '../acp/processTree';

export interface LockHolder {
  version: 1;
  /** The extension host holding it, and its start time (a reused pid is not the owner). */
  pid: number;
  start: string;
  /** One per window (extension host), so that a window knows its own locks. */
  window: string;
  agent: string;
  /** The workspace folder the turn runs in (the checkout's root or a folder inside it). */
  folder: string;
  root: string;
  phase: 'running' | 'unverified';
  since: number;
}

/** One folder's turn holding a root in this window. */
interface Holding {
  agent: string;
  phase: LockHolder['phase'];
}

export type LockAdmission = { open: true } | { open: false; why: 'running' | 'unverified'; holder: LockHolder };

/** Whether a holder still runs: its pid names the same process (same start time). */
export type OwnerProbe = (holder: LockHolder) => boolean;
export const liveOwner: OwnerProbe = (holder) => startTimeOf(holder.pid) === holder.start;

/** The checkout's real root: git's top level, else the folder's real path. */
export async function checkoutRoot(folder: string): Promise<string> {
  const real = await fsp.realpath(folder);
  const top = await new Promise<string | undefined>((resolve) =>
    execFile('git', ['rev-parse', '--show-toplevel'], { cwd: real, windowsHide: true }, (error, stdout) =>
      resolve(error ? undefined : stdout.trim() || undefined),
    ),
  );
  return top ? fsp.realpath(top) : real;
}

/** Where every window of this user keeps the locks. */
function defaultLockDir(): string {
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : os.userInfo().username;
  return path.join(os.tmpdir(), `reins-${user}`, 'checkout-locks');
}

export class CheckoutLocks {
  readonly window = randomUUID();
  private readonly self: { pid: number; start: string };
  /** Roots this window holds, each with its holders (folder → its turn's agent and phase). */
  private readonly held = new Map<string, Map<string, Holding>>();
  private writes = 0;

  constructor(
    readonly dir: string = defaultLockDir(),
    private readonly alive: OwnerProbe = liveOwner,
    self?: { pid: number; start: string },
  ) {
    this.self = self ?? { pid: process.pid, start: startTimeOf(process.pid) ?? `pid-${process.pid}` };
  }

  /**
   * Take the lock of `root` for `folder`'s turn, or say who holds it. Held already by this window
   * (the same folder or another one in the checkout): open, and `folder` counted as a holder.
   */
  async acquire(root: string, agent: string, folder: string): Promise<LockAdmission> {
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.fileOf(root);
    const mine: LockHolder = { version: 1, ...this.self, window: this.window, agent, folder, root, phase: 'running', since: Date.now() };
    for (let attempt = 0; attempt < 3; attempt++) {
      // Written whole to a file of our own, then linked into place: link fails if the lock
      // exists, and a reader never sees half a record.
      const tmp = `${file}.${this.window}.tmp`;
      await fsp.writeFile(tmp, JSON.stringify(mine), { mode: 0o600 });
      try {
        await fsp.link(tmp, file);
        this.hold(root, folder, agent);
        return { open: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      } finally {
        await fsp.rm(tmp, { force: true });
      }
      const holder = await this.read(file);
      if (holder?.window === this.window) {
        this.hold(root, folder, agent);
        await this.write(file, this.record(holder, root));
        return { open: true };
      }
      if (holder && this.alive(holder)) return { open: false, why: holder.phase, holder };
      const taken = await this.takeOver(file);
      if (taken) return { open: false, why: taken.phase, holder: taken };
    }
    const holder = await this.read(file);
    return holder ? { open: false, why: holder.phase, holder } : { open: true };
  }

  /**
   * Move a stale lock aside (rename is atomic: of two windows doing it at once, one gets ENOENT).
   * If what was moved is a live lock after all (another window took the stale one over in the
   * meantime), it is put back and its holder returned.
   */
  private async takeOver(file: string): Promise<LockHolder | undefined> {
    const aside = `${file}.stale-${this.window}`;
    try {
      await fsp.rename(file, aside);
    } catch {
      return undefined; // moved by another window first: try again
    }
    const moved = await this.read(aside);
    if (moved && moved.window !== this.window && this.alive(moved)) {
      await fsp.link(aside, file).catch(() => undefined);
      await fsp.rm(aside, { force: true });
      return moved;
    }
    await fsp.rm(aside, { force: true });
    return undefined;
  }

  /** Who holds `root` now, if another live window does (for the undo and the status). */
  async check(root: string): Promise<LockAdmission> {
    const holder = await this.read(this.fileOf(root));
    if (!holder || holder.window === this.window || !this.alive(holder)) return { open: true };
    return { open: false, why: holder.phase, holder };
  }

  /** `folder`'s turn went unverified (still held), or ran again. */
  async mark(root: string, phase: LockHolder['phase'], folder: string): Promise<void> {
    const holding = this.held.get(root)?.get(folder);
    if (!holding || holding.phase === phase) return;
    holding.phase = phase;
    const file = this.fileOf(root);
    const holder = await this.read(file);
    if (holder?.window === this.window) await this.write(file, this.record(holder, root));
  }

  /** `folder`'s turn settled: once no folder of this window holds the checkout, it is free for other windows. */
  async release(root: string, folder: string): Promise<void> {
    const holders = this.held.get(root);
    if (!holders?.delete(folder)) return;
    const file = this.fileOf(root);
    const holder = await this.read(file);
    if (holders.size > 0) {
      // Another folder's turn still runs here: the lock stays, naming what still holds it.
      if (holder?.window === this.window) await this.write(file, this.record(holder, root));
      return;
    }
    this.held.delete(root);
    if (holder?.window === this.window) await fsp.rm(file, { force: true });
  }

  /** The window ends: every lock it holds goes (synchronously: deactivation may be cut short). */
  releaseAll(): void {
    for (const root of this.held.keys()) {
      try {
        unlinkSync(this.fileOf(root));
      } catch {
        // already gone
      }
    }
    this.held.clear();
  }

  /** Whether `folder` (any folder of this window, without one) holds `root`. */
  holds(root: string, folder?: string): boolean {
    const holders = this.held.get(root);
    return folder === undefined ? !!holders?.size : !!holders?.has(folder);
  }

  private hold(root: string, folder: string, agent: string): void {
    let holders = this.held.get(root);
    if (!holders) this.held.set(root, (holders = new Map<string, Holding>()));
    holders.set(folder, { agent, phase: 'running' });
  }

  /**
   * The record of this window's holders of `root`: unverified if any of them is (its agent may
   * still be editing), and naming that one, else the latest to take it.
   */
  private record(base: LockHolder, root: string): LockHolder {
    const holders: [string, Holding][] = [...(this.held.get(root) ?? [])];
    const named = holders.find(([, h]) => h.phase === 'unverified') ?? holders.at(-1);
    if (!named) return base;
    const [folder, holding] = named;
    return { ...base, agent: holding.agent, folder, phase: holding.phase, since: Date.now() };
  }

  private fileOf(root: string): string {
    return path.join(this.dir, `${createHash('sha256').update(root).digest('hex').slice(0, 32)}.json`);
  }

  private async read(file: string): Promise<LockHolder | undefined> {
    try {
      const value = JSON.parse(await fsp.readFile(file, 'utf8')) as LockHolder;
      return value?.version === 1 && Number.isInteger(value.pid) && typeof value.window === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }

  private async write(file: string, holder: LockHolder): Promise<void> {
    // Through a temporary file of its own and rename: a reader never sees half a record.
    const tmp = `${file}.${this.window}.${++this.writes}.tmp`;
    await fsp.writeFile(tmp, JSON.stringify(holder), { mode: 0o600 });
    await fsp.rename(tmp, file);
  }
}
