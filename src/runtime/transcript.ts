// The transcript of one folder's conversation as the panel shows it: ACP updates and turn
// events in, TranscriptEntry upserts and text appends out. No `vscode`: the panel host
// forwards what this emits, and a reopened panel gets `entries` as its snapshot.
//
// Every entry object this holds is frozen and never changed once stored or emitted: a change
// (streamed text included) stores a new object. Listeners may keep what they were given (the
// panel host queues it for a frame); an emitted upsert that later grew showed streamed text
// twice, once in the late upsert and again in the appends.
import type { SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk';
import { EntryList } from './entryList';
import type { EntryFiles } from './entryFiles';
import type { Placement } from './lateUpdates';
import { unshowable, type PendingPermission } from './permissions';
import { permissionAsk, permissionEntry } from './permissionView';
import { renamedEntries, withMark, withWrite } from './fileRows';
import { planItems, stopUnfinished } from './planItems';
import { ToolCards, type CardUpdate } from './toolCards';
import { contentText } from './toolContent';
import type { OutputLog } from './toolOutputs';
import { toolContentChunk } from './v2Updates';
import type { FileMark, FileWriteView, TranscriptEntry } from '../shared/messages';
import { Emitter } from '../util/emitter';

/** `before`: a new entry goes before that one (a stopped turn's late update), not at the end. */
export type TranscriptOp =
  | { type: 'upsert'; entry: TranscriptEntry; before?: string }
  | { type: 'append'; id: string; text: string }
  /** A tool card's text output went on by `text` (only what is new): toolOutputs.ts. */
  | { type: 'output'; id: string; text: string; total: number }
  | { type: 'reset' };

export class Transcript {
  /** The entries by place and id (replaced in place, never removed but by clear()); settled ones of a long conversation on disk. */
  private readonly list: EntryList;
  private seq = 0;
  /** The entry that streamed text currently continues, by kind (`user`: a replayed message, in chunks). */
  private streaming: { id: string; kind: 'agent' | 'thought' | 'user'; messageId?: string } | undefined;
  /** This turn's "Files written" entry; the next prompt starts a new one. */
  private filesId: string | undefined;
  /** This turn's plan: each `plan` update replaces it in place; the next prompt starts a new one. */
  private planId: string | undefined;
  /** The thought being streamed: when its first and last chunks came (its duration). */
  private thinking: { id: string; first: number; last: number } | undefined;
  /** The late entry that late streamed text continues (apart from the running turn's stream). */
  private lateStream: { id: string; kind: 'agent' | 'thought'; turnId: number } | undefined;
  /** Which card shows which agent's tool call, and what an update makes of a card (toolCards.ts). */
  private readonly cards: ToolCards;

  /**
   * `now`: the clock thoughts are timed by; `log`: where each card's whole output goes (Open Full
   * Output); `files`: where settled entries of a long conversation go (its owner disposes it).
   */
  constructor(
    private readonly now: () => number = Date.now,
    log?: OutputLog,
    files?: EntryFiles,
  ) {
    this.list = new EntryList((entry) => this.settled(entry), files);
    this.cards = new ToolCards((id) => this.list.get(id), log);
  }

  private readonly _onOp = new Emitter<TranscriptOp>();
  readonly onOp = this._onOp.event;

  private replayingNow = false;
  private readonly _onReplay = new Emitter<boolean>();
  /** A session/load's replay began (true) or ended (false): a panel shows its end at once, not each update. */
  readonly onReplay = this._onReplay.event;

  /** Whether a session/load is replaying the conversation into this transcript now. */
  get replaying(): boolean {
    return this.replayingNow;
  }

  setReplaying(on: boolean): void {
    if (on === this.replayingNow) return;
    this.replayingNow = on;
    this._onReplay.fire(on);
  }

  get entries(): TranscriptEntry[] {
    return this.list.slice(0).map((e) => ({ ...e }));
  }

  /** How many entries there are, without copying them. */
  get length(): number {
    return this.list.length;
  }

  /** Entries `from` (inclusive) to `to` (exclusive), copied as `entries` copies them: a page of a long transcript. */
  slice(from: number, to?: number): TranscriptEntry[] {
    return this.list.slice(from, to).map((e) => ({ ...e }));
  }

  /** Where the entry with this id is, -1 for none. */
  indexOf(id: string): number {
    return this.list.indexOf(id);
  }

  clear(): void {
    this.list.clear();
    this.streaming = undefined;
    this.filesId = undefined;
    this.planId = undefined;
    this.thinking = undefined;
    this.lateStream = undefined;
    this.cards.clear();
    this._onOp.fire({ type: 'reset' });
  }

  /** `before`: where a new entry goes (an entry's id; the end when unknown or not given). */
  upsert(given: TranscriptEntry, keepStreaming = false, before?: string): void {
    // Our own copy: the caller's object may change after this returns.
    if (this.thinking && given.id !== this.thinking.id && !keepStreaming) this.endThought();
    const place = before === undefined || this.list.has(given.id) ? -1 : this.list.indexOf(before);
    const at = place < 0 ? undefined : place;
    const entry = this.store(given, at);
    if (entry.kind !== 'agent' && entry.kind !== 'thought' && !keepStreaming) this.streaming = undefined;
    this._onOp.fire(at === undefined ? { type: 'upsert', entry } : { type: 'upsert', entry, before });
  }

  get(id: string): TranscriptEntry | undefined {
    return this.list.get(id);
  }

  /** The entry streamed text goes on in now; endStream(): the next starts its own (ACP v2's message ids: messageUpserts.ts). */
  get streamingId(): string | undefined {
    return this.streaming?.id;
  }

  endStream(): void {
    this.streaming = undefined;
  }

  /** A prompt: a new turn begins. Returns its entry's id. */
  user(text: string): string {
    this.filesId = undefined; // a new turn: its writes get their own list
    this.planId = undefined; // and its own plan
    const id = this.nextId('u');
    this.upsert({ kind: 'user', id, text });
    return id;
  }

  /**
   * One write of the agent's, added to this turn's files entry (created at the first write).
   * Writes to one path make one row: the last size, created if the first write created it.
   * Returns the entry's id, and whether this path is new to it (the caller checks git once).
   */
  fileWritten(row: FileWriteView): { id: string; first: boolean } {
    const current = this.filesId === undefined ? undefined : this.list.get(this.filesId);
    const id = current?.kind === 'files' ? current.id : (this.filesId = this.nextId('f'));
    const { files, first } = withWrite(current?.kind === 'files' ? current.files : [], row);
    // A new list interrupts streamed text (like a tool call); a longer one does not.
    this.upsert({ kind: 'files', id, files }, current !== undefined);
    return { id, first };
  }

  /** Add `mark` to `path` in the files entry `id` (a late finding: git says it is untracked). */
  markFile(id: string, path: string, mark: FileMark): void {
    const entry = this.list.get(id);
    if (entry?.kind !== 'files') return; // cleared meanwhile (new session)
    const files = withMark(entry.files, path, mark);
    if (files) this.upsert({ ...entry, files }, true);
  }

  notice(level: 'info' | 'warning' | 'error', text: string, actions?: Extract<TranscriptEntry, { kind: 'notice' }>['actions']): string {
    const id = this.nextId('n');
    this.upsert({ kind: 'notice', id, level, text, actions });
    return id;
  }

  /** Card `id` shows terminal `terminalId`: Open Full Output on the card opens that terminal's whole output too. */
  terminalShown(id: string, terminalId: string): void {
    this.cards.terminalShown(id, terminalId);
  }

  /** A new agent process feeds this transcript: what it names is told apart from what earlier ones named. */
  nextGeneration(): number {
    // Turn ids start again with each agent process, and a session opened is another conversation:
    // an earlier one's late text is never continued.
    this.lateStream = undefined;
    return this.cards.nextGeneration();
  }

  /** The id of the card that agent process `generation` shows tool call `toolCallId` of `sessionId` in, once there is one. */
  cardId(sessionId: string, toolCallId: string, generation = 0): string | undefined {
    return this.cards.cardId(sessionId, toolCallId, generation);
  }

  /**
   * Apply one `session/update`; `placement`: a stopped turn's late one goes to that turn
   * (lateUpdates.ts); `generation`: the agent process it came from (nextGeneration()).
   */
  apply(notification: SessionNotification, placement?: Placement, generation = 0): void {
    const u = notification.update;
    const chunk = toolContentChunk(u); // ACP v2: one more item of a card's content (late: in the stopped turn's card)
    if (chunk) {
      const entry = this.cards.chunkEntry(this.cards.cardFor(generation, notification.sessionId, chunk.toolCallId), chunk.content);
      return placement?.late ? this.upsert({ ...entry, late: true }, placement.before !== undefined, placement.before) : this.showCard(entry);
    }
    if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') {
      // The agent's id, renamed to its card's: only the transcript's ids go further.
      const card = this.cards.cardFor(generation, notification.sessionId, u.toolCallId);
      const named = { ...u, toolCallId: card };
      if (placement?.late) return this.applyLate(named, placement.turnId, placement.before);
      return named.sessionUpdate === 'tool_call' ? this.upsert(this.cards.callEntry(named)) : this.toolUpdate(named);
    }
    if (placement?.late) return this.applyLate(u, placement.turnId, placement.before);
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
        return this.stream('agent', contentText(u.content));
      case 'agent_thought_chunk':
        return this.stream('thought', contentText(u.content));
      case 'user_message_chunk':
        return this.userChunk(contentText(u.content), u.messageId ?? undefined);
      case 'plan': {
        // One checklist per turn, updated in place: an update does not cut streamed text in two.
        const update = this.planId !== undefined && this.list.has(this.planId);
        const id = update ? this.planId! : (this.planId = this.nextId('p'));
        return this.upsert({ kind: 'plan', id, items: planItems(u.entries) }, update);
      }
      default:
        // usage, modes, commands, config options, session info: not shown in the transcript.
        return;
    }
  }

  /**
   * A stopped turn's late update: in that turn's part of the transcript (before `before`, the
   * next turn's prompt, once there is one), labelled late. It never continues the running turn's
   * streamed text, nor does the running turn's text continue it; a tool card it updates stays
   * where it is.
   */
  private applyLate(u: SessionUpdate, turnId: number, before: string | undefined): void {
    // At the end (no turn after it yet), a late entry ends the stream before it.
    const keepStreaming = before !== undefined;
    if (!keepStreaming) this.streaming = undefined;
    if (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk') {
      const kind = u.sessionUpdate === 'agent_message_chunk' ? 'agent' : 'thought';
      const text = contentText(u.content);
      if (!text) return;
      const open = this.lateStream?.kind === kind && this.lateStream.turnId === turnId ? this.list.get(this.lateStream.id) : undefined;
      if (open?.kind === 'agent' || open?.kind === 'thought') {
        this.store({ ...open, markdown: open.markdown + text });
        this._onOp.fire({ type: 'append', id: open.id, text });
        return;
      }
      const id = this.nextId(kind === 'agent' ? 'a' : 't');
      this.upsert({ kind, id, markdown: text, late: true }, keepStreaming, before);
      this.lateStream = { id, kind, turnId };
      return;
    }
    // A new late entry ends the late stream; a card updated where it stands does not.
    const known = 'toolCallId' in u && this.list.has(u.toolCallId);
    if (!known) this.lateStream = undefined;
    if (u.sessionUpdate === 'tool_call') this.upsert({ ...this.cards.callEntry(u), late: true }, keepStreaming, before);
    else if (u.sessionUpdate === 'tool_call_update') this.upsert({ ...this.cards.updateEntry(u), late: true }, keepStreaming, before);
    // Its turn has ended: what the late plan leaves undone is stopped.
    else if (u.sessionUpdate === 'plan')
      this.upsert({ kind: 'plan', id: this.nextId('p'), items: planItems(u.entries, true), late: true }, keepStreaming, before);
  }

  /**
   * A permission request: shown inside the card of the tool call it asks about (of agent process
   * `generation`, in the request's session), made from the request's own tool call when the agent
   * did not announce it first (what is being approved). Returns why it cannot be shown, if it
   * cannot: then nothing was added, and the caller answers it `cancelled` (a request nobody sees
   * would wait for ever).
   */
  permission(p: PendingPermission, generation = 0): string | undefined {
    const cannot = unshowable(p, this.list.has(p.id));
    if (cannot) return cannot;
    const ask = permissionAsk(p.request);
    const call = ask.toolCall;
    const sessionId = p.request.sessionId;
    const toolCallId = call
      ? this.cards.cardFor(generation, sessionId, call.toolCallId)
      : ask.linkedToolCallId === undefined
        ? undefined
        : this.cards.cardId(sessionId, ask.linkedToolCallId, generation);
    if (call && toolCallId !== undefined) this.toolUpdate({ ...call, toolCallId }, true);
    const cardTitle = (this.list.get(toolCallId ?? '') as { title?: string } | undefined)?.title;
    this.upsert(permissionEntry(p, ask, toolCallId, cardTitle));
    return undefined;
  }

  /** Show `entries` instead of what is shown now (a saved transcript, or one kept across a restart), renamed: fileRows.ts. */
  restore(entries: readonly TranscriptEntry[]): void {
    this.clear();
    for (const entry of renamedEntries(entries, () => this.nextId('h'))) this.upsert(entry);
  }

  /**
   * The turn ended without the agent finishing its plan (a confirmed stop, a failure): the items
   * it left pending or in progress are shown stopped (planItems.ts).
   */
  planEnded(): void {
    const plan = this.planId === undefined ? undefined : this.list.get(this.planId);
    if (plan?.kind !== 'plan') return;
    const items = stopUnfinished(plan.items);
    if (items !== plan.items) this.upsert({ ...plan, items }, true);
  }

  /** Every tool call that had not finished is shown cancelled (the routine's step 2). */
  markToolsCancelled(): void {
    // A running tool's card is never on disk (settled()): the entries in memory are enough.
    for (const entry of [...this.list.inMemory()]) {
      if (entry.kind === 'tool' && (entry.status === 'pending' || entry.status === 'in_progress')) {
        this.upsert({ ...entry, status: 'cancelled' });
      }
    }
  }

  /**
   * The user's message as the agent sends it (session/load replays the conversation): chunks of
   * one message make one entry, as streamed agent text does. Never merged into a prompt typed
   * here (`user()` ends the streaming), so an agent that echoes the prompt cannot double it.
   */
  private userChunk(text: string, messageId: string | undefined): void {
    const streaming = this.streaming;
    const open = streaming?.kind === 'user' ? this.list.get(streaming.id) : undefined;
    const sameMessage = messageId === undefined || streaming?.messageId === undefined || streaming.messageId === messageId;
    if (open?.kind === 'user' && sameMessage) {
      this.upsert({ ...open, text: open.text + text });
      this.streaming = { id: open.id, kind: 'user', messageId: messageId ?? streaming?.messageId };
      return;
    }
    this.filesId = undefined; // a new turn of the conversation: its writes get their own list
    this.planId = undefined;
    const id = this.nextId('u');
    this.upsert({ kind: 'user', id, text });
    this.streaming = { id, kind: 'user', messageId };
  }

  private stream(kind: 'agent' | 'thought', text: string): void {
    if (!text) return;
    if (this.streaming?.kind === kind && this.list.has(this.streaming.id)) {
      const entry = this.list.get(this.streaming.id) as Extract<TranscriptEntry, { kind: 'agent' | 'thought' }>;
      if (this.thinking?.id === entry.id) this.thinking.last = this.now();
      // A new object, never `entry.markdown += text`: `entry` may sit in the panel's outbox.
      // Made here and frozen as it is (`fresh`): the hot path of a streaming answer copies once.
      this.store({ ...entry, markdown: entry.markdown + text }, undefined, true);
      this._onOp.fire({ type: 'append', id: entry.id, text });
      return;
    }
    const id = this.nextId(kind === 'agent' ? 'a' : 't');
    this.upsert({ kind, id, markdown: text });
    this.streaming = { id, kind };
    if (kind === 'thought') {
      const at = this.now();
      this.thinking = { id, first: at, last: at };
    }
  }

  /** The thought streamed last is over: it gets its duration (first to last chunk). */
  private endThought(): void {
    const t = this.thinking;
    this.thinking = undefined;
    const entry = t && this.list.get(t.id);
    if (entry?.kind !== 'thought') return;
    this.store({ ...entry, seconds: Math.round((t!.last - t!.first) / 100) / 10 });
    this._onOp.fire({ type: 'upsert', entry: this.list.get(t!.id)! });
  }

  private toolUpdate(u: CardUpdate, keepStreaming = false): void {
    this.showCard(this.cards.updateEntry(u), keepStreaming);
  }

  /** `next`, just built by the cards, in place of its card (only the output's delta when that is all that changed). */
  private showCard(next: Extract<TranscriptEntry, { kind: 'tool' }>, keepStreaming = false): void {
    const before = this.list.get(next.id);
    // Only the output went on (an agent resending it whole, or streaming it): the delta goes to
    // the panel, not the card again. Output of a card must not cut streamed text in two.
    const delta = this.cards.outputDelta(before, next);
    if (delta !== undefined) {
      this.store(next);
      if (delta) this._onOp.fire({ type: 'output', id: next.id, text: delta, total: next.outputChars ?? next.detail?.length ?? 0 });
      return;
    }
    this.upsert(next, keepStreaming);
  }

  /**
   * Store a frozen copy of `entry` (`fresh`: the caller made it for this and keeps no reference:
   * frozen as it is), replacing the entry with its id in place; a new one goes at `at` (default: the end).
   */
  private store(given: TranscriptEntry, at?: number, fresh = false): TranscriptEntry {
    const entry = Object.freeze(fresh ? given : { ...given }) as TranscriptEntry;
    this.list.put(entry, at);
    return entry;
  }

  /** Whether `entry` is done changing, as far as this can tell: what may go to disk (entryList.ts). */
  private settled(entry: TranscriptEntry): boolean {
    const id = entry.id;
    if (id === this.streaming?.id || id === this.thinking?.id || id === this.lateStream?.id || id === this.filesId || id === this.planId) return false;
    return !(entry.kind === 'tool' && (entry.status === 'pending' || entry.status === 'in_progress'));
  }

  /** A new entry id; never one an entry holds (a card may carry the agent's own id, which could be any). */
  private nextId(prefix: string): string {
    let id: string;
    do id = `${prefix}${++this.seq}`;
    while (this.list.has(id));
    return id;
  }
}
