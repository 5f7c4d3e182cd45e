// The panel looks native in light, dark and high-contrast themes only if every colour comes from
// the theme (issue 10): a colour written into the stylesheet is right in one theme and wrong in
// the others. A literal colour may appear only as the fallback of a VS Code theme variable
// (`var(--vscode-…, #hex)`, for versions that lack the variable) or of one of ours built on them.
// The UI smoke takes the screenshots in each theme (test-results/ui-smoke-theme-*.png).
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { nth } from '../support/helpers';

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
