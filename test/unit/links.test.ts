// Links in agent text: the real target shown where the text reads as another address or
// hides characters (media/webview/linkTarget.ts, through markdown.ts), and the host's check
// of what the webview asks it to open (src/panel/linkCheck.ts).
import * as assert from 'node:assert/strict';
import { renderMarkdown } from '../../media/webview/markdown';
import { misleadingLinkTarget } from '../../media/webview/linkTarget';
import { checkLink } from '../../src/panel/linkCheck';

describe('links in agent text', () => {
  it('shows the real target when the text names another address', () => {
    // Sabotage: with misleadingLinkTarget returning undefined always, this printed
    // "AssertionError: The input did not match the regular expression /md-link-target/".
    const html = renderMarkdown('[https://trusted.example/login](https://evil.example/login)');
    assert.match(html, /md-link-target/);
    assert.match(html, /\(https:\/\/evil\.example\/login\)<\/span>/);
  });

  it('shows it for bidi and zero-width tricks and punycode hosts', () => {
    assert.equal(misleadingLinkTarget('https://exa\u200Bmple.com', 'https://evil.example/'), 'https://evil.example/');
    assert.equal(misleadingLinkTarget('click \u202Emoc.elpmaxe', 'https://evil.example/'), 'https://evil.example/');
    assert.equal(misleadingLinkTarget('https://аpple.com', 'https://xn--pple-43d.com'), 'https://xn--pple-43d.com');
    assert.match(renderMarkdown('https://\u0430pple.com/'), /md-link-target[^>]*>\(https:\/\/xn--pple-43d\.com\/\)/);
  });

  it('shows it when the scheme, path or mail address differs', () => {
    assert.ok(misleadingLinkTarget('http://site.example/a', 'https://site.example/a'));
    assert.ok(misleadingLinkTarget('site.example/docs', 'https://site.example/admin'));
    assert.ok(misleadingLinkTarget('help@site.example', 'mailto:attacker@evil.example'));
  });

  it('leaves honest links alone', () => {
    assert.equal(misleadingLinkTarget('the docs', 'https://docs.example/'), undefined);
    assert.equal(misleadingLinkTarget('https://docs.example/a/', 'https://docs.example/a'), undefined);
    assert.equal(misleadingLinkTarget('docs.example/page', 'https://docs.example/page'), undefined);
    assert.equal(misleadingLinkTarget('me@site.example', 'mailto:me@site.example'), undefined);
    assert.doesNotMatch(renderMarkdown('See https://docs.example/a?b=1 and [the docs](https://docs.example/).'), /md-link-target/);
    assert.doesNotMatch(renderMarkdown('<https://docs.example/ä>'), /md-link-target/);
  });

  it('the host opens only absolute web and mail links', () => {
    // Sabotage: with the scheme check removed, this printed "AssertionError: javascript:alert(1)".
    assert.deepEqual(checkLink('https://example.com/a?b#c'), { ok: true, url: 'https://example.com/a?b#c' });
    assert.equal(checkLink('mailto:a@b.example').ok, true);
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,<script>x</script>',
      'file:///etc/passwd',
      'command:workbench.action.quit',
      'vscode://x',
      '/relative',
      'not a url',
    ]) {
      assert.equal(checkLink(bad).ok, false, bad);
    }
    assert.equal(checkLink(42).ok, false);
    assert.equal(checkLink(`https://example.com/${'a'.repeat(9000)}`).ok, false);
  });
});
