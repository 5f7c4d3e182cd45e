// The transcript of one folder's conversation as the panel shows it: ACP updates and turn
// events in, TranscriptEntry upserts and text appends out. No `vscode`: the panel host
// forwards what this emits, and a reopened panel gets `entries` as its snapshot.
//
// Every entry object this holds is frozen and never changed once stored or emitted: a change
// (streamed text included) stores a new object. Listeners may keep what they were given (the
// panel host queues it for a frame); an emitted upsert that later grew showed streamed text
// twice, once in the late upsert and again in the appends (issue 7 §4).
import type { ContentBlock, SessionNotification, ToolCallContent } from '@agentclientprotocol/sdk';
import type { FileMark, FileWriteView, TranscriptEntry, ToolStatus } from '../shared/messages';
import { Emitter } from '../util/emitter';

export type TranscriptOp = { type: 'upsert'; entry: TranscriptEntry } | { type: 'append'; id: string; text: string } | { type: 'reset' };

export class Transcript {
  private readonly list: TranscriptEntry[] = [];
  private readonly byId = new Map<string, TranscriptEntry>();
  /** Position in `list` by id (entries are replaced in place, never removed but by clear()). */
  private readonly at = new Map<string, number>();
  private seq = 0;
  /** The entry that streamed text currently continues, by kind (`user`: a replayed message, in chunks). */
  private streaming: { id: string; kind: 'agent' | 'thought' | 'user'; messageId?: string } | undefined;
  /** This turn's "Files written" entry; the next prompt starts a new one. */
  private filesId: string | undefined;

  private readonly _onOp = new Emitter<TranscriptOp>();
  readonly onOp = this._onOp.event;

  get entries(): TranscriptEntry[] {
    return this.list.map((e) => ({ ...e }));
  }

  clear(): void {
    this.list.length = 0;
    this.byId.clear();
    this.at.clear();
    this.streaming = undefined;
    this.filesId = undefined;
    this._onOp.fire({ type: 'reset' });
  }

  upsert(given: TranscriptEntry, keepStreaming = false): void {
    // Our own copy: the caller's object may change after this returns.
    const entry = this.store(given);
    if (entry.kind !== 'agent' && entry.kind !== 'thought' && !keepStreaming) this.streaming = undefined;
    this._onOp.fire({ type: 'upsert', entry });
  }

  get(id: string): TranscriptEntry | undefined {
    return this.byId.get(id);
  }

  user(text: string): void {
    this.filesId = undefined; // a new turn: its writes get their own list
    this.upsert({ kind: 'user', id: this.nextId('u'), text });
  }

  /**
   * One write of the agent's, added to this turn's files entry (created at the first write).
   * Writes to one path make one row: the last size, created if the first write created it.
   * Returns the entry's id, and whether this path is new to it (the caller checks git once).
   */
  fileWritten(row: FileWriteView): { id: string; first: boolean } {
    const current = this.filesId === undefined ? undefined : this.byId.get(this.filesId);
    const id = current?.kind === 'files' ? current.id : (this.filesId = this.nextId('f'));
    const files = current?.kind === 'files' ? current.files : [];
    const before = files.find((f) => f.path === row.path);
    const merged: FileWriteView = before
      ? { path: row.path, bytes: row.bytes, created: before.created, marks: union(before.marks, row.marks) }
      : { ...row, marks: [...row.marks] };
    // A new list interrupts streamed text (like a tool call); a longer one does not.
    this.upsert({ kind: 'files', id, files: before ? files.map((f) => (f === before ? merged : f)) : [...files, merged] }, current !== undefined);
    return { id, first: !before };
  }

  /** Add `mark` to `path` in the files entry `id` (a late finding: git says it is untracked). */
  markFile(id: string, path: string, mark: FileMark): void {
    const entry = this.byId.get(id);
    if (entry?.kind !== 'files') return; // cleared meanwhile (new session)
    const row = entry.files.find((f) => f.path === path);
    if (!row || row.marks.includes(mark)) return;
    const marked = { ...row, marks: [...row.marks, mark] };
    this.upsert({ ...entry, files: entry.files.map((f) => (f === row ? marked : f)) }, true);
  }

  notice(level: 'info' | 'warning' | 'error', text: string, actions?: Extract<TranscriptEntry, { kind: 'notice' }>['actions']): string {
    const id = this.nextId('n');
    this.upsert({ kind: 'notice', id, level, text, actions });
    return id;
  }

