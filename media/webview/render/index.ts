// Picks the renderer for an entry's kind.
import { assertNever, type TranscriptEntry } from '../../../src/shared/messages';
import { createAgentView } from './agent';
import { createElicitationView } from './elicitation';
import { createFilesView } from './files';
import { createNoticeView } from './notice';
import { createPermissionView } from './permission';
import { createPlanView } from './plan';
import { createThoughtView } from './thought';
import { createToolView } from './tool';
import type { EntryView, RenderContext } from './types';
import { createUserView } from './user';

export type { EntryView, RenderContext } from './types';

export function createEntryView(entry: TranscriptEntry, ctx: RenderContext): EntryView {
  switch (entry.kind) {
    case 'user':
      return createUserView(entry);
    case 'agent':
      return createAgentView(entry);
    case 'thought':
      return createThoughtView(entry);
    case 'tool':
      return createToolView(entry, ctx);
    case 'permission':
      return createPermissionView(entry, ctx);
    case 'elicitation':
      return createElicitationView(entry, ctx);
    case 'plan':
      return createPlanView(entry);
    case 'notice':
      return createNoticeView(entry, ctx);
    case 'files':
      return createFilesView(entry);
    default:
      return assertNever(entry);
  }
}
