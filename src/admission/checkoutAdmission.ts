// One folder conversation's side of the checkout lock (checkoutLock.ts): the checkout's root found
// once, the lock taken before a prompt, and then following the runtime's turn: marked while
// its stop is unverified, released when it settles, when the runtime goes, and at exit.
import type { Disposable } from '../util/disposable';
import type { Logger } from '../util/logger';
import { checkoutRoot, type CheckoutLocks, type LockAdmission } from './checkoutLock';
import type { TurnState } from '../runtime/turnMachine';

/** What the lock follows of a runtime. */
export interface AdmittedRuntime {
  readonly turns: { readonly turn: TurnState };
  onDidChangeState(listener: () => void): Disposable;
}

export class CheckoutAdmission {
  private rootValue: Promise<string> | undefined;
  /** Lock steps run one after another (a burst of state changes must not race its own writes). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly locks: CheckoutLocks,
    private readonly folder: string,
    private readonly log: Logger,
  ) {}

  /** The checkout's real root (git top level, else the folder's real path), found once. */
  root(): Promise<string> {
    this.rootValue ??= checkoutRoot(this.folder).catch(() => this.folder);
    return this.rootValue;
  }

  /** Take the checkout for a turn of `agent`, or say which other window's agent has it. */
  take(agent: string): Promise<LockAdmission> {
    const verdict = this.queue.then(() => this.takeNow(agent));
    this.queue = verdict.catch(() => undefined);
    return verdict;
  }

  private async takeNow(agent: string): Promise<LockAdmission> {
    const root = await this.root();
    try {
      const verdict = await this.locks.acquire(root, agent, this.folder);
      if (!verdict.open) this.log.info(`${this.folder}: ${verdict.holder.agent} in another window (pid ${verdict.holder.pid}) holds ${root} (${verdict.why})`);
      return verdict;
    } catch (error) {
      // A lock directory that cannot be written must not stop the user's work: said, not enforced.
      this.log.warn(`the checkout lock for ${root} could not be taken: ${(error as Error).message}`);
      return { open: true };
    }
  }

  /** Another live window's turn in this checkout, if any. */
  async check(): Promise<LockAdmission> {
    return this.locks.check(await this.root()).catch((): LockAdmission => ({ open: true }));
  }

  /** Follow `rt`'s turn: unverified marks the lock; the turn's end releases it, and so does the runtime's end. */
  follow(rt: AdmittedRuntime): Disposable {
    // Only an end releases: the lock is taken just before the prompt, while the turn is still idle.
    let busy = false;
    const sync = () => {
      const phase = rt.turns.turn.phase;
      if (phase === 'idle' && !busy) return;
      busy = phase !== 'idle';
      void this.step(async (root) => {
        if (!this.locks.holds(root, this.folder)) return;
        if (phase === 'idle') return this.locks.release(root, this.folder);
        return this.locks.mark(root, phase === 'unverified' ? 'unverified' : 'running', this.folder);
      });
    };
    const listener = rt.onDidChangeState(sync);
    return {
      dispose: () => {
        listener.dispose();
        void this.release();
      },
    };
  }

  /** Let go of the checkout (a prompt that never started a turn, the runtime's end). */
  release(): Promise<void> {
    return this.step((root) => this.locks.release(root, this.folder));
  }

  private step(op: (root: string) => Promise<void>): Promise<void> {
    const next = this.queue.then(async () => op(await this.root()));
    this.queue = next.catch((error: Error) => this.log.warn(`the checkout lock of ${this.folder}: ${error.message}`));
    return this.queue as Promise<void>;
  }
}
