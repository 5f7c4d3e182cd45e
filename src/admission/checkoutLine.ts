// Prompts waiting for another window's turn in this checkout (checkoutLock.ts), as a pure
// function: (state, event) → (state, effects). One line per folder conversation, first in first out:
// only the prompt at the head looks at the lock, and it goes only once the prompt before it has
// ended (its turn settled, or it was refused), so two waiting prompts can never race each other
// for the checkout nor meet each other's turn. A stop gives back every prompt still waiting, in
// the order they were typed; so does a wait that cannot end (the other window's stop unverified).
// No timers, no I/O: checkoutLineController.ts carries out the effects. The panel, the status
// bar and the Stop context key read `lineView` of this state, never a flag kept beside it.

export interface WaitingPrompt {
  readonly id: number;
  readonly text: string;
  /** File URIs attached to it (they go back with the text). */
  readonly files?: readonly string[];
}

export interface LineState {
  /** Oldest first: the order they go in. */
  readonly waiting: readonly WaitingPrompt[];
  /** The prompt that left the line and is being sent or runs as a turn: the next one waits for its end. */
  readonly going?: number;
  /** The other window's agent holding the checkout, as last seen (what the status names). */
  readonly holder?: string;
  readonly lastId: number;
}

export const emptyLine: LineState = { waiting: [], lastId: 0 };

export type LineEvent =
  /** A prompt waits (the user chose to wait for `holder`'s turn, or a line already waits). */
  | { type: 'join'; text: string; files?: readonly string[]; holder?: string }
  /** The head looked: the checkout is still held by `holder`'s running turn. */
  | { type: 'held'; holder: string }
  /** The head looked and took the checkout. */
  | { type: 'taken' }
  /** The prompt that went ended (its turn settled, or it was not sent). */
  | { type: 'ended'; id: number }
  /** Stop (button, Escape, the command, the status bar): nothing waiting goes. */
  | { type: 'stop' }
  /** The wait cannot end by itself (the holder's stop unverified): nothing waiting goes, `why` said. */
  | { type: 'refused'; why: string }
  /** The folder conversation ends. */
  | { type: 'dispose' };

export type DropCause = { kind: 'stopped' } | { kind: 'refused'; why: string } | { kind: 'disposed' };

export type LineEffect =
  /** The prompt goes now: the checkout is this window's. */
  | { kind: 'go'; id: number }
  /** These prompts are not sent: their texts go back to the input box, together, in this order. */
  | { kind: 'drop'; prompts: WaitingPrompt[]; cause: DropCause }
  /** The checkout was taken with nobody left to use it (stopped meanwhile): let it go. */
  | { kind: 'release' };

export interface LineTransition {
  state: LineState;
  effects: LineEffect[];
}

export function transition(state: LineState, event: LineEvent): LineTransition {
  const same = { state, effects: [] };
  switch (event.type) {
    case 'join': {
      const id = state.lastId + 1;
      const prompt: WaitingPrompt = { id, text: event.text, ...(event.files?.length && { files: event.files }) };
      return { state: { ...state, waiting: [...state.waiting, prompt], lastId: id, holder: event.holder ?? state.holder }, effects: [] };
    }
    case 'held':
      return state.waiting.length && state.holder !== event.holder ? { state: { ...state, holder: event.holder }, effects: [] } : same;
    case 'taken': {
      const [head, ...rest] = state.waiting;
      // A look that raced a stop (or the one still going): the checkout is not for anyone waiting.
      if (!head) return { state, effects: [{ kind: 'release' }] };
      if (state.going !== undefined) return same;
      return { state: { ...state, waiting: rest, going: head.id, holder: undefined }, effects: [{ kind: 'go', id: head.id }] };
    }
    case 'ended':
      return state.going === event.id ? { state: { ...state, going: undefined }, effects: [] } : same;
    case 'stop':
    case 'refused':
    case 'dispose': {
      if (!state.waiting.length) return same;
      const cause: DropCause =
        event.type === 'stop' ? { kind: 'stopped' } : event.type === 'refused' ? { kind: 'refused', why: event.why } : { kind: 'disposed' };
      return { state: { ...state, waiting: [], holder: undefined }, effects: [{ kind: 'drop', prompts: [...state.waiting], cause }] };
    }
  }
}

/** The head may look at the lock now: someone waits and nothing before it is still going. */
export function headMayLook(state: LineState): boolean {
  return state.waiting.length > 0 && state.going === undefined;
}

/** A prompt joining now waits in line rather than taking the checkout: it would pass those before it. */
export function mustJoin(state: LineState): boolean {
  return state.waiting.length > 0 || state.going !== undefined;
}

/** What the panel and the status bar show: undefined when nothing waits. */
export interface LineView {
  /** The other window's agent the head waits for; undefined while the prompt before it is still going. */
  holder?: string;
  prompts: { id: number; text: string }[];
}

export function lineView(state: LineState): LineView | undefined {
  if (!state.waiting.length) return undefined;
  return {
    ...(state.going === undefined && state.holder !== undefined && { holder: state.holder }),
    prompts: state.waiting.map(({ id, text }) => ({ id, text })),
  };
}

/** What the transcript says when waiting prompts go back to the input box. */
export function droppedText(prompts: readonly WaitingPrompt[], cause: DropCause, holder: string | undefined): string {
  const yours =
    prompts.length === 1
      ? 'your prompt was not sent; it is back in the input box'
      : `your ${prompts.length} prompts were not sent; they are back in the input box, in the order you sent them`;
  if (cause.kind === 'refused') return `${cause.why} Waiting ended: ${yours}.`;
  const what = holder ? `Stopped waiting for ${holder} in another window` : 'Stopped waiting for the checkout';
  return `${what}: ${yours}.`;
}
