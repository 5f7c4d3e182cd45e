// Whether a link's text could make the reader believe it goes somewhere else than it does:
// `[https://trusted.example/…](https://evil.example/…)`, text with bidi or zero-width
// characters, an internationalised domain that reads like a familiar one. Such links show
// their real target beside the text (markdown.ts). Pure: the unit tests import it under Node.

/** Bidi controls, zero-width characters, the soft hyphen and the BOM: invisible or reordering. */
const DECEPTIVE_CHARS = /[\u00AD\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/;

/** Text that reads as an address: a scheme, `www.`, or a dotted host name, optionally with a path. */
const LOOKS_LIKE_URL = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S*$|^[^\s/@]+\.[a-z]{2,}(?:[/:?#]\S*)?$/i;
const LOOKS_LIKE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The target to show beside a link whose text misleads, else undefined. `href` is the
 * normalised target markdown-it put in the attribute (percent-encoded, punycode hosts).
 */
export function misleadingLinkTarget(text: string, href: string): string | undefined {
  if (DECEPTIVE_CHARS.test(text)) return href;
  const target = parse(href);
  // A punycode host reads as a familiar name in the text (аpple.com with a Cyrillic а).
  if (target?.hostname.split('.').some((label) => label.startsWith('xn--'))) return href;
  const shown = text.trim();
  if (LOOKS_LIKE_EMAIL.test(shown)) {
    return target?.protocol === 'mailto:' && sameEmail(shown, target.pathname) ? undefined : href;
  }
  if (!LOOKS_LIKE_URL.test(shown)) return undefined; // ordinary words: the title shows the target
  const claimed = parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(shown) ? shown : `https://${shown}`);
  if (!claimed || !target) return href;
  if (claimed.hostname !== target.hostname) return href;
  // The same host: a different scheme or path is still a different address than the text says.
  const schemeless = !/^[a-z][a-z0-9+.-]*:\/\//i.test(shown);
  if (!schemeless && claimed.protocol !== target.protocol) return href;
  return trimSlash(claimed.pathname + claimed.search + claimed.hash) === trimSlash(target.pathname + target.search + target.hash) ? undefined : href;
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function sameEmail(text: string, path: string): boolean {
  try {
    return decodeURIComponent(path).toLowerCase() === text.toLowerCase();
  } catch {
    return false;
  }
}

function trimSlash(path: string): string {
  return path.replace(/\/+$/, '');
}
