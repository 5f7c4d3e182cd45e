// Markdown for agent and thought text. Agent output is untrusted, so this is the ONLY
// path by which agent strings reach innerHTML: markdown-it with raw HTML disabled escapes
// everything, and the link rules below keep only web and mail links.
// Pure (no DOM): the unit tests import it under Node.
import MarkdownIt from 'markdown-it';

/** Link targets we let through: anything else (javascript:, data:, file:, command:, vscode:, relative paths) stays text. */
const SAFE_SCHEME = /^(?:https?:|mailto:)/i;

export function isSafeHref(url: string): boolean {
  return SAFE_SCHEME.test(url.trim());
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

// Scheme-less "fuzzy" links turn file names like README.md or main.rs (ccTLDs) into
// bogus http links; agents mention files far more often than bare domains.
md.linkify.set({ fuzzyLink: false });

// markdown-it calls this for [text](url), <autolinks> and linkified URLs alike. A link
// that fails is rendered as its literal source text, which is the safe fallback.
md.validateLink = isSafeHref;

const escapeHtml = md.utils.escapeHtml;

// Images would be remote fetches (blocked by the CSP anyway, and "no remote anything"):
// show the alt text instead of a broken image.
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const alt = self.renderInlineAsText(tokens[idx].children ?? [], options, env);
  return `<span class="md-image-alt" title="image not shown">${escapeHtml(alt || 'image')}</span>`;
};

// Show the real target on hover: the link text may say one thing and point elsewhere.
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx];
  const href = token.attrGet('href');
  if (href) token.attrSet('title', href);
  return self.renderToken(tokens, idx, options);
};

/** A constant (not agent text): the copy icon of fenced code blocks. */
const COPY_ICON =
  '<svg viewBox="0 0 16 16" aria-hidden="true" focusable="false"><path d="M5.5 5.5h8v8h-8z"/><path d="M10.5 5.5v-3h-8v8h3"/></svg>';

// Fenced code gets a small toolbar (language, copy). The copy click is handled by the
// transcript with event delegation; it reads the <code> text, never this HTML.
md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const lang = token.info.trim().split(/\s+/)[0] ?? '';
  const langAttr = lang ? ` class="language-${escapeHtml(lang)}"` : '';
  return (
    '<div class="code-block">' +
    '<div class="code-toolbar">' +
    `<span class="code-lang">${escapeHtml(lang)}</span>` +
    `<button type="button" class="code-copy icon-button" title="Copy" aria-label="Copy code">${COPY_ICON}</button>` +
    '</div>' +
    `<pre><code${langAttr}>${escapeHtml(token.content)}</code></pre>` +
    '</div>\n'
  );
};

/** Markdown source to safe HTML. */
export function renderMarkdown(source: string): string {
  return md.render(source);
}
