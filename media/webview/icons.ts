// 16×16 line icons drawn in currentColor so they follow the theme. Built with
// createElementNS from the constants below (there is no icon font: the CSP allows no
// remote fonts, and codicons are not shipped with the extension).

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Path data per icon; a leading "F" marks a filled (not stroked) path. */
const ICONS = {
  read: ['M4 1.5h5l3.5 3.5v9.5h-8.5z', 'M9 1.5V5h3.5', 'M6 8.5h4M6 11h4'],
  edit: ['M11 2.5l2.5 2.5-8 8H3v-2.5z', 'M9.5 4l2.5 2.5'],
  delete: ['M2.5 4h11', 'M6 4V2.5h4V4', 'M4 4l.7 9.5h6.6L12 4', 'M6.5 6.5v5M9.5 6.5v5'],
  move: ['M2 8h11', 'M9.5 4.5L13 8l-3.5 3.5'],
  search: ['M7 2.5a4.5 4.5 0 1 1 0 9a4.5 4.5 0 1 1 0-9z', 'M10.3 10.3L14 14'],
  execute: ['M1.5 2.5h13v11h-13z', 'M4 6l2.5 2L4 10', 'M8 10.5h4'],
  think: ['M8 1.5a4.5 4.5 0 0 0-2.5 8.2V12h5V9.7A4.5 4.5 0 0 0 8 1.5z', 'M6 14.5h4'],
  fetch: ['M8 1.5a6.5 6.5 0 1 1 0 13a6.5 6.5 0 1 1 0-13z', 'M1.5 8h13', 'M8 1.5c-2.4 2.2-2.4 10.8 0 13M8 1.5c2.4 2.2 2.4 10.8 0 13'],
  switch_mode: ['M2 5.5h11L10 2.5', 'M14 10.5H3l3 3'],
  other: ['M8 1.5l5.5 3v7L8 14.5l-5.5-3v-7z', 'M2.5 4.5L8 7.5l5.5-3', 'M8 7.5v7'],
  send: ['M2 2.5l12.5 5.5L2 13.5l2-5.5z', 'M4 8h5'],
  stop: ['FM4 4h8v8H4z'],
  folder: ['M1.5 3h4.5l1.5 1.5h7v8.5h-13z'],
  shield: ['M8 1.5l5.5 2v4c0 3.5-2.5 6-5.5 7c-3-1-5.5-3.5-5.5-7v-4z', 'M5.5 8l2 2 3-3.5'],
  info: ['M8 1.5a6.5 6.5 0 1 1 0 13a6.5 6.5 0 1 1 0-13z', 'M8 7v4.5', 'M8 4.6v.2'],
  warning: ['M8 1.8l6.5 12H1.5z', 'M8 6v3.8', 'M8 11.7v.2'],
  error: ['M8 1.5a6.5 6.5 0 1 1 0 13a6.5 6.5 0 1 1 0-13z', 'M5.6 5.6l4.8 4.8M10.4 5.6l-4.8 4.8'],
  checklist: ['M1.8 4l1.4 1.4L5.8 2.8', 'M8 4.5h6.5', 'M1.8 10l1.4 1.4 2.6-2.6', 'M8 10.5h6.5'],
  chevron: ['M6 3.5L10.5 8 6 12.5'],
  arrowDown: ['M8 2.5v11', 'M3.5 9L8 13.5 12.5 9'],
  check: ['M3 8.5l3 3 7-7'],
  sparkle: ['M8 1.5c.5 3.3 1.9 5.6 6.5 6.5c-4.6.9-6 3.2-6.5 6.5c-.5-3.3-1.9-5.6-6.5-6.5c4.6-.9 6-3.2 6.5-6.5z'],
} satisfies Record<string, string[]>;

export type IconName = keyof typeof ICONS;

export function icon(name: IconName, className = ''): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('class', `icon ${className}`.trim());
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  for (const d of ICONS[name]) {
    const path = document.createElementNS(SVG_NS, 'path');
    if (d.startsWith('F')) {
      path.setAttribute('d', d.slice(1));
      path.setAttribute('class', 'filled');
    } else {
      path.setAttribute('d', d);
    }
    svg.appendChild(path);
  }
  return svg;
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
