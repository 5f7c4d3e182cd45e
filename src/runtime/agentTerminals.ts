// PURE: ACP v2's agent-owned display terminals (migration.mdx, "Agent-owned terminal display").
// The agent runs the command; Reins only shows what it reports: `terminal_update` upserts a
// terminal by `terminalId` (command, cwd, exit status patched: omitted unchanged, null cleared;
// `output` a snapshot that replaces every byte kept), `terminal_output_chunk` appends bytes, each
// chunk base64 on its own, decoded in order (a character split between chunks is held until its
// last byte comes). The card shows the result as the client terminals' output is shown
// (terminalCards.ts): bounded, its tail, as text with the terminal's control sequences taken out.
// Display only: no input, no kill, nothing to release.
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { OutputBuffer, type ExitStatus } from '../acp/clientMethods/outputBuffer';
import type { TerminalView } from '../acp/clientMethods/terminals';

/** Bytes kept per terminal (the card shows the last PANEL_TAIL_BYTES). */
export const AGENT_TERMINAL_BYTES = 64 * 1024;
const PANEL_TAIL_BYTES = 32 * 1024;
/** Terminals kept (the least recently changed go first). */
const KEPT = 100;

interface AgentTerminal {
  buffer: OutputBuffer;
  command?: string;
  exit?: ExitStatus;
}

export class AgentTerminals {
  private readonly terminals = new Map<string, AgentTerminal>();

  /** What `update` changed of a terminal, as a card shows it; undefined for any other update. */
  apply(update: SessionUpdate): TerminalView | undefined {
    const u = update as { sessionUpdate: string; terminalId?: unknown } & Record<string, unknown>;
    if (typeof u.terminalId !== 'string') return undefined;
    if (u.sessionUpdate === 'terminal_output_chunk') {
      if (typeof u.data !== 'string') return undefined;
      const t = this.terminal(u.terminalId);
      t.buffer.write(Buffer.from(u.data, 'base64'));
      return view(u.terminalId, t);
    }
    if (u.sessionUpdate !== 'terminal_update') return undefined;
    const t = this.terminal(u.terminalId);
    if (u.command === null) delete t.command;
    else if (typeof u.command === 'string') t.command = u.command;
    if (u.output === null) t.buffer = new OutputBuffer(AGENT_TERMINAL_BYTES);
    else if (typeof u.output === 'object' && typeof (u.output as { data?: unknown }).data === 'string') {
      // A snapshot: everything kept before is replaced, never merged.
      t.buffer = new OutputBuffer(AGENT_TERMINAL_BYTES);
      t.buffer.write(Buffer.from((u.output as { data: string }).data, 'base64'));
    }
    if (u.exitStatus === null) delete t.exit;
    else if (typeof u.exitStatus === 'object') {
      const s = u.exitStatus as { exitCode?: unknown; signal?: unknown };
      t.exit = { exitCode: typeof s.exitCode === 'number' ? s.exitCode : null, signal: typeof s.signal === 'string' ? s.signal : null };
    }
    return view(u.terminalId, t);
  }

  /** A new session: its terminals are its own. */
  clear(): void {
    this.terminals.clear();
  }

  private terminal(id: string): AgentTerminal {
    const t = this.terminals.get(id) ?? { buffer: new OutputBuffer(AGENT_TERMINAL_BYTES) };
    this.terminals.delete(id); // re-inserted last: the most recently changed stays longest
    this.terminals.set(id, t);
    if (this.terminals.size > KEPT) this.terminals.delete(this.terminals.keys().next().value!);
    return t;
  }
}

function view(terminalId: string, t: AgentTerminal): TerminalView {
  const tail = terminalText(t.buffer.tail(PANEL_TAIL_BYTES));
  return {
    terminalId,
    text: t.command === undefined ? tail : `$ ${t.command}\n${tail}`,
    truncated: t.buffer.truncated || t.buffer.size > PANEL_TAIL_BYTES,
    ...(t.exit && { exitStatus: t.exit }),
  };
}

/* eslint-disable no-control-regex -- the terminal's control sequences are what these take out */
const CSI = /\u001b\[[0-?]*[ -/]*[@-~]/g;
const OSC = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
const ESCAPE = /\u001b[@-Z\\-_]/g;
/** A sequence the next chunk will finish: not shown until then. */
const UNFINISHED = /\u001b(?:\[[0-?]*[ -/]*|\][^\u0007\u001b]*)?$/;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
/* eslint-enable no-control-regex */

/**
 * Terminal output as plain text: colours, cursor moves and titles taken out, a carriage return
 * starting its line again (a progress bar shows its last state), other control characters dropped.
 */
export function terminalText(raw: string): string {
  const stripped = raw.replace(OSC, '').replace(CSI, '').replace(ESCAPE, '').replace(UNFINISHED, '');
  return stripped
    .split('\n')
    .map((line) => {
      const parts = line.replace(/\r+$/, '').split('\r');
      return parts[parts.length - 1]!.replace(CONTROL, ''); // split always gives one part at least
    })
    .join('\n');
}
