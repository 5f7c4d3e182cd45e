// The webview's bundle and stylesheet written into its page rather than named by it
// (panelHtml.ts says why): what makes a file's text safe and correct inside a <script> or <style>
// element of another document. Pure: no `vscode`.

/**
 * A script's text for an inline <script>. The HTML parser ends the element at the first
 * `</script`, and after `<!--` a `<script` would keep it open past its end tag; the bundle has
 * `<!--` in markdown-it's HTML patterns. `\x3C` is `<` wherever these can stand in JavaScript (a
 * string, a template, a regular expression, a comment). The source map is named by its absolute
 * address: a relative one would be read against the page's.
 */
export function inlineScript(text: string, base: string): string {
  return sourceMapAt(text.replace(/<(\/?script|!--)/gi, '\\x3C$1'), base);
}

/**
 * A stylesheet's text for an inline <style>: `</style` escaped; each relative url() is what
 * `embed` gives for its file (a data: address), else made absolute.
 */
export function inlineStyles(text: string, base: string, embed: (file: string) => string | undefined = () => undefined): string {
  const rebased = text.replace(
    /url\(\s*(['"]?)(?![a-z][a-z0-9+.-]*:|\/|#)(?:\.\/)?([^'")\s]*)/gi,
    (_m, quote: string, file: string) => `url(${quote}${embed(file.replace(/[?#].*$/, '')) ?? `${base}/${file}`}`,
  );
  return sourceMapAt(rebased.replace(/<\/style/gi, '\\3C/style'), base);
}

function sourceMapAt(text: string, base: string): string {
  return text.replace(/([/*]# sourceMappingURL=)(?![a-z][a-z0-9+.-]*:)([^\s*]+)/g, (_m, mark: string, file: string) => `${mark}${base}/${file}`);
}
