// Permission requests of the running turn: held until the user answers, answered `cancelled`
// by the routine (and when the turn ends), and refused when no turn runs.
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { Deferred } from '../util/deferred';
import { Emitter } from '../util/emitter';

export interface PendingPermission {
  id: string;
  turnId: number;
  request: RequestPermissionRequest;
}

export interface PermissionResolved {
  id: string;
  optionId?: string;
  cancelled: boolean;
  /** The agent withdrew the request itself (`$/cancel_request`); it was answered -32800. */
  withdrawn?: boolean;
  /** Reins could not show it, so answered it `cancelled` at once: why. */
  unshown?: string;
}

/**
 * Requests held so far by any agent of this extension host: a request's id is never one an
 * earlier agent process gave (each holds its own Permissions), so an answer from the panel, or
 * the panel's entry for it, can only be that request's.
 */
let issued = 0;

export class Permissions {
  private readonly pending = new Map<string, { pending: PendingPermission; answer: Deferred<RequestPermissionResponse> }>();

  private readonly _onRequest = new Emitter<PendingPermission>();
  readonly onRequest = this._onRequest.event;
  private readonly _onResolved = new Emitter<PermissionResolved>();
  readonly onResolved = this._onResolved.event;

  get size(): number {
    return this.pending.size;
  }

  list(): PendingPermission[] {
    return [...this.pending.values()].map((p) => p.pending);
  }

  /** Hold a request for `turnId` until it is answered, cancelled, or withdrawn (`signal`). */
  hold(turnId: number, request: RequestPermissionRequest, signal?: AbortSignal): Promise<RequestPermissionResponse> {
    const id = `perm-${++issued}`;
    const pending: PendingPermission = { id, turnId, request };
    const answer = new Deferred<RequestPermissionResponse>();
    this.pending.set(id, { pending, answer });
    this._onRequest.fire(pending);
    // The agent withdrew it ($/cancel_request): the connection has answered -32800; the card closes.
    signal?.addEventListener('abort', () => this.withdraw(id), { once: true });
    return answer.promise;
  }

  private withdraw(id: string): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    entry.answer.resolve({ outcome: { outcome: 'cancelled' } });
    this._onResolved.fire({ id, cancelled: true, withdrawn: true });
  }

  /** Reins cannot show request `id` (`why`): answered `cancelled` now rather than left waiting unseen. */
  refuse(id: string, why: string): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.pending.delete(id);
    entry.answer.resolve({ outcome: { outcome: 'cancelled' } });
    this._onResolved.fire({ id, cancelled: true, unshown: why });
    return true;
  }

  respond(id: string, optionId: string): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.pending.delete(id);
    entry.answer.resolve({ outcome: { outcome: 'selected', optionId } });
    this._onResolved.fire({ id, optionId, cancelled: false });
    return true;
  }

  /** The routine's first step, and a turn's end: nothing stays pending. */
  cancelAll(): void {
    for (const [id, entry] of this.pending) {
      entry.answer.resolve({ outcome: { outcome: 'cancelled' } });
      this._onResolved.fire({ id, cancelled: true });
    }
    this.pending.clear();
  }
}

/**
 * Why permission request `p` cannot be shown in the transcript (undefined: it can): a request
 * with nothing to choose cannot be answered from the panel; an id that an entry holds already
 * (`idTaken`) would put it on that entry instead.
 */
export function unshowable(p: PendingPermission, idTaken: boolean): string | undefined {
  const options = p.request.options as unknown;
  if (!Array.isArray(options) || options.length === 0) return 'it offered no answer to choose';
  const named = (o: unknown) =>
    typeof (o as { optionId?: unknown } | null)?.optionId === 'string' && typeof (o as { name?: unknown } | null)?.name === 'string';
  if (!options.every(named)) return 'one of its answers has no id or no name';
  if (idTaken) return `its id ${p.id} is taken by another entry of the transcript`;
  return undefined;
}
