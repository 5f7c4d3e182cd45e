// The recorded long session of group `long` (longReplay.ts), deterministic: what a coding agent
// sends over four hours, as session/update notifications the scripted agent replays on
// session/load (src/demoAgent/sessions.ts reads them from its JSON-lines file). One turn is 400
// updates and about 100 KB of text: the user's question, a thought in 20 chunks, an answer in
// 185 chunks, four tool calls (a read with the file's text, an edit with its diff, a command with
// its terminal output, a search), and a second answer in 184 chunks. 500 turns: 200,000 updates,
// 2,000 tool calls, about 50 MB.
import { writeFileSync, appendFileSync } from 'node:fs';

/** Updates in one turn: 1 + 20 + 185 + 10 + 184. */
const UPDATES_PER_TURN = 400;

/** The marker the last answer of turn `i` ends with: the bench waits for it in the panel. */
export const endMarker = (i: number) => `End of turn ${i}.`;

type Update = Record<string, unknown>;

const words = ['parser', 'offset', 'slice', 'buffer', 'reader', 'token', 'line', 'frame', 'stream', 'queue', 'window', 'width', 'index', 'state'];
const word = (n: number) => words[n % words.length]!;

/** `n` chunks of about 110 characters of Markdown: prose, with a code block every 40 chunks. */
function answerChunks(turn: number, n: number, first: string, last: string): string[] {
  const out = [first];
  for (let k = 1; k < n - 1; k++) {
    if (k % 40 === 10) out.push(`\n\n\`\`\`ts\nexport function ${word(k)}${turn}_${k}(input: string): number {\n  return input.length * ${k};\n}\n\`\`\`\n\n`);
    else if (k % 12 === 0) out.push(`\n\nThe ${word(k + turn)} of step ${k} keeps the **${word(k)}** and the \`${word(k + 1)}\` apart, `);
    else out.push(`so that the ${word(k + turn * 3)} never holds the ${word(k * 7)} while part ${turn}.${k} reads the next one; `);
  }
  out.push(last);
  return out;
}

function fileText(turn: number, lines: number): string {
  let s = '';
  for (let l = 0; l < lines; l++) s += `  const ${word(l)}${l} = read${turn}(${l}, '${word(l + turn)}'); // line ${l}\n`;
  return s;
}

const chunk = (kind: string, text: string): Update => ({ sessionUpdate: kind, content: { type: 'text', text } });

/** The updates of turn `i`, in the order the agent sent them. */
function turnUpdates(i: number): Update[] {
  const u: Update[] = [chunk('user_message_chunk', `Question ${i}: how does part ${i} of the parser handle a long line, and can you fix the ${word(i)} case?`)];
  for (let k = 0; k < 20; k++) u.push(chunk('agent_thought_chunk', `Thinking about the ${word(k + i)} in part ${i}, step ${k}: the reader keeps its offset. `));
  for (const t of answerChunks(i, 185, `Answer ${i}: `, 'Let me look at the files.\n')) u.push(chunk('agent_message_chunk', t));
  const file = `src/part${i}.ts`;
  const before = fileText(i, 80); // about 5 KB
  const after = before.replace(/line (\d)\n/g, 'line $1 (fixed)\n');
  u.push(
    { sessionUpdate: 'tool_call', toolCallId: `read-${i}`, title: `Read ${file}`, kind: 'read', status: 'pending', locations: [{ path: `/ws/${file}` }] },
    {
      sessionUpdate: 'tool_call_update',
      toolCallId: `read-${i}`,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: before } }],
    },
    { sessionUpdate: 'tool_call', toolCallId: `edit-${i}`, title: `Edit ${file}`, kind: 'edit', status: 'pending' },
    {
      sessionUpdate: 'tool_call_update',
      toolCallId: `edit-${i}`,
      status: 'completed',
      content: [{ type: 'diff', path: `/ws/${file}`, oldText: before, newText: after }],
    },
    { sessionUpdate: 'tool_call', toolCallId: `test-${i}`, title: `npm test -- part${i}`, kind: 'execute', status: 'pending' },
    { sessionUpdate: 'tool_call_update', toolCallId: `test-${i}`, status: 'in_progress' },
    {
      sessionUpdate: 'tool_call_update',
      toolCallId: `test-${i}`,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: '```\n' + terminalOutput(i, 150) + '```' } }],
    },
    { sessionUpdate: 'tool_call', toolCallId: `grep-${i}`, title: `Search "${word(i)}" in src`, kind: 'search', status: 'pending' },
    { sessionUpdate: 'tool_call_update', toolCallId: `grep-${i}`, status: 'in_progress' },
    {
      sessionUpdate: 'tool_call_update',
      toolCallId: `grep-${i}`,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: grepOutput(i, 30) } }],
    },
  );
  for (const t of answerChunks(i + 1, 184, `The fix for part ${i} is in. `, endMarker(i))) u.push(chunk('agent_message_chunk', t));
  return u;
}

function terminalOutput(turn: number, lines: number): string {
  let s = '';
  for (let l = 0; l < lines; l++) s += `  ✓ part${turn} ${word(l)} case ${l} handles a line of ${l * 37} characters (${l % 9} ms)\n`;
  return s + `\n  ${lines} passing (${turn % 50} s)\n`;
}

function grepOutput(turn: number, lines: number): string {
  let s = '';
  for (let l = 0; l < lines; l++) s += `src/part${(turn + l) % 500}.ts:${l + 1}:  const ${word(l + turn)} = reader.${word(l)}();\n`;
  return s;
}

export interface WrittenSession {
  sessionId: string;
  title: string;
  turns: number;
  updates: number;
  /** Characters of text in its updates (JSON-quoted, as the agent sends them). */
  chars: number;
}

/** Appends a session of `turns` turns to the scripted agent's sessions file (JSON lines). */
export function writeSession(file: string, sessionId: string, title: string, cwd: string, turns: number): WrittenSession {
  const meta = { sessionId, cwd, title, updatedAt: new Date(Date.UTC(2026, 11, 6)).toISOString() };
  appendFileSync(file, JSON.stringify({ s: meta }) + '\n');
  let updates = 0;
  let chars = 0;
  // In slices of lines: one 60 MB string would be the bench driver's own peak.
  for (let i = 0; i < turns; i++) {
    let lines = '';
    for (const update of turnUpdates(i)) {
      const line = JSON.stringify({ u: { sessionId, update } });
      lines += line + '\n';
      chars += line.length;
      updates++;
    }
    appendFileSync(file, lines);
  }
  // The rows name the session by its updates: a turn that lost or gained one would misname it.
  if (updates !== turns * UPDATES_PER_TURN) throw new Error(`${updates} updates in ${turns} turns, not ${UPDATES_PER_TURN} a turn`);
  return { sessionId, title, turns, updates, chars };
}

export function emptyFile(file: string): void {
  writeFileSync(file, '');
}
