// The panel looks native in light, dark and high-contrast themes only if every colour comes from
// the theme (issue 10): a colour written into the stylesheet is right in one theme and wrong in
// the others. A literal colour may appear only as the fallback of a VS Code theme variable
// (`var(--vscode-…, #hex)`, for versions that lack the variable) or of one of ours built on them.
// The UI smoke takes the screenshots in each theme (test-results/ui-smoke-theme-*.png) and measures
// every text of the real panel there (test/host/contrast.mjs, whose arithmetic is pinned below).
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { nth } from '../support/helpers';
import { contrastRatio, contrastScript, luminance, over, requiredRatio } from '../host/contrast.mjs';

const stylesDir = path.resolve(__dirname, '../../../media/styles');

const COLOUR = /#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(|\b(?:white|black|red|green|blue|gray|grey|yellow|orange|purple|pink|silver)\b/i;

/** `css` with every `var(--vscode-…)` / `var(--reins-…)` (fallback and all) replaced by VAR. */
function withoutThemeVariables(css: string): string {
  let out = '';
  for (let i = 0; i < css.length;) {
    const at = css.indexOf('var(', i);
    if (at < 0) return out + css.slice(i);
    out += css.slice(i, at);
    let depth = 0;
    let end = at + 3;
    for (; end < css.length; end++) {
      if (css[end] === '(') depth++;
      else if (css[end] === ')' && --depth === 0) break;
    }
    const expression = css.slice(at, end + 1);
    out += /^var\(\s*--(?:vscode|reins)-/.test(expression) ? 'VAR' : expression;
    i = end + 1;
  }
  return out;
}

/** "file: property: value" for each declaration whose value holds a colour of its own. */
function literalColours(file: string, css: string): string[] {
  const found: string[] = [];
  const text = withoutThemeVariables(css.replace(/\/\*[\s\S]*?\*\//g, ''));
  for (const block of text.matchAll(/\{([^{}]*)\}/g)) {
    for (const declaration of nth(block, 1, 'block').split(';')) {
      const colon = declaration.indexOf(':');
      if (colon < 0) continue;
      const value = declaration.slice(colon + 1);
      if (COLOUR.test(value)) found.push(`${file}: ${declaration.trim().replace(/\s+/g, ' ')}`);
    }
  }
  return found;
}

describe('the stylesheet takes its colours from the theme', () => {
  // Sabotage ("color: #fff;" added to .button.primary in buttons.css): this printed
  // "AssertionError [ERR_ASSERTION]: colours not from the theme: buttons.css: color: #fff".
  it('no colour outside a VS Code theme variable (a fallback inside one is allowed)', () => {
    const files = readdirSync(stylesDir).filter((f) => f.endsWith('.css'));
    assert.ok(files.length > 5, `the stylesheets in ${stylesDir}`);
    const found = files.flatMap((f) => literalColours(f, readFileSync(path.join(stylesDir, f), 'utf8')));
    assert.deepEqual(found, [], `colours not from the theme: ${found.join('; ')}`);
  });

  it('finds a literal colour, and allows one as a theme variable fallback', () => {
    assert.deepEqual(literalColours('a.css', '.a { color: rgba(0, 0, 0, 0.5); white-space: nowrap; }'), ['a.css: color: rgba(0, 0, 0, 0.5)']);
    assert.deepEqual(literalColours('a.css', '.a { background: var(--vscode-x, rgba(155, 185, 85, 0.2)); border: 1px solid var(--reins-border); }'), []);
    assert.deepEqual(literalColours('a.css', '.a { color: var(--my-own, #fff); }'), ['a.css: color: var(--my-own, #fff)']);
  });
});

// The arithmetic the host smokes measure the real panel with (WCAG 2.x): the issue's own numbers.
describe('contrast, as the host smokes measure it', () => {
  const round = (x: number) => Math.round(x * 100) / 100;
  // Sabotage (luminance without the sRGB linearisation, `c / 255` as is): "AssertionError
  // [ERR_ASSERTION]: Light Modern's Done pill 1.36 !== 1.88".
  const rows: [string, [number, number, number], [number, number, number], number][] = [
    ["Light Modern's Done pill", [115, 201, 145], [248, 248, 248], 1.88],
    // 2.09:1 as measured, where the background was not yet rounded to whole channels.
    ["Dark Modern's line number on an inserted line", [110, 118, 129], [65, 71, 51], 2.1],
    ['black on white', [0, 0, 0], [255, 255, 255], 21],
    ['the same colour', [128, 128, 128], [128, 128, 128], 1],
  ];
  for (const [what, fg, bg, ratio] of rows) {
    it(`${what}: ${ratio}:1 (either way round)`, () => {
      assert.equal(round(contrastRatio(fg, bg)), ratio, what);
      assert.equal(round(contrastRatio(bg, fg)), ratio, `${what}, reversed`);
    });
  }

  it('luminance: white 1, black 0', () => {
    assert.equal(luminance([255, 255, 255]), 1);
    assert.equal(luminance([0, 0, 0]), 0);
  });

  it('a translucent colour is seen as laid over what is under it', () => {
    assert.deepEqual(over([255, 255, 255, 0.5], [0, 0, 0]), [127.5, 127.5, 127.5]);
    assert.deepEqual(over([10, 20, 30, 1], [200, 200, 200]), [10, 20, 30]);
    assert.deepEqual(over([10, 20, 30, 0], [200, 200, 200]), [200, 200, 200]);
  });

  it('large text needs 3:1 (24 px, or 18.66 px bold), the rest 4.5:1', () => {
    assert.equal(requiredRatio(13, 400), 4.5);
    assert.equal(requiredRatio(24, 400), 3);
    assert.equal(requiredRatio(19, 700), 3);
    assert.equal(requiredRatio(19, 600), 4.5);
  });

  it("the page's script carries every helper it calls", () => {
    const script = contrastScript([1, 2, 3]);
    for (const name of ['luminance', 'contrastRatio', 'over', 'requiredRatio', 'textContrast']) assert.match(script, new RegExp(`function ${name}\\(`));
    assert.match(script, /return textContrast\(\[1,2,3\]\);/);
  });
});
