// PURE: what a `session/request_permission` asks, in either version's shape. v1 carries a bare
// `toolCall` whose title is the question; ACP v2 (migration.mdx, "Permission requests") separates
// the prompt copy (`title`, required, and `description`) from its subject: a `tool_call` subject
// is an ordinary tool call update (applied to the card, its title never replaced by the
// question), a `command` subject an agent-executed command with its absolute cwd and optional
// links to a tool call and a terminal. An absent or unknown subject is a generic question.
import type { RequestPermissionRequest, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { PendingPermission } from './permissions';
import type { TranscriptEntry } from '../shared/messages';
import { withoutUndefined } from '../util/withoutUndefined';

export interface PermissionAsk {
  /** v2: the request's own question (shown as it is); v1: the tool call's title, if it has one. */
  title: string | undefined;
  description?: string;
  /** The tool call to apply to its card, and to show the request in (its toolCallId a string). */
  toolCall?: ToolCallUpdate;
  /** A tool call the request is about without updating it (a command subject's link). */
  linkedToolCallId?: string;
  command?: { command: string; cwd: string };
  /** The request is in v2's shape (its title is the question, not a tool's). */
  v2: boolean;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function permissionAsk(request: RequestPermissionRequest): PermissionAsk {
  const given = request as RequestPermissionRequest & { title?: unknown; description?: unknown; subject?: unknown };
  const v1Call = given.toolCall as ToolCallUpdate | undefined;
  if (v1Call && typeof v1Call === 'object') {
    return { title: text(v1Call.title), ...(typeof v1Call.toolCallId === 'string' && { toolCall: v1Call }), v2: false };
  }
  const ask: PermissionAsk = { title: text(given.title), v2: true };
  const description = text(given.description);
  if (description) ask.description = description;
  const subject = typeof given.subject === 'object' && given.subject !== null ? (given.subject as Record<string, unknown>) : undefined;
  if (subject?.type === 'tool_call') {
    const call = subject.toolCall as ToolCallUpdate | undefined;
    if (call && typeof call === 'object' && typeof call.toolCallId === 'string') ask.toolCall = call;
  } else if (subject?.type === 'command' && typeof subject.command === 'string' && typeof subject.cwd === 'string') {
    ask.command = { command: subject.command, cwd: subject.cwd };
    if (typeof subject.toolCallId === 'string') ask.linkedToolCallId = subject.toolCallId;
  }
  return ask;
}

type PermissionEntry = Extract<TranscriptEntry, { kind: 'permission' }>;

/** The transcript's entry for request `p` (`toolCallId`: the card it is shown in; `cardTitle`: that card's). */
export function permissionEntry(p: PendingPermission, ask: PermissionAsk, toolCallId: string | undefined, cardTitle: string | undefined): PermissionEntry {
  return withoutUndefined({
    kind: 'permission',
    id: p.id,
    title: ask.title ?? cardTitle ?? 'The agent asks for permission',
    options: p.request.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
    toolCallId,
    question: ask.v2 && ask.title !== undefined ? true : undefined,
    description: ask.description,
    command: ask.command,
  });
}
