// Markdown for agent and thought text. Agent output is untrusted, so this is the ONLY
// path by which agent strings reach innerHTML: markdown-it with raw HTML disabled escapes
// everything, and the link rules below keep only web and mail links.
// Pure (no DOM): the unit tests import it under Node. The streaming split into finished and
// open blocks is markdownStream.ts; this file is the renderer both use.
import MarkdownIt from 'markdown-it';
import type { Env, Token } from 'markdown-it';
import { highlightCode } from './highlight';
import { misleadingLinkTarget } from './linkTarget';
import { tableCellsKept } from './tableCells';

/** Link targets we let through: anything else (javascript:, data:, file:, command:, vscode:, relative paths) stays text. */
const SAFE_SCHEME = /^(?:https?:|mailto:)/i;

export function isSafeHref(url: string): boolean {
  return SAFE_SCHEME.test(url.trim());
}

/** What a parse or render is told and tells back (markdown-it's `env`). */
export interface RenderEnv extends Env {
  // `references`: link reference definitions, `[label]: url` (markdown-it keeps them here).
  /** The block may still grow: its code is not highlighted yet (finished blocks only). */
  open?: boolean;
  /**
   * Set by the parse: the first line (of the parsed text) that markdown-it dropped because
   * the blocks around it were nested deeper than `maxNesting`. Everything from it on is
   * missing from the tokens and must be shown another way (as text).
   */
  tooDeepLine?: number;
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false }).use(tableCellsKept);

/** markdown-it's nesting limit (its default preset's 100): a list 50 levels deep reaches it. */
export const MAX_NESTING = md.options.maxNesting;

// Past maxNesting markdown-it's block parser skips the rest of the input without a word.
// Note where that happens, so the caller can show the rest as text instead of losing it.
const tokenize = md.block.tokenize.bind(md.block);
md.block.tokenize = (state, startLine, endLine) => {
  if (state.level >= MAX_NESTING) {
    const line = state.skipEmptyLines(startLine);
    const env = state.env as RenderEnv;
    if (line < endLine && (state.sCount[line] ?? -1) >= state.blkIndent && env.tooDeepLine === undefined) env.tooDeepLine = line;
  }
  tokenize(state, startLine, endLine);
};

// Scheme-less "fuzzy" links turn file names like README.md or main.rs (ccTLDs) into
// bogus http links; agents mention files far more often than bare domains.
md.linkify.set({ fuzzyLink: false });

// markdown-it calls this for [text](url), <autolinks> and linkified URLs alike. A link
// that fails is rendered as its literal source text, which is the safe fallback.
md.validateLink = isSafeHref;

const escapeHtml = md.utils.escapeHtml;

// Images would be remote fetches (blocked by the CSP anyway, and "no remote anything"):
// show the alt text instead of a broken image.
// (markdown-it calls each rule with the index of its own token, so `tokens[idx]` is there.)
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const alt = self.renderInlineAsText(tokens[idx]?.children ?? [], options, env);
  return `<span class="md-image-alt" title="image not shown">${escapeHtml(alt || 'image')}</span>`;
};

// Links open through the host (transcript.ts posts `openLink`; VS Code asks about untrusted
// domains). The real target is the title; where the text reads as another address, or hides
// characters, the target is also shown beside the text (linkTarget.ts).
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx];
  const href = token?.attrGet('href');
  if (token && typeof href === 'string' && href) {
    token.attrSet('title', href);
    const close = matchingClose(tokens, idx);
    if (close) close.meta = { shownTarget: misleadingLinkTarget(linkText(tokens, idx, close), href) };
  }
  return self.renderToken(tokens, idx, options);
};

md.renderer.rules.link_close = (tokens, idx, options, _env, self) => {
  const shown = (tokens[idx]?.meta as { shownTarget?: string } | null | undefined)?.shownTarget;
  const after = shown ? `<span class="md-link-target" title="Where this link really goes">(${escapeHtml(shown)})</span>` : '';
  return self.renderToken(tokens, idx, options) + after;
};

function matchingClose(tokens: Token[], open: number): Token | undefined {
  const level = tokens[open]?.level;
  return tokens.slice(open + 1).find((t) => t.type === 'link_close' && t.level === level);
}

function linkText(tokens: Token[], open: number, close: Token): string {
  let text = '';
  for (const token of tokens.slice(open + 1)) {
    if (token === close) break;
    text += token.content;
  }
  return text;
}

/** A constant (not agent text): the copy icon of fenced code blocks (a codicon, as icons.ts makes them). */
const COPY_ICON = '<span class="icon codicon codicon-copy" aria-hidden="true"></span>';

// Fenced code gets a small toolbar (language, copy). The copy click is handled by the
// transcript with event delegation; it reads the <code> text, never this HTML. Code is
// highlighted once its block is finished (never while it streams: it would be redone per frame).
md.renderer.rules.fence = (tokens, idx, _options, env?: RenderEnv) => {
  const token = tokens[idx];
  if (!token) return '';
  const lang = token.info.trim().split(/\s+/)[0] ?? '';
  const highlighted = env?.open ? undefined : highlightCode(token.content, lang.toLowerCase());
  const classes = [lang ? `language-${escapeHtml(lang)}` : '', highlighted !== undefined ? 'hljs' : ''].filter(Boolean).join(' ');
  return (
    '<div class="code-block">' +
    '<div class="code-toolbar">' +
    `<span class="code-lang">${escapeHtml(lang)}</span>` +
    `<button type="button" class="code-copy icon-button" title="Copy" aria-label="Copy code">${COPY_ICON}</button>` +
    '</div>' +
    `<pre><code${classes ? ` class="${classes}"` : ''}>${highlighted ?? escapeHtml(token.content)}</code></pre>` +
    '</div>\n'
  );
};

/** Block tokens of Markdown source; `env` carries references in and `tooDeepLine` out. */
export function parseMarkdown(source: string, env: RenderEnv): Token[] {
  return md.parse(source, env);
}

/** Tokens (whole top-level blocks) to safe HTML. */
export function renderTokens(tokens: Token[], env: RenderEnv): string {
  return md.renderer.render(tokens, md.options, env);
}

/** Said where the rest of a text is shown as plain text (nested past the limit); a constant, not agent text. */
export const TOO_DEEP_NOTE = 'The rest of this text is nested too deeply to show as Markdown; here it is as plain text.';

/**
 * Markdown source to safe HTML, in one go (thoughts; the agent's answer streams:
 * markdownStream.ts). Past the nesting limit the rest is shown as text, as the stream does.
 */
export function renderMarkdown(source: string): string {
  const text = normalizeSource(source);
  const env: RenderEnv = {};
  const tokens = md.parse(text, env);
  const html = md.renderer.render(tokens, md.options, env);
  if (env.tooDeepLine === undefined) return html;
  const rest = text.split('\n').slice(env.tooDeepLine).join('\n');
  return `${html}<p class="md-too-deep">${TOO_DEEP_NOTE}</p><pre class="md-plain">${escapeHtml(rest)}</pre>`;
}

/**
 * Line ends and NULs as markdown-it normalises them, so that its line numbers (`tooDeepLine`,
 * token maps) are lines of this text.
 */
export function normalizeSource(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD');
}
