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

/** The links VS Code's notifications draw (linkedText.ts): `[label](https://…)`, `(command:…)`, `(file:…)`. */
const NOTIFICATION_LINK = /\]\((?=https?:\/\/|command:|file:)/gi;

/**
 * A notification's message with no link in it. VS Code draws `[label](command:…)` in a
 * notification as a link that runs the command when clicked (any command, with arguments), so
 * text Reins does not write (an agent's error, its stderr, a path it gave, an agent's name from
 * the settings) must not make one: a space between `]` and `(` leaves it as written, unlinked.
 */
export function unlinked(text: string): string {
  return text.replace(NOTIFICATION_LINK, '] (');
}

/** How oneLine writes the common ones, as JSON does. */
const ESCAPED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * An agent's string in a log line, on that line: its line breaks and other control characters
 * escaped (`\n`, `\u001b`), so that an `agentInfo.name` holding "\n… [error] …" cannot write a
 * line that reads as Reins' own.
 */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what it escapes
  return text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]/g, (c) => ESCAPED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
