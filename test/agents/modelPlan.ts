// What the fake model answers, independent of the wire format: the prompt keyword, the plan it
// selects (text, stall or a tool call in whichever tool the agent offered), and the SSE helpers
// every wire writer shares. fakeModel.ts routes a request to a reader and a writer (wire*.ts).
import type * as http from 'node:http';
import { nth, sleep } from '../support/helpers';

/** PLAIN: short text. LONGCMD: shell `sleep 37`. EDIT: write hello.txt. SLOW: 40 chunks 250 ms
 *  apart. STALL: headers, then nothing until the client goes away. */
export type Keyword = 'PLAIN' | 'LONGCMD' | 'EDIT' | 'SLOW' | 'STALL' | 'TOOLRESULT' | 'OTHER';
const KEYWORDS: Keyword[] = ['LONGCMD', 'EDIT', 'SLOW', 'STALL', 'PLAIN'];

export const PLAIN_ANSWER = 'pong from the fake model';
export const DONE_ANSWER = 'done';
export const EDIT_CONTENT = 'hello from the fake model\n';
export const LONG_COMMAND = 'sleep 37';
/** The same command, as agents that block a foreground `sleep N` are asked for it (see shellCall). */
export const GUARDED_LONG_COMMAND = `command ${LONG_COMMAND}`;

export interface PlanOptions {
  slowChunks?: number;
  slowIntervalMs?: number;
}

/** What the reply should do. */
export type Plan =
  { kind: 'text'; chunks: string[]; intervalMs: number } | { kind: 'stall' } | { kind: 'tool'; name: string; args: Record<string, unknown>; freeform?: string };

/** What a reader gets out of a request, whatever its wire format. */
export interface Conversation {
  userTexts: string[];
  lastIsToolResult: boolean;
  tools: string[];
  side: boolean;
}

export const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => (typeof p === 'string' ? p : (p?.text ?? ''))).join('\n') : '';

/** A request the agent makes for itself (a title, a summary, a check), told apart from a turn
 *  by having no tools and an instruction we recognise. */
export const SIDE = /generate a (short )?title|title generator|next_speaker|who should speak next/i;

export function text(s: string, intervalMs: number, chunks = 1): Plan {
  const size = Math.ceil(s.length / chunks);
  const parts: string[] = [];
  for (let i = 0; i < s.length; i += size) parts.push(s.slice(i, i + size));
  return { kind: 'text', chunks: parts, intervalMs };
}

export function pickKeyword(userTexts: string[]): Keyword {
  // The latest user message that carries a keyword: agents add their own user messages
  // (environment context, reminders), which must not hide the prompt's keyword.
  // Within one message, the keyword written last: Claude Code 2.x sends a prompt that follows a
  // stopped turn in the same user message as the stopped prompt ("STALL please" then "PLAIN … tag=st1").
  for (let i = userTexts.length - 1; i >= 0; i--) {
    const t = nth(userTexts, i, 'the user texts');
    const found = KEYWORDS.filter((w) => t.includes(w)).sort((a, b) => t.lastIndexOf(b) - t.lastIndexOf(a));
    if (found[0]) return found[0];
  }
  return 'OTHER';
}

export function planFor(k: Keyword, userTexts: string[], tools: string[], o: PlanOptions): Plan {
  switch (k) {
    case 'TOOLRESULT':
      return text(DONE_ANSWER, 0);
    case 'PLAIN':
    case 'OTHER': {
      // `tag=X` in the prompt is echoed, so a test can tell which prompt an answer belongs to
      // (claude-agent-acp answers one turn behind after a cancel).
      const tag = [...(latestWith(userTexts, k) ?? '').matchAll(/\btag=(\w+)/g)].pop()?.[1];
      return text(tag ? `${PLAIN_ANSWER} tag=${tag}` : PLAIN_ANSWER, 0);
    }
    case 'SLOW': {
      const n = o.slowChunks ?? 40;
      return { kind: 'text', chunks: Array.from({ length: n }, (_, i) => `slow ${i + 1} `), intervalMs: o.slowIntervalMs ?? 250 };
    }
    case 'STALL':
      return { kind: 'stall' };
    case 'LONGCMD':
      return shellCall(tools);
    case 'EDIT': {
      // The prompt may name the absolute path to write, right after the keyword (agents differ
      // on relative paths; gemini's context also lists the folder, `└───hello.txt`).
      const last = latestWith(userTexts, 'EDIT') ?? '';
      const file = /EDIT\s+(\S*hello\.txt)/.exec(last)?.[1] ?? 'hello.txt';
      return editCall(tools, file);
    }
  }
}

