// Elicitations the agent is waiting on (ACP elicitation/create), held beside the turn's
// permissions: until the user submits, declines or dismisses, the agent withdraws one
// ($/cancel_request: answered -32800 by the connection), or something ends it. Like a permission,
// a pending one is answered `cancel` by the routine's first step, before session/cancel goes
// out, and by a turn's end, the agent's exit, a closed panel; nothing is left waiting unseen.
// A URL-mode one that the user accepted stays known by its elicitationId until the agent's
// elicitation/complete (or the turn's end) closes it.
import type { ElicitationAction, ElicitationAnswer, ElicitationRequest } from '../acp/elicitationParams';
import { checkForm, type FormInput } from '../shared/elicitationForm';
import { Deferred } from '../util/deferred';
import { Emitter } from '../util/emitter';

export interface PendingElicitation {
  id: string;
  /** The running turn it was asked in; undefined for a request-scoped one (outside any session's turn). */
  turnId?: number;
  request: ElicitationRequest;
}

export interface ElicitationResolved {
  id: string;
  action: ElicitationAction;
  /** The agent withdrew it ($/cancel_request); it was answered -32800. */
  withdrawn?: boolean;
  /** Reins could not show it, so answered it `cancel` at once: why. */
  unshown?: string;
}

/** What answering from the panel did: `refused` names the fields whose input the schema does not allow. */
export type RespondResult = { ok: true } | { ok: false; why: string; errors?: Record<string, string> };

/**
 * What to open in the browser once the user answered `action`: the agent's URL only when the
 * user consented to it (accept); nothing for a decline, a dismissal or a form.
 */
export function urlToOpen(request: ElicitationRequest, action: ElicitationAction): string | undefined {
  return request.mode === 'url' && action === 'accept' ? request.url : undefined;
}

/** Ids are never reused within an extension host, so an answer can only be for its own request. */
let issued = 0;

export class Elicitations {
  private readonly pending = new Map<string, { pending: PendingElicitation; answer: Deferred<ElicitationAnswer> }>();
  /** Accepted URL elicitations by the agent's elicitationId → our id, until elicitation/complete. */
  private readonly opened = new Map<string, string>();

  private readonly _onRequest = new Emitter<PendingElicitation>();
  readonly onRequest = this._onRequest.event;
  private readonly _onResolved = new Emitter<ElicitationResolved>();
  readonly onResolved = this._onResolved.event;
  /** A URL elicitation the user opened was completed by the agent (our id). */
  private readonly _onCompleted = new Emitter<string>();
  readonly onCompleted = this._onCompleted.event;

  get size(): number {
    return this.pending.size;
  }

  list(): PendingElicitation[] {
    return [...this.pending.values()].map((p) => p.pending);
  }

  get(id: string): PendingElicitation | undefined {
    return this.pending.get(id)?.pending;
  }

  /** Hold a request until it is answered, cancelled, or withdrawn (`signal`). */
  hold(turnId: number | undefined, request: ElicitationRequest, signal?: AbortSignal): Promise<ElicitationAnswer> {
    const id = `elicit-${++issued}`;
    const pending: PendingElicitation = turnId === undefined ? { id, request } : { id, turnId, request };
    const answer = new Deferred<ElicitationAnswer>();
    this.pending.set(id, { pending, answer });
    this._onRequest.fire(pending);
    signal?.addEventListener('abort', () => this.settle(id, { action: 'cancel' }, { withdrawn: true }), { once: true });
    return answer.promise;
  }

  /**
   * The user's answer to `id`. `accept` of a form is checked against its schema first (the
   * webview checks too; this is what the agent gets), and sent with the schema's types.
   */
  respond(id: string, action: ElicitationAction, input?: FormInput): RespondResult {
    const entry = this.pending.get(id);
    if (!entry) return { ok: false, why: 'no such elicitation waits' };
    const { request } = entry.pending;
    if (action !== 'accept') return this.settle(id, { action });
    if (request.mode === 'url') {
      this.opened.set(request.elicitationId, id);
      return this.settle(id, { action: 'accept' });
    }
    const checked = checkForm(request.form, input ?? {});
    if (!checked.ok) return { ok: false, why: 'the form has invalid input', errors: checked.errors };
    return this.settle(id, { action: 'accept', content: checked.content });
  }

  /** Reins cannot show request `id` (`why`): answered `cancel` now rather than left waiting unseen. */
  refuse(id: string, why: string): boolean {
    return this.settle(id, { action: 'cancel' }, { unshown: why }).ok;
  }

  /**
   * elicitation/complete: the URL elicitation is done. One the user opened is marked so; one
   * still waiting for the user's consent is closed (answered `cancel`: the user consented to
   * nothing). Unknown or repeated ids: ignored (false).
   */
  complete(elicitationId: string): boolean {
    const waiting = this.list().find((p) => p.request.mode === 'url' && p.request.elicitationId === elicitationId);
    if (waiting) this.settle(waiting.id, { action: 'cancel' });
    const id = waiting?.id ?? this.opened.get(elicitationId);
    if (id === undefined) return false;
    this.opened.delete(elicitationId);
    this._onCompleted.fire(id);
    return true;
  }

  /**
   * Answer `cancel` to every pending one (of turn `turnId` only, when given: request-scoped
   * ones outlive a turn). The routine's first step, a turn's end, the agent's exit, a closed panel.
   */
  cancelAll(turnId?: number): number {
    let n = 0;
    for (const { pending } of [...this.pending.values()]) {
      if (turnId !== undefined && pending.turnId !== turnId) continue;
      if (this.settle(pending.id, { action: 'cancel' }).ok) n++;
    }
    return n;
  }

  /** The agent is gone or its session replaced: nothing it opened can complete any more. */
  forgetOpened(): void {
    this.opened.clear();
  }

  private settle(id: string, answer: ElicitationAnswer, how: { withdrawn?: boolean; unshown?: string } = {}): RespondResult {
    const entry = this.pending.get(id);
    if (!entry) return { ok: false, why: 'no such elicitation waits' };
    this.pending.delete(id);
    entry.answer.resolve(answer);
    this._onResolved.fire({ id, action: answer.action, ...how });
    return { ok: true };
  }
}