  /** Apply one `session/update`. */
  apply(notification: SessionNotification): void {
    const u = notification.update;
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
        return this.stream('agent', contentText(u.content));
      case 'agent_thought_chunk':
        return this.stream('thought', contentText(u.content));
      case 'user_message_chunk':
        return this.userChunk(contentText(u.content), u.messageId ?? undefined);
      case 'tool_call': {
        const previous = this.byId.get(u.toolCallId);
        this.upsert({
          kind: 'tool',
          id: u.toolCallId,
          title: u.title || (previous?.kind === 'tool' ? previous.title : 'Tool call'),
          toolKind: u.kind ?? undefined,
          status: (u.status ?? 'pending') as ToolStatus,
          detail: toolDetail(u.content, u.rawInput) ?? (previous?.kind === 'tool' ? previous.detail : undefined),
        });
        return;
      }
      case 'tool_call_update': {
        const previous = this.byId.get(u.toolCallId);
        const base = previous?.kind === 'tool' ? previous : { kind: 'tool' as const, id: u.toolCallId, title: 'Tool call', status: 'pending' as ToolStatus };
        this.upsert({
          ...base,
          title: u.title ?? base.title,
          toolKind: u.kind ?? base.toolKind,
          status: u.status ?? base.status,
          detail: toolDetail(u.content, u.rawInput) ?? base.detail,
        });
        return;
      }
      case 'plan':
        this.upsert({
          kind: 'plan',
          id: 'plan',
          items: u.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority })),
        });
        return;
      default:
        // usage, modes, commands, config options, session info: not shown in the transcript.
        return;
    }
  }

  /**
   * Show `entries` instead of what is shown now: a saved transcript after a window reload, or
   * the conversation kept across a restart. Each gets an id of this transcript's own, so that a
   * new agent process reusing a tool call id cannot overwrite a card from before.
   */
  restore(entries: readonly TranscriptEntry[]): void {
    this.clear();
    for (const entry of entries) this.upsert({ ...entry, id: this.nextId('h') });
  }

  /** Every tool call that had not finished is shown cancelled (the routine's step 2). */
  markToolsCancelled(): void {
    for (const entry of [...this.list]) {
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
    const open = streaming?.kind === 'user' ? this.byId.get(streaming.id) : undefined;
    const sameMessage = messageId === undefined || streaming?.messageId === undefined || streaming.messageId === messageId;
    if (open?.kind === 'user' && sameMessage) {
      this.upsert({ ...open, text: open.text + text });
      this.streaming = { id: open.id, kind: 'user', messageId: messageId ?? streaming?.messageId };
      return;
    }
    this.filesId = undefined; // a new turn of the conversation: its writes get their own list
    const id = this.nextId('u');
    this.upsert({ kind: 'user', id, text });
    this.streaming = { id, kind: 'user', messageId };
  }

  private stream(kind: 'agent' | 'thought', text: string): void {
    if (!text) return;
    if (this.streaming?.kind === kind && this.byId.has(this.streaming.id)) {
      const entry = this.byId.get(this.streaming.id) as Extract<TranscriptEntry, { kind: 'agent' | 'thought' }>;
      // A new object, never `entry.markdown += text`: `entry` may sit in the panel's outbox.
      this.store({ ...entry, markdown: entry.markdown + text });
      this._onOp.fire({ type: 'append', id: entry.id, text });
      return;
    }
    const id = this.nextId(kind === 'agent' ? 'a' : 't');
    this.upsert({ kind, id, markdown: text });
    this.streaming = { id, kind };
  }

  /** Store a frozen copy of `entry`, replacing the entry with its id in place. */
  private store(given: TranscriptEntry): TranscriptEntry {
    const entry = Object.freeze({ ...given }) as TranscriptEntry;
    const index = this.at.get(entry.id);
    if (index === undefined) {
      this.at.set(entry.id, this.list.length);
      this.list.push(entry);
    } else {
      this.list[index] = entry;
    }
    this.byId.set(entry.id, entry);
    return entry;
  }

  private nextId(prefix: string): string {
    return `${prefix}${++this.seq}`;
  }
}

function union(a: FileMark[], b: FileMark[]): FileMark[] {
  return [...a, ...b.filter((m) => !a.includes(m))];
}

export function contentText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link':
      return `[${block.title ?? block.name}](${block.uri})`;
    case 'resource':
      return 'text' in block.resource ? `\n\`\`\`\n${block.resource.text}\n\`\`\`\n` : `(${block.resource.uri})`;
    case 'image':
      return '*(image)*';
    case 'audio':
      return '*(audio)*';
    default:
      return '';
  }
}

function toolDetail(content: ToolCallContent[] | null | undefined, rawInput: unknown): string | undefined {
  const parts: string[] = [];
  for (const c of content ?? []) {
    if (c.type === 'content') parts.push(contentText(c.content));
    else if (c.type === 'diff') parts.push(`edit ${c.path}`);
    else if (c.type === 'terminal') parts.push(`terminal ${c.terminalId}`);
  }
  if (parts.length > 0) return parts.join('\n').slice(0, 4000);
  if (rawInput && typeof rawInput === 'object' && Object.keys(rawInput).length > 0) {
    return JSON.stringify(rawInput, null, 1).slice(0, 1000);
  }
  return undefined;
}
