// One running turn per workspace folder, across panels, sessions and agents of the window.
// Folders are compared by path, and a folder nested in another counts as the same checkout:
// an agent in /repo and one in /repo/packages/app would edit the same files.
// The gate keeps no state of its own beside the runtimes: whether a folder is busy is read
// from their turn machines each time, so it can never disagree with them.
import * as path from 'node:path';
import type { Disposable } from '../util/disposable';
import type { RuntimePhase } from '../runtime/agentRuntime';
import type { TurnState } from '../runtime/turnMachine';

/** What the gate reads of a runtime. */
export interface AdmissionMember {
  readonly name: string;
  readonly phase: RuntimePhase;
  readonly turns: { readonly turn: TurnState };
}

export type Admission<M extends AdmissionMember = AdmissionMember> = { open: true } | { open: false; why: 'running' | 'unverified'; holder: M };

export class FolderAdmission<M extends AdmissionMember = AdmissionMember> {
  private readonly members = new Map<M, string>();

  constructor(private readonly parallelAllowed: () => boolean = () => false) {}

  register(folderPath: string, member: M): Disposable {
    this.members.set(member, path.resolve(folderPath));
    return { dispose: () => this.members.delete(member) };
  }

  /**
   * May `candidate` start a turn (or a replacement session) in `folderPath` now? An unverified
   * stop closes the folder whatever the settings say: its agent may still be editing it.
   */
  check(folderPath: string, candidate?: M): Admission<M> {
    const folder = path.resolve(folderPath);
    let running: M | undefined;
    for (const [member, memberFolder] of this.members) {
      if (!overlaps(folder, memberFolder)) continue;
      const phase = member.turns.turn.phase;
      if (phase === 'unverified') return { open: false, why: 'unverified', holder: member };
      if (phase === 'idle' || member === candidate || member.phase !== 'ready') continue;
      running ??= member;
    }
    if (running && !this.parallelAllowed()) return { open: false, why: 'running', holder: running };
    return { open: true };
  }
}

/** The same folder, or one inside the other. */
export function overlaps(a: string, b: string): boolean {
  const inside = (child: string, parent: string) => {
    const rel = path.relative(parent, child);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  return inside(a, b) || inside(b, a);
}
