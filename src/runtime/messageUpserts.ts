// ACP v2's messages (migration.mdx, "Messages and message IDs"): every message chunk carries
// its `messageId`, and `user_message`, `agent_message` and `agent_thought` upsert a whole
// message by that id. So a changed id starts a new entry (even between two chunks of the same
// kind, which v1 runs together), a chunk of a known id goes on in that id's entry wherever it
// is, and a whole message replaces its entry's text (`null` or `[]` clear it; omitted content
// leaves it): an agent that sends one message again, or corrects it, never shows it twice. The
// prompt's acknowledgement (the `user_message` that gives the typed prompt its id) names the
// prompt's entry, which stays as typed. Only for an agent that speaks v2: v1's chunks are read as
// they always were (transcript.ts). No `vscode`; the feed (transcriptFeed.ts) holds one.
import type { ContentBlock, SessionNotification } from '@agentclientprotocol/sdk';
import { contentText } from './toolContent';
import type { TranscriptEntry } from '../shared/messages';

/** What this needs of the transcript. */
export interface MessageSink {
  /** Apply an update as v1's (a chunk streams on, or starts an entry when nothing streams). */
  apply(notification: SessionNotification): void;
  get(id: string): TranscriptEntry | undefined;
  upsert(entry: TranscriptEntry, keepStreaming?: boolean): void;
  /** The entry streamed text goes on in now. */
  readonly streamingId: string | undefined;
  /** The next streamed text starts an entry of its own. */
  endStream(): void;
}

type Role = 'user' | 'agent' | 'thought';
const KINDS: Record<string, { role: Role; whole: boolean; chunk: string }> = {
  user_message_chunk: { role: 'user', whole: false, chunk: 'user_message_chunk' },
  user_message: { role: 'user', whole: true, chunk: 'user_message_chunk' },
  agent_message_chunk: { role: 'agent', whole: false, chunk: 'agent_message_chunk' },
  agent_message: { role: 'agent', whole: true, chunk: 'agent_message_chunk' },
  agent_thought_chunk: { role: 'thought', whole: false, chunk: 'agent_thought_chunk' },
  agent_thought: { role: 'thought', whole: true, chunk: 'agent_thought_chunk' },
};

/** The update's kind if it is one of v2's message updates (chunk or whole). */
function messageKind(update: { sessionUpdate: string }): { role: Role; whole: boolean; chunk: string } | undefined {
  return Object.hasOwn(KINDS, update.sessionUpdate) ? KINDS[update.sessionUpdate] : undefined;
}

/** A whole message's text: undefined when it leaves the content as it is, '' when it clears it. */
function wholeText(content: unknown): string | undefined {
  if (content === undefined) return undefined;
  return Array.isArray(content) ? content.map((c) => contentText(c as ContentBlock)).join('') : '';
}

export class MessageUpserts {
  /** [sessionId, messageId] → the entry that shows it. */
  private readonly entries = new Map<string, string>();
  /** The running turn's prompt entry, until the agent's acknowledgement names it. */
  private prompt: string | undefined;
  /** Prompt entries an acknowledgement named: its chunks are the prompt's text again, not more of it. */
  private readonly typed = new Set<string>();

  constructor(private readonly sink: MessageSink) {}

  /** A prompt was shown as entry `id`: the next new user message is its acknowledgement. */
  promptShown(id: string): void {
    this.prompt = id;
  }

  /** The turn ended: a user message from now on is not its prompt's. */
  turnEnded(): void {
    this.prompt = undefined;
  }

  /** The transcript was cleared or replaced: no id names an entry any more. */
  reset(): void {
    this.entries.clear();
    this.typed.clear();
    this.prompt = undefined;
  }

  /** Show `n` if it is a v2 message update with an id; false: not one (the caller applies it as usual). */
  take(n: SessionNotification): boolean {
    const u = n.update as { sessionUpdate: string; messageId?: unknown; content?: unknown };
    const kind = messageKind(u);
    if (!kind || typeof u.messageId !== 'string' || u.messageId === '') return false;
    const key = JSON.stringify([n.sessionId, u.messageId]);
    const known = this.entries.get(key);
    const entry = known === undefined ? undefined : this.sink.get(known);
    const text = kind.whole ? wholeText(u.content) : contentText(u.content as ContentBlock);
    if (!entry && kind.role === 'user' && this.prompt !== undefined && this.sink.get(this.prompt)) {
      // The acknowledgement: the prompt's entry gets its id; its text is the prompt as typed.
      this.entries.set(key, this.prompt);
      this.typed.add(this.prompt);
      this.prompt = undefined;
      return true;
    }
    if (entry) {
      if (text === undefined) return true; // a whole message that changes only its metadata
      if (!kind.whole && this.typed.has(entry.id)) return true; // the acknowledgement streamed: the prompt as typed
      if (!kind.whole && this.sink.streamingId === entry.id) return false; // goes on as streamed text does
      const field = entry.kind === 'user' ? 'text' : 'markdown';
      const before = (entry as { text?: string; markdown?: string })[field] ?? '';
      this.sink.upsert({ ...entry, [field]: kind.whole ? text : before + text }, true);
      return true;
    }
    // A new message: an entry of its own, even right after another of its kind.
    if (!text) return true; // nothing to show yet: its first text makes the entry
    this.sink.endStream();
    const chunk = { sessionUpdate: kind.chunk, messageId: u.messageId, content: { type: 'text', text } };
    this.sink.apply({ ...n, update: chunk as SessionNotification['update'] });
    const id = this.sink.streamingId;
    if (id !== undefined) this.entries.set(key, id);
    return true;
  }
}

/** A whole message as one chunk of its text (a stopped turn's late one is shown as its late text is). */
export function asChunk(update: SessionNotification['update']): SessionNotification['update'] {
  const u = update as { sessionUpdate: string; messageId?: unknown; content?: unknown };
  const kind = messageKind(u);
  if (!kind?.whole) return update;
  return { sessionUpdate: kind.chunk, messageId: u.messageId, content: { type: 'text', text: wholeText(u.content) ?? '' } } as SessionNotification['update'];
}
