// The webview's bundle and stylesheet are written into its page (src/panel/panelHtml.ts): the
// HTML parser must not end their elements early, and the text must mean what the file meant.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { inlineScript, inlineStyles } from '../../src/panel/inlineAssets';

const repo = path.resolve(__dirname, '../../..');
const BASE = 'https://file+.vscode-resource.vscode-cdn.net/ext/dist';
/** What would end an inline <script> early, or (after `<!--`) keep it open past its end tag. */
const UNSAFE_IN_SCRIPT = /<\/script|<!--|<script/i;

describe('inline assets (the panel page)', () => {
  // Sabotage (inlineScript without its `\x3C` replacement), this test printed:
  //   AssertionError [ERR_ASSERTION]: dist/webview.js inline holds "<!--"
  it('the built bundle, inline, holds nothing that ends or reopens a <script>, and still compiles', () => {
    const text = inlineScript(readFileSync(path.join(repo, 'dist', 'webview.js'), 'utf8'), BASE);
    const unsafe = UNSAFE_IN_SCRIPT.exec(text);
    assert.equal(unsafe, null, `dist/webview.js inline holds ${JSON.stringify(unsafe?.[0])}`);
    assert.doesNotThrow(() => new vm.Script(text), 'the inline bundle no longer parses'); // compiled, not run
    assert.match(text, new RegExp(`//# sourceMappingURL=${BASE.replace(/[.+]/g, '\\$&')}/webview\\.js\\.map\\s*$`));
  });

  it('keeps what strings, templates and regular expressions say', () => {
    const source = 'return ["</script>", `<!--x-->`, /^<!--/.test("<!--y"), "<SCRIPT src>"];';
    const inline = inlineScript(source, BASE);
    assert.equal(UNSAFE_IN_SCRIPT.exec(inline), null);
    const run = (code: string): string => JSON.stringify(vm.runInNewContext(`(() => { ${code} })()`));
    assert.equal(run(inline), run(source));
  });

  it('a stylesheet: `</style` escaped, the icon font and the source map at their absolute addresses', () => {
    const css =
      'a::after{content:"</style>"} @font-face{src:url("./codicon.ttf?abc") format("truetype")} b{background:url(data:image/png;base64,xx)}\n/*# sourceMappingURL=webview.css.map */';
    const inline = inlineStyles(css, BASE);
    assert.ok(!/<\/style/i.test(inline), inline);
    assert.ok(inline.includes(`url("${BASE}/codicon.ttf?abc")`), inline);
    assert.ok(inline.includes('url(data:image/png;base64,xx)'), 'a data: address stays as it is');
    assert.ok(inline.includes(`/*# sourceMappingURL=${BASE}/webview.css.map */`), inline);
  });

  it('a file `embed` gives is written in (the icon font as a data: address); the others are named absolutely', () => {
    const css = '@font-face{src:url("./codicon.ttf?abc") format("truetype")} i{background:url(./dot.png)}';
    const inline = inlineStyles(css, BASE, (file) => (file === 'codicon.ttf' ? 'data:font/ttf;base64,AAEC' : undefined));
    assert.ok(inline.includes('url("data:font/ttf;base64,AAEC")'), inline);
    assert.ok(inline.includes(`url(${BASE}/dot.png)`), inline);
  });

  it('the built stylesheet, inline, names no file relative to the page', () => {
    const inline = inlineStyles(readFileSync(path.join(repo, 'dist', 'webview.css'), 'utf8'), BASE);
    const urls = [...inline.matchAll(/url\(\s*['"]?([^'")]*)/g)].map((m) => m[1] ?? '');
    assert.ok(urls.length > 0, 'the stylesheet names its icon font');
    for (const url of urls) assert.ok(url.startsWith(`${BASE}/`) || url.startsWith('data:'), url);
  });
});
