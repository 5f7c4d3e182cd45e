// One running turn per workspace folder, across panels, sessions and agents of the window.
// The gate keeps no state of its own beside the runtimes: whether a folder is busy is read
// from their turn machines each time, so it can never disagree with them.
import type { AgentRuntime } from './agentRuntime';
import type { Disposable } from '../util/disposable';

export type GateVerdict =
  | { open: true }
  | { open: false; why: 'running' | 'unverified'; holder: AgentRuntime };

export class FolderGate {
  private readonly byFolder = new Map<string, Set<AgentRuntime>>();

  constructor(private readonly parallelAllowed: () => boolean = () => false) {}

  register(folder: string, runtime: AgentRuntime): Disposable {
    let set = this.byFolder.get(folder);
    if (!set) this.byFolder.set(folder, (set = new Set()));
    set.add(runtime);
    return {
      dispose: () => {
        set!.delete(runtime);
        if (set!.size === 0) this.byFolder.delete(folder);
      },
    };
  }

  /**
   * May `candidate` start a turn (or a replacement session) in `folder` now? An unverified
   * stop closes the folder whatever the settings say: its agent may still be editing it.
   */
  check(folder: string, candidate?: AgentRuntime): GateVerdict {
    for (const runtime of this.byFolder.get(folder) ?? []) {
      const phase = runtime.turn.phase;
      if (phase === 'unverified') return { open: false, why: 'unverified', holder: runtime };
      if (phase === 'idle' || runtime === candidate) continue;
      if (runtime.phase !== 'ready') continue; // a dead agent holds nothing
      if (!this.parallelAllowed()) return { open: false, why: 'running', holder: runtime };
    }
    return { open: true };
  }

  runtimes(folder: string): AgentRuntime[] {
    return [...(this.byFolder.get(folder) ?? [])];
  }
}
