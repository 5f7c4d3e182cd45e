// The offline demonstration: what a user sees when Reins runs with no real agent. It says
// plainly that no model is involved (once: the first prompt), and walks through what a turn can
// contain: a plan, streamed Markdown with a code block, a read with its location, a command's
// live terminal output, an edit as a diff with its permission request (Allow writes a line to
// reins-demo-notes.md, a real file, so that Undo This Turn's Changes can be tried: demoFiles.ts),
// usage. "slow" in a prompt makes room to try Stop.
import * as path from 'node:path';
import { proposeEdit, type ClientFs } from './demoFiles';
import type { SessionSetup } from './sessionConfig';
import type { Turn, TurnBody } from './turn';

/**
 * What a demonstration session offers, so that the panel's mode and model chips and the slash
 * completion can be tried offline: both choices are pretend (the turn is the same), and say so.
 */
export const DEMO_SESSION: SessionSetup = {
  configOptions: [
    {
      id: 'mode',
      name: 'Mode',
      category: 'mode',
      type: 'select',
      currentValue: 'ask',
      options: [
        { value: 'ask', name: 'Ask', description: 'Pretend: the demonstration always asks before its edit' },
        { value: 'code', name: 'Code', description: 'Pretend: the demonstration still asks' },
      ],
    },
    {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: 'scripted',
      options: [
        { value: 'scripted', name: 'Scripted (no model)' },
        { value: 'scripted-slow', name: 'Scripted, slow (no model)', description: 'Pretend: say "slow" in a prompt for a slow turn' },
      ],
    },
  ],
  // Sent before session/new's answer, as several real agents send their commands.
  before: [
    {
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { name: 'slow', description: 'A slow answer, to try Stop' },
        { name: 'help', description: 'What this demonstration shows', input: { hint: 'anything' } },
      ],
    },
  ],
};

const SLOW_INTRO_MS = 8_000;

export interface DemoOptions {
  /** The process's first prompt: the demonstration introduces itself (once, not on every prompt). */
  first: boolean;
  /** The client runs terminals (clientCapabilities.terminal): a harmless command shows its live output. */
  terminals: boolean;
  /** The client's fs methods (clientCapabilities.fs): the edit goes through them when offered. */
  fs: ClientFs;
}

type PlanStatus = 'pending' | 'in_progress' | 'completed';
const PLAN = ['Read README.md', 'Run a harmless command', 'Edit reins-demo-notes.md (asks first)', 'Answer'];

/** Prints three lines, a little apart: the terminal card's output grows live. */
const TERMINAL_SCRIPT = "let i=0;const t=setInterval(()=>{console.log('demonstration output, line '+(++i));if(i===3)clearInterval(t)},300)";

export function demoBody(prompt: string, cwd: string, options: DemoOptions = { first: true, terminals: false, fs: { read: false, write: false } }): TurnBody {
  return async (turn) => {
    const slow = /slow/i.test(prompt);
    const n = turn.index + 1;
    const statuses: PlanStatus[] = PLAN.map(() => 'pending');
    const plan = (step: number, status: PlanStatus) => {
      statuses[step] = status;
      turn.update({ sessionUpdate: 'plan', entries: PLAN.map((content, k) => ({ content, status: statuses[k] ?? 'pending', priority: 'medium' })) });
    };
    plan(0, 'in_progress');
    const intro = options.first ? introduction(prompt, slow) : again(prompt, n, slow);
    const say = (text: string) => turn.stream('agent_message_chunk', text, 16, 25);
    // Slow: the introduction alone takes about eight seconds, the whole turn about ten.
    if (slow) await turn.stream('agent_message_chunk', intro, 8, Math.round(SLOW_INTRO_MS / Math.ceil(intro.length / 8)));
    else await say(intro);

    const readme = path.join(cwd, 'README.md');
    const readId = `demo-read-${n}`;
    turn.update({
      sessionUpdate: 'tool_call',
      toolCallId: readId,
      title: 'Read README.md',
      kind: 'read',
      status: 'pending',
      locations: [{ path: readme, line: 1 }],
    });
    await turn.sleep(150);
    turn.update({ sessionUpdate: 'tool_call_update', toolCallId: readId, status: 'in_progress' });
    await turn.sleep(slow ? 1000 : 300);
    turn.update({
      sessionUpdate: 'tool_call_update',
      toolCallId: readId,
      status: 'completed',
      content: [
        { type: 'content', content: { type: 'text', text: 'Pretend read: nothing was opened. (Demonstration, no model.) The link above opens the file.' } },
      ],
    });
    plan(0, 'completed');

    plan(1, 'in_progress');
    await runCommand(turn, `demo-run-${n}`, options.terminals);
    plan(1, 'completed');

    plan(2, 'in_progress');
    const edit = await proposeEdit(turn, `demo-edit-${n}`, cwd, firstLine(prompt), options.fs, say);
    plan(2, 'completed');
    plan(3, 'in_progress');
    await say(`${edit}\n\nThat is the end of this demonstration turn. Send another message to see it again.\n`);
    plan(3, 'completed');
    // Pretend usage, so that the panel's usage line can be seen: no model, no tokens, no cost.
    turn.update({ sessionUpdate: 'usage_update', used: 1200 * n, size: 200_000, cost: { amount: 0, currency: 'USD' } });
    return { stopReason: 'end_turn' };
  };
}

