// What the header's session line and the composer's slash completion show. Pure (no DOM) so
// the unit tests can pin it; sessionBar.ts and slashCompletion.ts only copy it into elements.
import type { SessionUsageView, SessionView } from '../../src/shared/messages';

export type SlashCommand = SessionView['commands'][number];

/** Shown at most; the list scrolls no further than this. */
const MAX_MATCHES = 50;

/** 950 → "950", 12_345 → "12.3k", 1_200_000 → "1.2M". */
export function compactNumber(n: number): string {
  if (!Number.isFinite(n)) return '?';
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  if (abs < 1_000_000) return `${trim(n / 1000)}k`;
  return `${trim(n / 1_000_000)}M`;
}

function trim(x: number): string {
  return (x >= 100 ? x.toFixed(0) : x.toFixed(1)).replace(/\.0$/, '');
}

/** "12.3k / 200k tokens (6%) · $0.42", or undefined when the agent sent no usage. */
export function usageText(usage: SessionUsageView | undefined): string | undefined {
  if (!usage) return undefined;
  const share = usage.size > 0 ? ` (${Math.round((usage.used / usage.size) * 100)}%)` : '';
  const tokens = `${compactNumber(usage.used)} / ${compactNumber(usage.size)} tokens${share}`;
  return usage.cost ? `${tokens} · ${costText(usage.cost.amount, usage.cost.currency)}` : tokens;
}

export function costText(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: amount < 1 ? 4 : 2 }).format(amount);
  } catch {
    // Not an ISO 4217 code: say it as given.
    return `${amount.toFixed(2)} ${currency}`.trim();
  }
}

/**
 * The commands that complete what is typed: only while the input is a `/` followed by the
 * start of a name (no space yet). Names that start with it first, then names that contain it.
 */
export function slashMatches(input: string, commands: readonly SlashCommand[]): SlashCommand[] {
  const typed = /^\/(\S*)$/.exec(input)?.[1]?.toLowerCase();
  if (typed === undefined || commands.length === 0) return [];
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(typed));
  const contains = typed ? commands.filter((c) => !c.name.toLowerCase().startsWith(typed) && c.name.toLowerCase().includes(typed)) : [];
  const found = [...starts, ...contains];
  // An exact, complete name with nothing else to offer: the list has nothing to add.
  if (found.length === 1 && found[0]?.name.toLowerCase() === typed) return [];
  return found.slice(0, MAX_MATCHES);
}

/** The text a chosen command leaves in the input: the command and a space for its input. */
export function completedInput(command: SlashCommand): string {
  return `/${command.name} `;
}
