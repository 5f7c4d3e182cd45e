// Live terminal output in the tool call's card. A tool call whose `content` holds
// `{type: 'terminal', terminalId}` shows that terminal's output as it grows (the runtime's
// TerminalHost reports it at most every 100 ms) and keeps showing it after the terminal is
// released, as the spec asks; ACP v2's agent-owned terminals the same way (agentTerminals.ts). The output may come before the tool call that embeds the
// terminal (agents create the terminal first), so the latest output of each terminal is kept
// until a card asks for it. No `vscode`: the folder conversation wires this between its runtime and
// its transcript.
import type { SessionNotification, ToolCallContent } from '@agentclientprotocol/sdk';
import { AgentTerminals } from './agentTerminals';
import { toolContentChunk } from './v2Updates';
import { describeStatus } from '../acp/clientMethods/outputBuffer';
import type { TerminalView } from '../acp/clientMethods/terminals';
import type { TerminalOutputView, TranscriptEntry } from '../shared/messages';
import type { Disposable } from '../util/disposable';

/** What this needs of the transcript. */
export interface CardSink {
  /** The card (its entry id) that shows the agent's tool call `toolCallId` of `sessionId`. */
  cardId(sessionId: string, toolCallId: string): string | undefined;
  get(id: string): TranscriptEntry | undefined;
  upsert(entry: TranscriptEntry, keepStreaming?: boolean): void;
  /** Card `id` shows terminal `terminalId` (its whole output is the card's: Open Full Output). */
  terminalShown?(id: string, terminalId: string): void;
}

/** What this needs of the runtime. */
export interface TerminalSource {
  readonly session: { onUpdate(listener: (n: SessionNotification) => void): Disposable };
  onTerminalOutput(listener: (view: TerminalView) => void): Disposable;
}

/** Terminals whose latest output is kept for cards (the oldest go first). */
const KEPT = 100;
/** Sessions whose agent-owned terminals are kept (a late update of one just left still finds its own). */
const SESSIONS_KEPT = 4;

export class TerminalCards {
  /** terminalId → the cards (entry ids) that embed it, and the other way: a tool call id may name another card later. */
  private readonly toolsOf = new Map<string, string[]>();
  private readonly terminalsOf = new Map<string, string[]>();
  private readonly latest = new Map<string, TerminalView>();

  constructor(private readonly sink: CardSink) {}

  /** A session/update: links the terminals a tool call embeds to its card. */
  noteUpdate(notification: SessionNotification): void {
    const u = notification.update;
    // ACP v2 streams one content item at a time: a terminal may come in a content chunk.
    const chunk = toolContentChunk(u);
    if (!chunk && u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') return;
    const toolCallId = chunk?.toolCallId ?? (u as { toolCallId: string }).toolCallId;
    const card = this.sink.cardId(notification.sessionId, toolCallId);
    if (card === undefined) return; // not shown
    const content = chunk ? [chunk.content] : ((u as { content?: ToolCallContent[] | null }).content ?? []);
    for (const c of content) {
      if (c.type !== 'terminal' || typeof c.terminalId !== 'string') continue;
      add(this.toolsOf, c.terminalId, card);
      add(this.terminalsOf, card, c.terminalId);
      this.sink.terminalShown?.(card, c.terminalId);
    }
    // The transcript has just rebuilt the card (a tool_call replaces it whole): show the output again.
    if (this.terminalsOf.has(card)) this.refresh(card);
  }

  /** A terminal's output changed. */
  output(view: TerminalView): void {
    this.latest.delete(view.terminalId); // re-inserted last: the most recent stays longest
    this.latest.set(view.terminalId, view);
    if (this.latest.size > KEPT) this.forget(this.latest.keys().next().value!);
    for (const tool of this.toolsOf.get(view.terminalId) ?? []) this.refresh(tool);
  }

  private refresh(card: string): void {
    const entry = this.sink.get(card);
    if (entry?.kind !== 'tool') return; // not shown yet, or cleared (a new session)
    const views = (this.terminalsOf.get(card) ?? []).map((id) => this.latest.get(id)).filter((v): v is TerminalView => v !== undefined);
    if (views.length === 0) return;
    const omittedBytes = views.reduce((sum, v) => sum + (v.omittedBytes ?? 0), 0);
    const terminal: TerminalOutputView = {
      text: views.map((v) => v.text).join('\n'),
      truncated: views.some((v) => v.truncated),
      ...(omittedBytes > 0 && { omittedBytes }),
      ...(views.every((v) => v.exitStatus) && { exited: views.map((v) => describeStatus(v.exitStatus!)).join(', ') }),
    };
    const before = entry.terminal;
    if (
      before &&
      before.text === terminal.text &&
      before.truncated === terminal.truncated &&
      before.omittedBytes === terminal.omittedBytes &&
      before.exited === terminal.exited
    )
      return;
    // Output of an earlier card must not cut the agent's streamed text in two.
    this.sink.upsert({ ...entry, terminal }, true);
  }

  private forget(terminalId: string): void {
    this.latest.delete(terminalId);
    for (const tool of this.toolsOf.get(terminalId) ?? []) {
      const rest = (this.terminalsOf.get(tool) ?? []).filter((t) => t !== terminalId);
      if (rest.length > 0) this.terminalsOf.set(tool, rest);
      else this.terminalsOf.delete(tool);
    }
    this.toolsOf.delete(terminalId);
  }
}

/** Wire `source`'s terminals into `sink`'s tool cards; the returned disposable unwires. */
export function showTerminalOutput(source: TerminalSource, sink: CardSink): Disposable {
  const cards = new TerminalCards(sink);
  // ACP v2's terminals are the agent's own: what it reports of them is shown as the client's are.
  // Their ids are the agent's and belong to one session: a new session (New Session, a load) may
  // name a terminal as an earlier one did, and must not go on from that one's output.
  const agents = new Map<string, AgentTerminals>();
  const subs = [
    source.session.onUpdate((n) => {
      cards.noteUpdate(n);
      let terminals = agents.get(n.sessionId);
      if (!terminals) {
        terminals = new AgentTerminals();
        agents.set(n.sessionId, terminals);
        if (agents.size > SESSIONS_KEPT) agents.delete(agents.keys().next().value!);
      }
      const view = terminals.apply(n.update);
      if (view) cards.output(view);
    }),
    source.onTerminalOutput((v) => cards.output(v)),
  ];
  return { dispose: () => subs.forEach((s) => s.dispose()) };
}

function add(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key) ?? [];
  if (!list.includes(value)) map.set(key, [...list, value]);
}