/** A harmless command in a client terminal (terminal/create), its output shown live in the card. */
async function runCommand(turn: Turn, toolCallId: string, terminals: boolean): Promise<void> {
  turn.update({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: 'Run a harmless command (prints three lines)',
    kind: 'execute',
    status: 'pending',
    rawInput: { command: 'node -e "…three lines…"' },
  });
  if (!terminals) {
    turn.update({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'This client runs no terminals: nothing was run.' } }],
    });
    return;
  }
  const created = await turn.call('terminal/create', {
    sessionId: turn.session.id,
    command: process.execPath,
    args: ['-e', TERMINAL_SCRIPT],
    // In desktop VS Code process.execPath is Electron, which is Node only with this.
    env: [{ name: 'ELECTRON_RUN_AS_NODE', value: '1' }],
  });
  const terminalId = typeof created === 'object' && 'result' in created ? (created.result as { terminalId?: unknown } | undefined)?.terminalId : undefined;
  if (typeof terminalId !== 'string') {
    turn.update({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: 'The terminal could not be created.' } }],
    });
    return;
  }
  turn.update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] });
  await turn.call('terminal/wait_for_exit', { sessionId: turn.session.id, terminalId });
  await turn.call('terminal/release', { sessionId: turn.session.id, terminalId });
  turn.update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
}

/** Every prompt after the first: the prompt quoted, no second introduction. */
function again(prompt: string, n: number, slow: boolean): string {
  return [
    `### Demonstration turn ${n}`,
    '',
    'You wrote:',
    '',
    quote(prompt),
    '',
    slow
      ? 'You asked for it **slow**: this answer streams for about ten seconds, so there is time to press **Stop** (or Escape) and see the stop confirmed.'
      : 'The same steps again: a read with its location, a command with its output, an edit of `reins-demo-notes.md` shown as a diff with its permission (Allow writes it; Undo This Turn’s Changes takes it back), and the plan ticking along.',
    '',
    '```ts',
    '// Still no model: the demonstration is a script.',
    `const turn = ${n};`,
    '```',
  ].join('\n');
}

function quote(prompt: string): string {
  return (prompt.trim() || '(an empty prompt)')
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

function introduction(prompt: string, slow: boolean): string {
  const quoted = quote(prompt);
  return [
    '### Reins demonstration agent',
    '',
    'This is the **Reins scripted demonstration agent**. It works offline and has **no model**: every word here is scripted, so you can try Reins before installing a real ACP agent.',
    '',
    'You wrote:',
    '',
    quoted,
    '',
    'What happens next:',
    '',
    '- a **plan** that ticks along as the turn goes',
    '- a pretend **tool call** that reads `README.md` (its location is a link)',
    '- a harmless **command** whose output shows live in its card',
    '- an **edit shown as a diff**, with *Open Diff*: it asks before it edits `reins-demo-notes.md` in this folder. **Allow** writes one line to it (a real file); **Reject** writes nothing',
    '- a reply saying which option you chose',
    '',
    'After an allowed edit, **Reins: Undo This Turn’s Changes** (Command Palette) takes it back.',
    '',
    slow
      ? 'You asked for it **slow**: this answer streams for about ten seconds. Press **Stop** to see a confirmed stop.'
      : 'Tip: say `slow` in a prompt to have time to press **Stop**: the answer then streams for about ten seconds.',
    '',
    '```ts',
    '// What the demonstration does with your prompt: nothing clever.',
    'const reply = script.next(prompt); // no model, no network',
    '```',
  ].join('\n');
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || 'demonstration';
}
