// The demonstration's one real edit: a line added to reins-demo-notes.md in the session's folder
// (the file created when it is not there), so that a new user can see Undo This Turn's Changes
// take an agent's edit back. It goes through the client's fs/read_text_file and
// fs/write_text_file when the client offers them, as a real agent's edit does (Reins' write report
// and checkpoint see it the same way), else straight to disk, as agents do with clients that
// offer no fs. Nothing is written before the user allows it (demo.ts asks first).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { Turn } from './turn';

const NOTES_FILE = 'reins-demo-notes.md';
const NOTES_HEADING = '# Reins demo notes\n\nLines the demonstration agent wrote (one per allowed edit).\n\n';
/** ACP's "resource not found": the file is not there yet. */
const RESOURCE_NOT_FOUND = -32002;

/** What the client offered in initialize's clientCapabilities.fs. */
export interface ClientFs {
  read: boolean;
  write: boolean;
}

export function clientFs(capabilities: unknown): ClientFs {
  const fs = isObj(capabilities) && isObj(capabilities.fs) ? capabilities.fs : {};
  return { read: fs.readTextFile === true, write: fs.writeTextFile === true };
}

/** The notes as they are now: `old` undefined when the file is not there; `error` when it could not be read. */
type NotesNow = { old: string | undefined } | { error: string };

async function readNotes(turn: Turn, file: string, fs: ClientFs): Promise<NotesNow> {
  if (fs.read) {
    const reply = await turn.call('fs/read_text_file', { sessionId: turn.session.id, path: file });
    if (reply === 'aborted') return { error: 'the read was abandoned' };
    if ('error' in reply) return reply.error.code === RESOURCE_NOT_FOUND ? { old: undefined } : { error: reply.error.message };
    const content = (reply.result as { content?: unknown } | undefined)?.content;
    return typeof content === 'string' ? { old: content } : { error: 'the client sent no content' };
  }
  try {
    return { old: await fsp.readFile(file, 'utf8') };
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? { old: undefined } : { error: (err as Error).message };
  }
}

/** The notes with one more line (`- text`); a new file starts with a heading that says what it is. */
function notesWith(old: string | undefined, text: string): string {
  const base = old === undefined ? NOTES_HEADING : old === '' || old.endsWith('\n') ? old : `${old}\n`;
  return `${base}- ${text}\n`;
}

/** Writes the notes; the error's message when the write failed. */
async function writeNotes(turn: Turn, file: string, content: string, fs: ClientFs): Promise<string | undefined> {
  if (fs.write) {
    const reply = await turn.call('fs/write_text_file', { sessionId: turn.session.id, path: file, content });
    if (reply === 'aborted') return 'the write was abandoned';
    return 'error' in reply ? reply.error.message : undefined;
  }
  try {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, content, 'utf8');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * The edit: its card with the diff (the file as it is, and with the new line), the permission
 * inside the card, and the write on Allow only. Returns the reply's sentence about it.
 */
export async function proposeEdit(
  turn: Turn,
  toolCallId: string,
  cwd: string,
  line: string,
  fs: ClientFs,
  say: (text: string) => Promise<void>,
): Promise<string> {
  const file = path.join(cwd, NOTES_FILE);
  const title = `Edit ${NOTES_FILE} (adds one line)`;
  const now = await readNotes(turn, file, fs);
  if ('error' in now) {
    turn.update({
      sessionUpdate: 'tool_call',
      toolCallId,
      title,
      kind: 'edit',
      status: 'failed',
      content: [text(`Could not read ${NOTES_FILE}: ${now.error}`)],
    });
    return `The demonstration could not read ${NOTES_FILE} (${now.error}), so it proposed no edit and wrote nothing.`;
  }
  const newText = notesWith(now.old, line);
  const toolCall = {
    toolCallId,
    title,
    kind: 'edit' as const,
    status: 'pending' as const,
    content: [{ type: 'diff' as const, path: file, ...(now.old !== undefined && { oldText: now.old }), newText }],
    locations: [{ path: file, line: newText.split('\n').length - 1 }],
  };
  turn.update({ sessionUpdate: 'tool_call', ...toolCall });
  await say(
    `\n\nNow a permission request, inside the edit’s card. **Allow** writes the line to \`${NOTES_FILE}\` in this folder (a real file); **Reject** writes nothing.\n\n`,
  );
  const choice = await turn.permission({
    toolCall,
    options: [
      { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
    ],
  });
  if (choice !== 'allow-once') {
    turn.update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [text('Rejected: nothing was written.')] });
    return choice === 'reject-once'
      ? `You chose **Reject**: \`${NOTES_FILE}\` was not written. A real agent would now continue without making the edit.`
      : `The permission request got no option (${choice ?? 'an error'}): nothing was written.`;
  }
  turn.update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
  const failed = await writeNotes(turn, file, newText, fs);
  if (failed) {
    turn.update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [text(`The write failed: ${failed}`)] });
    return `You chose **Allow**, but writing \`${NOTES_FILE}\` failed: ${failed}`;
  }
  turn.update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
  return [
    `You chose **Allow**: the line is in \`${NOTES_FILE}\`${now.old === undefined ? ' (a new file)' : ''}.`,
    '',
    `To take it back, run **Reins: Undo This Turn’s Changes** (Command Palette): it shows the change and ${now.old === undefined ? 'removes the file' : 'restores the file'} when you confirm.`,
  ].join('\n');
}

function text(t: string) {
  return { type: 'content' as const, content: { type: 'text' as const, text: t } };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
