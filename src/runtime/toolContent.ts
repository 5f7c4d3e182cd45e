// What a tool call's card shows of its `content`, `locations` and `rawInput`: text output as
// the detail, edits as diffs (capped), locations as links. Pure; the transcript calls it for
// every tool_call and tool_call_update. A field the update leaves out keeps its last value.
import type { ContentBlock, ToolCallContent, ToolCallLocation } from '@agentclientprotocol/sdk';
import type { ToolDiffView, ToolLocationView } from '../shared/messages';
import { isV2Diff, v2DiffViews } from './gitPatch';

/** A side of a diff larger than this is not sent to the panel (the snapshot carries every card). */
export const MAX_DIFF_TEXT = 256 * 1024;
/** A card shows at most this many locations (an agent may list every file it searched). */
const MAX_LOCATIONS = 50;

export interface ToolCardContent {
  /** The tool's text output, whole (the transcript keeps its tail in the card: toolOutputs.ts). */
  output?: string;
  /** What the tool was asked, while it has no output: its raw input, short. */
  detail?: string;
  diffs?: ToolDiffView[];
  locations?: ToolLocationView[];
}

/** The card's content from one update; a field is undefined when the update did not say. */
export function toolCardContent(
  content: ToolCallContent[] | null | undefined,
  locations: ToolCallLocation[] | null | undefined,
  rawInput: unknown,
): ToolCardContent {
  const parts: string[] = [];
  const diffs: ToolDiffView[] = [];
  /** Files an ACP v2 diff changes but its patch does not show (binary, moved): links. */
  const changed: ToolLocationView[] = [];
  for (const c of content ?? []) {
    if (c.type === 'content') parts.push(contentText(c.content));
    else if (isV2Diff(c)) {
      const v2 = v2DiffViews(c, MAX_DIFF_TEXT);
      diffs.push(...v2.diffs);
      changed.push(...v2.locations);
    } else if (c.type === 'diff') diffs.push(diffView(c.path, c.oldText ?? undefined, c.newText));
    // Terminals: their live output is the card's `terminal` (terminalCards.ts).
  }
  let detail: string | undefined;
  const output = parts.length > 0 ? parts.join('\n') : undefined;
  // What the tool was asked to do (the command, the pattern), while it has no output of its own.
  if (output === undefined && diffs.length === 0 && rawInput && typeof rawInput === 'object' && Object.keys(rawInput).length > 0) {
    detail = JSON.stringify(rawInput, null, 1).slice(0, 1000);
  }
  const listed = locations
    ? locations.slice(0, MAX_LOCATIONS).map((l) => ({ path: l.path, ...(typeof l.line === 'number' && l.line > 0 && { line: l.line }) }))
    : undefined;
  return {
    output,
    detail,
    diffs: diffs.length > 0 ? diffs : undefined,
    locations: changed.length > 0 ? [...(listed ?? []), ...changed].slice(0, MAX_LOCATIONS) : listed,
  };
}

function diffView(path: string, oldText: string | undefined, newText: string): ToolDiffView {
  if (newText.length > MAX_DIFF_TEXT || (oldText?.length ?? 0) > MAX_DIFF_TEXT) return { path, newText: '', tooLarge: true };
  return oldText === undefined ? { path, newText } : { path, oldText, newText };
}

export function contentText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link':
      return `[${block.title ?? block.name}](${block.uri})`;
    case 'resource':
      return 'text' in block.resource ? `\n\`\`\`\n${block.resource.text}\n\`\`\`\n` : `(${block.resource.uri})`;
    case 'image':
      return '*(image)*';
    case 'audio':
      return '*(audio)*';
    default:
      return '';
  }
}