/** The latest user text that carries `word` (OTHER: the latest user text). */
function latestWith(userTexts: string[], word: Keyword): string | undefined {
  return word === 'OTHER' ? userTexts[userTexts.length - 1] : [...userTexts].reverse().find((t) => t.includes(word));
}

/** The long shell command, in whichever shell tool the agent offered. */
function shellCall(tools: string[]): Plan {
  if (tools.includes('exec_command')) return { kind: 'tool', name: 'exec_command', args: { cmd: LONG_COMMAND } };
  if (tools.includes('shell_command')) return { kind: 'tool', name: 'shell_command', args: { command: LONG_COMMAND } };
  if (tools.includes('shell')) return { kind: 'tool', name: 'shell', args: { command: ['bash', '-lc', LONG_COMMAND] } };
  // gemini's and Qwen Code's; Qwen Code 0.24 blocks a foreground sleep as Claude Code does (below).
  if (tools.includes('run_shell_command'))
    return { kind: 'tool', name: 'run_shell_command', args: { command: GUARDED_LONG_COMMAND, description: 'wait a while' } };
  // Claude Code (2.x) and Qwen Code (0.24) block a command whose first part is a foreground
  // `sleep N` ("Blocked: standalone sleep 37", telling the model to run it in the background),
  // which would end the turn before any tool runs. Through bash's `command` builtin the same `sleep 37` process runs (its
  // command line is still `sleep 37`), asked for and approved like any other command.
  if (tools.includes('Bash')) return { kind: 'tool', name: 'Bash', args: { command: GUARDED_LONG_COMMAND, description: 'wait a while' } };
  // opencode's and Copilot CLI's `bash` (Copilot's also takes a mode: wait for it here).
  if (tools.includes('bash'))
    return { kind: 'tool', name: 'bash', args: { command: LONG_COMMAND, description: 'wait a while', mode: 'sync', initial_wait: 60 } };
  return text(`no shell tool offered (tools: ${tools.join(',')})`, 0);
}

function editCall(tools: string[], file: string): Plan {
  if (tools.includes('apply_patch')) {
    const patch = `*** Begin Patch\n*** Add File: ${file}\n+${EDIT_CONTENT.trimEnd()}\n*** End Patch\n`;
    return { kind: 'tool', name: 'apply_patch', args: { input: patch }, freeform: patch };
  }
  if (tools.includes('write_file')) return { kind: 'tool', name: 'write_file', args: { file_path: file, content: EDIT_CONTENT } };
  // opencode's `write` takes filePath, pi's takes path; each ignores the other's key.
  if (tools.includes('write')) return { kind: 'tool', name: 'write', args: { filePath: file, path: file, content: EDIT_CONTENT } };
  // Copilot CLI's `create` (a new file; its `edit` replaces a string).
  if (tools.includes('create')) return { kind: 'tool', name: 'create', args: { path: file, file_text: EDIT_CONTENT } };
  if (tools.includes('Write')) return { kind: 'tool', name: 'Write', args: { file_path: file, content: EDIT_CONTENT } };
  return text(`no write tool offered (tools: ${tools.join(',')})`, 0);
}

// ---- helpers the writers share ------------------------------------------------------------

export function sse(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
}

/** Sends `chunks` with a pause between them; stops quietly when the client has gone. */
export async function paced(res: http.ServerResponse, chunks: string[], intervalMs: number, each: (c: string) => void): Promise<boolean> {
  for (let i = 0; i < chunks.length; i++) {
    if (res.destroyed || res.writableEnded) return false;
    if (i > 0 && intervalMs > 0) await sleep(intervalMs);
    if (res.destroyed || res.writableEnded) return false;
    each(nth(chunks, i, 'the chunks'));
  }
  return true;
}
