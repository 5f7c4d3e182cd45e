// The transcript's tool cards (transcript.ts): which card shows which agent's tool call, and the
// card a `tool_call` or `tool_call_update` makes of the card it finds. Kept apart because a
// card's id and its output follow rules of their own (whose the call is; its output's tail and
// delta, toolOutputs.ts) that the rest of the transcript never needs to know.
import type { ToolCall, ToolCallContent, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { toolCardContent, type ToolCardContent } from './toolContent';
import { ToolOutputs, type OutputLog } from './toolOutputs';
import type { ToolStatus, TranscriptEntry } from '../shared/messages';
import { withoutUndefined } from '../util/withoutUndefined';

type ToolEntry = Extract<TranscriptEntry, { kind: 'tool' }>;
/** A tool call update whose toolCallId is already the card's (the transcript's id, not the agent's). */
export type CardUpdate = Omit<ToolCallUpdate, 'toolCallId'> & { toolCallId: string };

export class ToolCards {
  /**
   * Each tool call's card, by whose it is: the agent process and the session it opened (a
   * generation: the feed takes one per process and per session opened) that named it, the
   * session's id, and its toolCallId. An agent's ids are only its own within one
   * session of one process (a restarted process, a loaded or resumed session and another agent
   * count theirs from the start again), so a card's id is the transcript's: the toolCallId when
   * no entry holds that id yet, another one when one does. A reused toolCallId thus makes a new
   * card and can never reach one from before.
   */
  private readonly cards = new Map<string, string>();
  private generations = 0;
  /** Each card's output: its tail in the card, what an update adds as a delta, the whole in the log. */
  private readonly outputs: ToolOutputs;
  /** The output the last card built took in (toolOutputs.ts): its delta, if it went on from before. */
  private lastOutput: { id: string; delta?: string } | undefined;

  /** `get`: the transcript's entry by id; `log`: where each card's whole output goes (Open Full Output). */
  constructor(
    private readonly get: (id: string) => TranscriptEntry | undefined,
    log?: OutputLog,
  ) {
    this.outputs = new ToolOutputs(log);
  }

  /** The transcript was cleared: no card is known any more (generations go on counting). */
  clear(): void {
    this.cards.clear();
    this.outputs.clear();
  }

  /** A new agent process feeds the transcript: what it names is told apart from what earlier ones named. */
  nextGeneration(): number {
    return ++this.generations;
  }

  /** The id of the card that agent process `generation` shows tool call `toolCallId` of `sessionId` in, once there is one. */
  cardId(sessionId: string, toolCallId: string, generation = 0): string | undefined {
    return this.cards.get(cardKey(generation, sessionId, toolCallId));
  }

  /** The card's id for that tool call: the one it has, else a new one that no entry holds. */
  cardFor(generation: number, sessionId: string, toolCallId: string): string {
    const key = cardKey(generation, sessionId, toolCallId);
    const known = this.cards.get(key);
    if (known !== undefined) return known;
    const named = String(toolCallId);
    let id = named;
    for (let n = 2; this.get(id) !== undefined; n++) id = `${named}~${n}`;
    this.cards.set(key, id);
    return id;
  }

  /** Card `id` shows terminal `terminalId`: Open Full Output on the card opens that terminal's whole output too. */
  terminalShown(id: string, terminalId: string): void {
    this.outputs.terminalShown(id, terminalId);
  }

  /**
   * The output `next` (just built by callEntry or updateEntry) added, when that is all that
   * changed since `before`: then only this delta goes to the panel, not the card again.
   * Undefined: the card changed otherwise, or its output did not go on from before.
   */
  outputDelta(before: TranscriptEntry | undefined, next: ToolEntry): string | undefined {
    const delta = this.lastOutput?.id === next.id ? this.lastOutput.delta : undefined;
    return delta !== undefined && before?.kind === 'tool' && sameButOutput(before, next) ? delta : undefined;
  }

  /** A `tool_call`: the card it announces (what an earlier announcement showed is kept where it says nothing). */
  callEntry(u: ToolCall): ToolEntry {
    const previous = this.get(u.toolCallId);
    const before = previous?.kind === 'tool' ? previous : undefined;
    const card = toolCardContent(u.content, u.locations, u.rawInput);
    return withoutUndefined({
      kind: 'tool',
      id: u.toolCallId,
      title: u.title || (before?.title ?? 'Tool call'),
      toolKind: u.kind ?? undefined,
      status: u.status ?? 'pending',
      ...this.detailOf(u.toolCallId, card, before),
      diffs: card.diffs ?? before?.diffs,
      locations: card.locations ?? before?.locations,
    });
  }

  /** A `tool_call_update`: its card with what the update says changed. */
  updateEntry(u: CardUpdate): ToolEntry {
    const previous = this.get(u.toolCallId);
    const base = previous?.kind === 'tool' ? previous : { kind: 'tool' as const, id: u.toolCallId, title: 'Tool call', status: 'pending' as ToolStatus };
    const card = toolCardContent(u.content, u.locations, u.rawInput);
    return withoutUndefined({
      ...base,
      title: u.title ?? base.title,
      toolKind: u.kind ?? base.toolKind,
      status: u.status ?? base.status,
      ...this.detailOf(u.toolCallId, card, previous?.kind === 'tool' ? previous : undefined),
      diffs: card.diffs ?? base.diffs,
      locations: card.locations ?? base.locations,
    });
  }

  /**
   * ACP v2's `tool_call_content_chunk` for card `id`: one content item appended (text to the
   * output, a diff to the diffs, a diff's changed files to the links); the rest stays as it was.
   */
  chunkEntry(id: string, item: ToolCallContent): ToolEntry {
    const previous = this.get(id);
    const before = previous?.kind === 'tool' ? previous : undefined;
    const base = before ?? { kind: 'tool' as const, id, title: 'Tool call', status: 'pending' as ToolStatus };
    const card = toolCardContent([item], undefined, undefined);
    this.lastOutput = undefined;
    let output: Pick<ToolEntry, 'detail' | 'outputChars'> = {};
    if (card.output !== undefined) {
      const taken = this.outputs.append(id, card.output, before?.detail);
      this.lastOutput = { id, delta: taken.delta };
      output = { detail: taken.tail, outputChars: taken.total > taken.tail.length ? taken.total : undefined };
    }
    return withoutUndefined({
      ...base,
      ...output,
      diffs: card.diffs ? [...(base.diffs ?? []), ...card.diffs] : base.diffs,
      locations: card.locations ? [...(base.locations ?? []), ...card.locations] : base.locations,
    });
  }

  /** The card's detail: its output's tail (with the whole's length when that is more), else what it was asked. */
  private detailOf(id: string, card: ToolCardContent, before: ToolEntry | undefined): Pick<ToolEntry, 'detail' | 'outputChars'> {
    this.lastOutput = undefined;
    if (card.output === undefined) return { detail: card.detail ?? before?.detail, outputChars: card.detail === undefined ? before?.outputChars : undefined };
    const taken = this.outputs.take(id, card.output);
    this.lastOutput = { id, delta: taken.delta };
    return { detail: taken.tail, outputChars: taken.total > taken.tail.length ? taken.total : undefined };
  }
}

function cardKey(generation: number, sessionId: string, toolCallId: string): string {
  return JSON.stringify([generation, sessionId, toolCallId]);
}

/** The two cards differ in their output only (what `output` ops carry). */
function sameButOutput(a: ToolEntry, b: ToolEntry): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof ToolEntry)[]);
  for (const key of keys) if (key !== 'detail' && key !== 'outputChars' && a[key] !== b[key]) return false;
  return true;
}
