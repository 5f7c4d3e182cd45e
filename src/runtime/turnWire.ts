// A turn's traffic with the agent: what the machine's effects put on the wire (the prompt, the
// cancel) and what the agent sends that concerns the turn (idle signals, `state_update`, tool
// calls against the cap, permission requests), each turned into the machine's event. The turn
// controller (turnController.ts) runs the machine and its timers; this is its line to the agent.
import type { ContentBlock, RequestPermissionRequest, RequestPermissionResponse, SessionNotification } from '@agentclientprotocol/sdk';
import type { LeftoverWatch } from './leftovers';
import type { Permissions } from './permissions';
import { permissionAsk } from './permissionView';
import { answeredEvent, rejectedEvent } from './promptAnswer';
import type { PromptQueue } from './promptQueue';
import { agentState, StateFence, type AgentState } from './stateUpdate';
import type { MachineEvent, MachineState } from './turnMachine';
import type { TurnPort } from './turnPort';

/** What the wire needs of the controller it belongs to. */
export interface WireHost {
  readonly port: TurnPort;
  machine(): MachineState;
  dispatch(event: MachineEvent): void;
  readonly leftovers: LeftoverWatch;
  readonly waiting: PromptQueue;
  readonly permissions: Permissions;
  /** The turn before ended stopped: the next answer may be one turn behind (outOfStep.ts). */
  lastTurnStopped(): boolean;
}

export class TurnWire {
  /** Counters the tests and the log read: what was actually put on the wire. */
  readonly sent = { prompts: 0, cancels: 0 };
  /** Step 2 just answered permissions: step 3's cancel goes once those answers are written. */
  private answersInFlight = false;
  private turnToolIds = new Set<string>();
  /** Which turn the agent's `state_update`s speak for (stateUpdate.ts). */
  private readonly stateFence = new StateFence();

  constructor(private readonly host: WireHost) {}

  /** A new turn: its tool calls are counted from none. */
  beginTurn(): void {
    this.turnToolIds = new Set();
  }

  /** The routine's step 2 answered the turn's permissions (if it had any): the cancel waits for those answers. */
  permissionsAnswered(any: boolean): void {
    this.answersInFlight = any;
  }

  sendPrompt(turnId: number, prompt: ContentBlock[]): void {
    const { port } = this.host;
    const { conn, sessionId } = port.link();
    if (!conn || !sessionId || conn.isClosed) {
      this.host.dispatch({ kind: 'failed', turnId, message: 'the agent is not connected', at: Date.now() });
      return;
    }
    this.sent.prompts++;
    conn.prompt({ sessionId, prompt }).then(
      (response) => {
        // ACP v2: the answer only says the prompt was taken in; `state_update` idle ends the turn.
        if (this.v2) return port.log.debug(`agent ${port.name} accepted turn ${turnId}'s prompt (ACP v2)`);
        const event = answeredEvent(turnId, response, this.host.lastTurnStopped());
        if (event.outOfStep)
          port.log.warn(`agent ${port.name} answered turn ${turnId} with end_turn and zero usage right after a stopped turn: it is one turn behind`);
        this.host.dispatch(event);
      },
      (error: unknown) => {
        const event = rejectedEvent(turnId, error, port.quirks);
        // goose's busy error names its steering method: learned for this agent.
        if (event?.kind === 'busyRejected') this.host.waiting.noteBusyError(event.message);
        if (event?.kind === 'busyRejected') port.log.info(`agent ${port.name} is busy with an earlier run (${event.message}); cancelling it and retrying`);
        if (event) this.host.dispatch(event);
      },
    );
  }

