// Icons are VS Code's own codicons (@vscode/codicons: its font and stylesheet are bundled
// into dist/, local resources the CSP allows), so the panel's Stop, tool kinds and notices
// look like the rest of the workbench and follow the theme's colour (currentColor).

/** Our names for what an icon means → the codicon that shows it. */
const ICONS = {
  read: 'file',
  edit: 'edit',
  delete: 'trash',
  move: 'arrow-right',
  search: 'search',
  execute: 'terminal',
  think: 'lightbulb',
  fetch: 'globe',
  switch_mode: 'arrow-swap',
  other: 'tools',
  send: 'send',
  // The title bar's Stop is $(debug-stop) (package.json): the panel's is the same glyph.
  stop: 'debug-stop',
  folder: 'folder',
  shield: 'shield',
  info: 'info',
  warning: 'warning',
  error: 'error',
  checklist: 'checklist',
  chevron: 'chevron-right',
  chevronDown: 'chevron-down',
  arrowDown: 'arrow-down',
  check: 'check',
  sparkle: 'sparkle',
  close: 'close',
  queued: 'clock',
  question: 'comment-discussion',
  link: 'link-external',
} satisfies Record<string, string>;

export type IconName = keyof typeof ICONS;

export function icon(name: IconName, className = ''): HTMLSpanElement {
  const span = document.createElement('span');
  span.className = `icon codicon codicon-${ICONS[name]} ${className}`.trim();
  span.setAttribute('aria-hidden', 'true');
  return span;
}

/** The icon for an ACP tool kind; unknown or missing kinds get the generic one. */
export function toolIcon(toolKind: string | undefined): IconName {
  switch (toolKind) {
    case 'read':
    case 'edit':
    case 'delete':
    case 'move':
    case 'search':
    case 'execute':
    case 'think':
    case 'fetch':
    case 'switch_mode':
      return toolKind;
    default:
      return 'other';
  }
}
