// What a tool card says: its status pill (a rejected edit is "Rejected", not a red "Failed"),
// a permission's one-line answer, a location's label. Pure, so the wording is tested without
// a DOM.
import type { PermissionOptionView, ToolLocationView, ToolStatus, TranscriptEntry } from '../../src/shared/messages';
import { toolStatusLabel } from './statusModel';

type PermissionEntry = Extract<TranscriptEntry, { kind: 'permission' }>;

export type PillTone = ToolStatus | 'rejected' | 'waiting';

/** The option the answer names (the host's `resolved` is the option's name). */
function answeredOption(req: PermissionEntry, chosenId?: string): PermissionOptionView | undefined {
  return req.options.find((o) => (chosenId !== undefined ? o.optionId === chosenId : o.name === req.resolved));
}

function isRejection(option: PermissionOptionView | undefined): boolean {
  return option?.kind === 'reject_once' || option?.kind === 'reject_always';
}

/**
 * The card's pill: waiting while its permission or a question asked inside it (`asking`: an
 * elicitation not answered yet) is open, as the panel's status says, since the turn goes on only
 * when the user answers; "Rejected" once the user rejected it and the tool did not run (the agent
 * may report that as failed or cancelled).
 */
export function toolPill(status: ToolStatus, permission: PermissionEntry | undefined, chosenId?: string, asking = false): { tone: PillTone; label: string } {
  const open = asking || (permission !== undefined && permission.resolved === undefined && chosenId === undefined);
  if (open && (status === 'pending' || status === 'in_progress')) return { tone: 'waiting', label: 'Waiting for you' };
  const option = permission ? answeredOption(permission, chosenId) : undefined;
  if (isRejection(option) && status !== 'completed' && status !== 'in_progress') return { tone: 'rejected', label: 'Rejected' };
  return { tone: status, label: toolStatusLabel(status) };
}

/** The answered request's one line: "Allowed: Allow once", "Rejected: Reject", "Not answered: the turn stopped". */
export function answerLine(req: PermissionEntry): { text: string; tone: 'allowed' | 'rejected' | 'none' } {
  const option = answeredOption(req);
  if (option) return isRejection(option) ? { text: `Rejected: ${option.name}`, tone: 'rejected' } : { text: `Allowed: ${option.name}`, tone: 'allowed' };
  if (req.resolved === 'cancelled') return { text: 'Not answered: the turn stopped', tone: 'none' };
  return { text: `Not answered: ${req.resolved ?? ''}`.trim(), tone: 'none' };
}

/** "notes.md:12" — the file's name (the full path is the link's tooltip). */
export function locationLabel(location: ToolLocationView): string {
  const name = location.path.slice(Math.max(location.path.lastIndexOf('/'), location.path.lastIndexOf('\\')) + 1) || location.path;
  return location.line !== undefined ? `${name}:${location.line}` : name;
}

/** A path cut after each run of separators: "src/a-b.ts" → ["src/", "a-b.ts"]; where a path may break (dom.ts setPathText). */
export function pathParts(path: string): string[] {
  return path.match(/[^/\\]*[/\\]+|[^/\\]+$/g) ?? [path];
}

/** "Thought for 2.4 s" once the duration is known; "Thinking" while it streams. */
export function thoughtLabel(seconds: number | undefined): string {
  if (seconds === undefined) return 'Thinking';
  return seconds < 1 ? 'Thought for less than a second' : `Thought for ${Number(seconds.toFixed(1))} s`;
}
