// What the agent asks the user during a turn: its permission requests (permissions.ts) and its
// elicitations (elicitations.ts). The turn controller (turnController.ts) holds both here, so
// that each step that answers them (the routine's step 2, a turn's end, the agent's exit)
// answers both the same way, and the panel hears of each one held or answered.
import type { ElicitationAnswer, ElicitationRequest } from '../acp/elicitationParams';
import { Elicitations } from './elicitations';
import { Permissions } from './permissions';
import type { TurnState } from './turnMachine';
import type { TurnPort } from './turnPort';

export class AgentAsks {
  readonly permissions = new Permissions();
  /** Answered `cancel` with the permissions, by the same steps. */
  readonly elicitations = new Elicitations();

  /** `turn`: the machine's turn now; `changed`: a request was held or answered (the panel says "Waiting for you"). */
  constructor(
    private readonly port: Pick<TurnPort, 'name' | 'log' | 'link'>,
    private readonly turn: () => TurnState,
    changed: () => void,
  ) {
    this.permissions.onRequest(changed);
    this.permissions.onResolved(changed);
    this.elicitations.onRequest(changed);
    this.elicitations.onResolved(changed);
  }

  /**
   * What the running turn waits on the user for, if anything: a permission request, or an
   * elicitation. A request-scoped elicitation asked while no turn runs is no turn waiting: it is in
   * the transcript (outsideSession), and the surfaces that read this (the busy line, the status
   * bar, sendPrompt's not-sent reason) each speak of a running turn.
   */
  get waitingOn(): 'permission' | 'elicitation' | undefined {
    if (this.turn().phase !== 'running') return undefined;
    return this.permissions.size > 0 ? 'permission' : this.elicitations.size > 0 ? 'elicitation' : undefined;
  }

  /** Permission request `id` cannot be shown (`why`): answered `cancelled` at once, and logged. */
  refusePermission(id: string, why: string): boolean {
    const refused = this.permissions.refuse(id, why);
    if (refused) this.port.log.warn(`agent ${this.port.name}: answered permission request ${id} cancelled: Reins cannot show it (${why})`);
    return refused;
  }

  /**
   * An elicitation: a session-scoped one is held for the running turn of that session and
   * answered `cancel` otherwise (nobody is there to be asked for it); a request-scoped one
   * (outside any session) is held whatever the turn does.
   */
  holdElicitation(request: ElicitationRequest, signal?: AbortSignal): Promise<ElicitationAnswer> {
    if ('requestId' in request.scope) return this.elicitations.hold(undefined, request, signal);
    const turn = this.turn();
    if (request.scope.sessionId !== this.port.link().sessionId || turn.phase !== 'running') {
      this.port.log.info(`answered an elicitation cancel: no running turn in its session (${turn.phase})`);
      return Promise.resolve({ action: 'cancel' });
    }
    return this.elicitations.hold(turn.turnId, request, signal);
  }

  /** Some request waits for the user's answer. */
  get pending(): boolean {
    return this.permissions.size > 0 || this.elicitations.size > 0;
  }

  /** What is asked of the user now, whatever the turn's phase (a stop reads it as it cancels them). */
  get asked(): 'permission' | 'elicitation' | undefined {
    return this.permissions.size > 0 ? 'permission' : this.elicitations.size > 0 ? 'elicitation' : undefined;
  }

  /**
   * The routine's step 2: every request answered cancelled, elicitations too, request-scoped
   * ones included (the user asked for the agent to go quiet).
   */
  cancelAll(): void {
    this.elicitations.cancelAll();
    this.permissions.cancelAll();
  }

  /** Turn `turnId` ended: what it asked can no longer be answered usefully. */
  turnEnded(turnId: number): void {
    if (this.permissions.size > 0) this.permissions.cancelAll();
    this.elicitations.cancelAll(turnId);
  }

  /** The agent is gone: nothing it asked stays pending, nor any URL it had opened. */
  agentExited(): void {
    this.permissions.cancelAll();
    this.elicitations.cancelAll();
    this.elicitations.forgetOpened();
  }
}
