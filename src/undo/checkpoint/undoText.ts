// PURE: when Undo This Turn's Changes may run, and what its confirmation says.
import type { TurnState } from '../../runtime/turnMachine';
import type { FileChange } from './checkpoint';

/** What the undo reads of the folder: its own turn, and the folder admission's verdict (other agents, other windows). */
export interface UndoAdmission {
  turn: TurnState['phase'];
  agentName: string;
  /** Closed: another agent (or window) runs a turn in this checkout, or its stop is unverified. */
  gate: { open: true } | { open: false; why: 'running' | 'unverified'; holder: string };
}

/** Why the undo cannot run now, or undefined when it can: never while a turn runs or a stop is unverified. */
export function undoBlocked(g: UndoAdmission): string | undefined {
  if (g.turn === 'unverified') return `${g.agentName}'s stop is not confirmed: it may still be changing files. Check again or force stop it first.`;
  if (g.turn !== 'idle') return `${g.agentName} is running a turn. Stop it (or let it finish) first.`;
  if (!g.gate.open) {
    return g.gate.why === 'unverified'
      ? `${g.gate.holder}'s stop in this checkout is not confirmed: it may still be changing files.`
      : `${g.gate.holder} is running a turn in this checkout. Undo once it has stopped.`;
  }
  return undefined;
}

export interface ShownChange extends FileChange {
  /** The user edited this file in the editor since the checkpoint. */
  handEdited: boolean;
}

const STATUS: Record<FileChange['status'], string> = { added: 'new, deleted again', modified: 'changed back', deleted: 'written back' };
/** Files named in the dialog; more are counted. */
const NAMED = 12;

export function undoConfirmation(folderName: string, kind: 'git' | 'files', changes: readonly ShownChange[]): { message: string; detail: string } {
  const count = `${changes.length} file${changes.length === 1 ? '' : 's'}`;
  const lines = changes.slice(0, NAMED).map((c) => `• ${c.relative} (${STATUS[c.status]})${c.handEdited ? ' — you edited this file' : ''}`);
  if (changes.length > NAMED) lines.push(`• and ${changes.length - NAMED} more`);
  const hand = changes.filter((c) => c.handEdited);
  const parts = [`${count} go back to how they were before your last prompt:`, lines.join('\n')];
  if (hand.length > 0) {
    parts.push(
      `You edited ${hand.length === 1 ? 'one of these files' : `${hand.length} of these files`} yourself since then (${hand.map((c) => c.relative).join(', ')}): "Undo Changes" takes your edits back too; "Keep My Files" leaves ${hand.length === 1 ? 'it as it is' : 'them as they are'}.`,
    );
  }
  if (kind === 'files')
    parts.push('This folder is not a git checkout: only the files the agent wrote through the editor are restored, not what its own tools changed.');
  return { message: `Undo this turn's changes in ${folderName}?`, detail: parts.join('\n\n') };
}

/** Files named per kind in the answer; more are counted. */
const NAMED_DONE = 3;
const DONE: [FileChange['status'], string][] = [
  ['added', 'removed'],
  ['modified', 'restored'],
  ['deleted', 'wrote back'],
];

/**
 * The undo's answer, by what it did to each file: a file the turn created is removed, not
 * "restored" (the demo's reins-demo-notes.md: "removed reins-demo-notes.md"). `kept`: files
 * the user edited by hand and chose to keep.
 */
export function undoneText(restored: readonly FileChange[], kept: number): string {
  const parts = DONE.flatMap(([status, verb]) => {
    const names = restored.filter((c) => c.status === status).map((c) => c.relative);
    return names.length > 0 ? [`${verb} ${nameList(names)}`] : [];
  });
  const keptText = kept > 0 ? `kept ${kept === 1 ? 'the file' : `the ${kept} files`} you edited` : '';
  if (parts.length === 0) return `Nothing undone: you ${keptText || 'kept every file'}.`;
  return `Undid the last turn's changes: ${[...parts, ...(keptText ? [keptText] : [])].join('; ')}.`;
}

function nameList(names: readonly string[]): string {
  if (names.length > NAMED_DONE) return `${names.slice(0, NAMED_DONE).join(', ')} and ${names.length - NAMED_DONE} more`;
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}
