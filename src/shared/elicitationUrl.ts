// What the user is shown of a URL-mode elicitation's address before consenting to open it
// (elicitation.mdx, URL security): the whole URL, its host picked out, and warnings for what
// makes a host read as another (Punycode, characters outside ASCII, a user name before the
// host, a bare IP address, no TLS). Pure and shared: the host builds it once for the entry; the
// webview draws the three parts.

export interface UrlView {
  /** The whole URL as the agent sent it, split around the host: before + host + after. */
  before: string;
  host: string;
  after: string;
  warnings: string[];
}

/** undefined: not an http(s) URL (acp/elicitationParams.ts refuses those before anything is shown). */
export function describeUrl(raw: string): UrlView | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const warnings: string[] = [];
  // URL gives the host in ASCII (IDN as Punycode): what the browser will actually ask for.
  const host = url.hostname;
  if (host.split('.').some((label) => label.startsWith('xn--')))
    warnings.push('The host is an internationalised name (Punycode): its letters may imitate another site’s.');
  if (/[^\x20-\x7e]/.test(raw)) warnings.push('The address contains characters outside plain ASCII.');
  if (url.username !== '' || url.password !== '') warnings.push('The address has a user name before the host: the site is the host shown, not that name.');
  if (/^\d+(\.\d+){3}$/.test(host) || host.startsWith('[')) warnings.push('The host is a bare IP address, not a name.');
  if (url.protocol === 'http:' && !isLoopback(host)) warnings.push('The address is not encrypted (http, not https).');
  // The host as written in the agent's text, so that what is highlighted is what the user reads.
  const at = hostIndex(raw, url);
  if (at === undefined) return { before: url.href, host: '', after: '', warnings: [...warnings, 'Reins could not find the host in the address.'] };
  return { before: raw.slice(0, at.start), host: raw.slice(at.start, at.end), after: raw.slice(at.end), warnings };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

/** Where the host stands in `raw`: after the scheme's `//` and any `user@`, up to the port, path, query or fragment. */
function hostIndex(raw: string, url: URL): { start: number; end: number } | undefined {
  const slashes = raw.indexOf('//');
  if (slashes < 0) return undefined;
  let start = slashes + 2;
  const authorityEnd = raw.slice(start).search(/[/?#]/);
  const authority = authorityEnd < 0 ? raw.slice(start) : raw.slice(start, start + authorityEnd);
  const atSign = authority.lastIndexOf('@');
  if (atSign >= 0) start += atSign + 1;
  const rest = raw.slice(start);
  const length = rest.startsWith('[') ? rest.indexOf(']') + 1 : rest.search(/[:/?#]|$/);
  if (length <= 0) return undefined;
  // A host written in Unicode is shown as written; its ASCII form must still be the URL's host.
  const written = rest.slice(0, length);
  let same: boolean;
  try {
    same = new URL(`${url.protocol}//${written}`).hostname === url.hostname;
  } catch {
    same = false;
  }
  return same ? { start, end: start + length } : undefined;
}
