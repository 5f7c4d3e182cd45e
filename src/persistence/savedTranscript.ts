// The transcript as it is kept for the next window (a reload, or VS Code closed and opened):
// bounded, and made true for a window in which the agent process that showed it is gone. Pure.
import type { TerminalOutputView, TranscriptEntry } from '../shared/messages';
import { stopUnfinished } from '../runtime/planItems';

export interface SavedTranscript {
  version: 1;
  /** The entries kept, oldest first. */
  entries: TranscriptEntry[];
  /** Older entries left out to stay within the bounds. */
  dropped: number;
}

export interface SaveLimits {
  /** Entries kept at most (the newest). */
  maxEntries: number;
  /** Characters of JSON kept at most, all entries together (workspace storage is not a log). */
  maxChars: number;
  /** Characters of one entry's text kept at most (its end, where a long answer concludes). */
  maxEntryChars: number;
}

const DEFAULT_SAVE_LIMITS: SaveLimits = { maxEntries: 400, maxChars: 1_000_000, maxEntryChars: 100_000 };

/** Notice buttons that act on one agent process, or on a checkpoint kept in memory: meaningless after a reload. */
const PROCESS_ACTIONS = new Set(['checkAgain', 'forceStop', 'endLeftovers', 'undoTurn']);

/**
 * saveTranscript of a transcript's newest entries only: the older ones would be left out anyway,
 * and a long transcript's are on disk (runtime/entryList.ts), not worth reading back to drop.
 */
export function saveNewest(
  transcript: { readonly length: number; slice(from: number): TranscriptEntry[] },
  limits: SaveLimits = DEFAULT_SAVE_LIMITS,
): SavedTranscript {
  const from = Math.max(0, transcript.length - limits.maxEntries);
  const saved = saveTranscript(transcript.slice(from), limits);
  return { ...saved, dropped: saved.dropped + from };
}

/** The newest entries that fit, each text cut to its last `maxEntryChars`. */
export function saveTranscript(entries: readonly TranscriptEntry[], limits: SaveLimits = DEFAULT_SAVE_LIMITS): SavedTranscript {
  const kept: TranscriptEntry[] = [];
  let chars = 0;
  for (let i = entries.length - 1; i >= 0 && kept.length < limits.maxEntries; i--) {
    const entry = cutText(entries[i]!, limits.maxEntryChars); // 0 <= i < length
    const size = JSON.stringify(entry).length;
    if (chars + size > limits.maxChars) break;
    chars += size;
    kept.push(entry);
  }
  kept.reverse();
  return { version: 1, entries: kept, dropped: entries.length - kept.length };
}

/**
 * What a new window shows of a saved transcript: a permission request that was never answered
 * can no longer be (its agent is gone), tools and plan items that had not finished never will, and
 * Check Again / Force Stop / End Them act on a process that no longer exists.
 */
export function restorable(saved: unknown): TranscriptEntry[] {
  if (!isSaved(saved)) return [];
  const out: TranscriptEntry[] = [];
  for (const entry of saved.entries) {
    if (!entry || typeof entry !== 'object' || typeof entry.id !== 'string' || typeof entry.kind !== 'string') continue;
    if (entry.kind === 'permission' && entry.resolved === undefined) out.push({ ...entry, resolved: 'cancelled' });
    else if (entry.kind === 'elicitation' && entry.resolved === undefined) out.push({ ...entry, resolved: 'Cancelled: the window was reloaded' });
    else if (entry.kind === 'tool' && (entry.status === 'pending' || entry.status === 'in_progress')) out.push({ ...entry, status: 'cancelled' });
    else if (entry.kind === 'plan' && Array.isArray(entry.items)) out.push({ ...entry, items: stopUnfinished(entry.items) });
    else if (entry.kind === 'notice' && entry.actions?.some((a) => PROCESS_ACTIONS.has(a.action))) {
      const actions = entry.actions.filter((a) => !PROCESS_ACTIONS.has(a.action));
      out.push({ ...entry, actions: actions.length > 0 ? actions : undefined });
    } else out.push(entry);
  }
  return out;
}

function isSaved(value: unknown): value is SavedTranscript {
  return typeof value === 'object' && value !== null && (value as SavedTranscript).version === 1 && Array.isArray((value as SavedTranscript).entries);
}

/** A terminal's text cut to its last `max` characters leaves out these bytes more (when the card knew how many it left out). */
function omittedWhenCut(terminal: TerminalOutputView, max: number): { omittedBytes?: number } {
  if (terminal.omittedBytes === undefined) return {};
  return { omittedBytes: terminal.omittedBytes + Buffer.byteLength(terminal.text.slice(0, terminal.text.length - max)) };
}

function cutText(entry: TranscriptEntry, max: number): TranscriptEntry {
  const cut = (s: string) => (s.length > max ? `…${s.slice(s.length - max)}` : s);
  switch (entry.kind) {
    case 'user':
      return entry.text.length > max ? { ...entry, text: cut(entry.text) } : entry;
    case 'agent':
    case 'thought':
      return entry.markdown.length > max ? { ...entry, markdown: cut(entry.markdown) } : entry;
    case 'tool':
      if (!entry.terminal || entry.terminal.text.length <= max) return entry;
      return { ...entry, terminal: { ...entry.terminal, text: cut(entry.terminal.text), truncated: true, ...omittedWhenCut(entry.terminal, max) } };
    default:
      return entry;
  }
}