  sendCancel(why: string): void {
    if (this.answersInFlight) {
      // The permission answers of step 2 are written when their promises settle (microtasks);
      // the cancel waits for them, so the agent reads them first (gemini and qwen never answer
      // the prompt while a permission is open).
      this.answersInFlight = false;
      setImmediate(() => this.sendCancel(why));
      return;
    }
    const { port } = this.host;
    const { conn, sessionId } = port.link();
    if (!conn || !sessionId || conn.isClosed) {
      port.log.debug(`session/cancel (${why}) not sent: the connection is closed`);
      return;
    }
    this.sent.cancels++;
    conn.cancel({ sessionId }).catch((error: Error) => port.log.debug(`session/cancel (${why}) failed: ${error.message}`));
  }

  // ---- what the agent sends, as far as the turn is concerned ---------------------------------

  /** An update for the current session: idle signals, what the turn shows, its tools, the cap. */
  noteUpdate(notification: SessionNotification): void {
    const { port } = this.host;
    this.host.waiting.noteUpdate(notification);
    if (port.quirks.isIdleSignal(notification)) this.host.dispatch({ kind: 'idleSignal', at: Date.now() });
    const state = agentState(notification);
    if (state) this.noteState(state);
    const update = notification.update;
    const turn = this.host.machine().turn;
    if ((update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') && turn.phase !== 'idle') {
      this.host.leftovers.noteTool(update.toolCallId, update.title, update.rawInput, Date.now());
    }
    // ACP v2 has no tool_call: the first update of an id creates the call (the cap counts it).
    const creates = update.sessionUpdate === 'tool_call' || (update.sessionUpdate === 'tool_call_update' && this.v2);
    if (creates && turn.phase === 'running' && !this.turnToolIds.has(update.toolCallId)) {
      this.turnToolIds.add(update.toolCallId);
      this.host.dispatch({ kind: 'toolCall', turnId: turn.turnId, count: this.turnToolIds.size, at: Date.now() });
      const now = this.host.machine().turn;
      if (now.phase === 'stopping' && now.stop.cause === 'tool-cap') {
        port.log.info(`turn ${turn.turnId}: tool call ${this.turnToolIds.size} exceeds the cap of ${port.settings().maxToolCallsPerTurn}; stopping`);
      }
    }
  }

  private get v2(): boolean {
    return (this.host.port.protocolVersion?.() ?? 1) >= 2;
  }

  /**
   * A `state_update` (ACP v2, or sent under v1). `idle` is evidence for a stopped turn, and under
   * v2 the end of a running one, only when `running` was reported for that turn: an idle that
   * comes before (the earlier turn's, late) is never taken for the next turn.
   */
  private noteState(state: AgentState): void {
    const { port } = this.host;
    const turn = this.host.machine().turn;
    const current = turn.phase === 'idle' ? undefined : turn.turnId;
    if (state.state !== 'idle') {
      if (current !== undefined) this.stateFence.working(current);
      return;
    }
    const turnId = this.stateFence.idleFor(current);
    if (turnId === undefined) {
      if (current !== undefined)
        port.log.info(`agent ${port.name}: an idle state_update before turn ${current} was reported running: not taken for it (a late one)`);
      return;
    }
    const at = Date.now();
    if (turn.phase === 'running' && this.v2) this.host.dispatch({ kind: 'answered', turnId, stopReason: state.stopReason ?? 'end_turn', at });
    else this.host.dispatch({ kind: 'idleSignal', turnId, at });
  }

  /** A permission request: held for the running turn, refused otherwise. */
  holdPermission(request: RequestPermissionRequest, signal?: AbortSignal): Promise<RequestPermissionResponse> {
    const { port } = this.host;
    const turn = this.host.machine().turn;
    // Outside a running turn (or once it is stopping) nobody may approve anything.
    if (request.sessionId !== port.link().sessionId || turn.phase !== 'running') {
      port.log.info(`answered a permission request cancelled: no running turn (${turn.phase})`);
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    }
    // gemini shows a tool first inside its permission request: the command is there.
    const tool = permissionAsk(request).toolCall;
    if (tool) this.host.leftovers.noteTool(tool.toolCallId, tool.title, tool.rawInput, Date.now());
    return this.host.permissions.hold(turn.turnId, request, signal);
  }
}
