/** The text up to its first line break (all of it when it has none). */
export function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}

/** VS Code's icon syntax in labels (`$(zap)`, `$(sync~spin)`): iconLabels.ts's pattern. */
const ICON = /\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/g;

/**
 * Text shown where VS Code draws `$(name)` as an icon (the status bar; quick picks too), as
 * written: each `$(name)` escaped as `\$(name)`, which VS Code shows as the text `$(name)`. An
 * agent's name is a settings key a cloned folder may set, and a registry's.
 */
export function escapeIcons(text: string): string {
  return text.replace(ICON, (icon) => `\\${icon}`);
}
