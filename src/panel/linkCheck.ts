// What the webview may ask the host to open: a link from agent text (`openLink`). The
// webview's Markdown already keeps only these schemes; the host checks again, because a
// message from the webview is input like any other. No `vscode`: unit-tested as is.

/** The schemes a link in agent text may have: web and mail, nothing that runs or reads locally. */
const ALLOWED = new Set(['http:', 'https:', 'mailto:']);

/** Longer than any real link; a bigger message is not one. */
const MAX_LINK_CHARS = 8192;

/** The link to open, or a reason it is refused (for the log). */
export function checkLink(href: unknown): { ok: true; url: string } | { ok: false; reason: string } {
  if (typeof href !== 'string') return { ok: false, reason: 'not a string' };
  if (href.length > MAX_LINK_CHARS) return { ok: false, reason: `longer than ${MAX_LINK_CHARS} characters` };
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (!ALLOWED.has(url.protocol)) return { ok: false, reason: `scheme ${url.protocol} is not opened` };
  return { ok: true, url: href };
}
