// The entry point of dist/highlight.js, the webview's second bundle: highlight.js core with the
// languages agents write most, registered here (not the whole library: nothing is fetched but
// this bundle). Apart from the main bundle so that the panel's first paint does not wait for it
// to load and compile (highlight.ts loads it after that paint). Pure (no DOM): the unit tests
// import it under Node. The colours come from VS Code's theme variables (media/styles/highlight.css).
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import lua from 'highlight.js/lib/languages/lua';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  lua,
  makefile,
  markdown,
  php,
  plaintext,
  python,
  ruby,
  rust,
  shell,
  sql,
  swift,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/**
 * Larger blocks stay plain: highlighting is linear but not free, and one huge block must not
 * hold the webview's frame for long. A copy button still serves them.
 */
const MAX_HIGHLIGHT_CHARS = 100_000;

/**
 * Code as highlighted HTML (highlight.js escapes the text; its spans carry only `hljs-*`
 * classes), or undefined when the language is unknown or the block too large: the caller
 * escapes it as plain text. Languages are named by the fence (`ts`, `py`, `sh` are aliases).
 */
export function highlightCode(code: string, lang: string): string | undefined {
  if (!lang || code.length > MAX_HIGHLIGHT_CHARS || !hljs.getLanguage(lang)) return undefined;
  try {
    return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return undefined; // a grammar that throws on odd input: plain text is the safe fallback
  }
}

// Handed to the main bundle, which set this up before it added this bundle's script (highlight.ts).
(globalThis as { reinsHighlight?: (highlighter: typeof highlightCode) => void }).reinsHighlight?.(highlightCode);
