// Contrast of the real panel's text (WCAG 2.x, level AA): every visible text of the webview, its
// computed colour against its effective background (the backgrounds of its ancestors laid over
// the workbench's, their opacity taken in), at least 4.5:1, or 3:1 for large text (24 px, or
// 18.66 px bold). The pure parts are here for the unit test (test/unit/themeColours.test.ts);
// the page's part (`textContrast`) is sent into the webview's frame as source, with them.
//
// What it leaves out, as WCAG does: disabled controls, text hidden from sight (a screen reader's
// only, a folded detail, a group the browser skips), and icons (codicon glyphs are no text).

/** WCAG's relative luminance of an sRGB colour, channels 0–255. */
export function luminance([r, g, b]) {
  const lin = (c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG's contrast ratio of two opaque colours, 1 to 21. */
export function contrastRatio(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** `top` ([r, g, b, alpha]) laid over the opaque `bottom` ([r, g, b]): the opaque colour seen. */
export function over([r, g, b, a], bottom) {
  return [r * a + bottom[0] * (1 - a), g * a + bottom[1] * (1 - a), b * a + bottom[2] * (1 - a)];
}

/** The ratio a text needs: 3 when large (24 px, or 18.66 px from weight 700), else 4.5. */
export function requiredRatio(fontSizePx, fontWeight) {
  return fontSizePx >= 24 || (fontSizePx >= 18.66 && fontWeight >= 700) ? 3 : 4.5;
}

/**
 * In the page: every visible text's contrast. `base`: the workbench's colour under the webview
 * ([r, g, b]). Returns rows { where, text, colour, background, ratio, required }.
 */
export function textContrast(base) {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  // Any CSS colour (rgb(), color(srgb …) from color-mix, a keyword) as [r, g, b, alpha].
  const rgba = (css) => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = 'rgba(0, 0, 0, 0)';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
    return [r, g, b, a / 255];
  };
  const chain = (e) => {
    const list = [];
    for (let n = e; n; n = n.parentElement) list.unshift(n);
    return list;
  };
  const background = (e) => chain(e).reduce((under, n) => over(rgba(window.getComputedStyle(n).backgroundColor), under), base);
  const opacity = (e) => chain(e).reduce((o, n) => o * Number(window.getComputedStyle(n).opacity), 1);
  const where = (e) =>
    chain(e)
      .slice(-3)
      .map((n) => n.tagName.toLowerCase() + (n.id ? `#${n.id}` : '') + [...n.classList].map((c) => `.${c}`).join(''))
      .join(' > ');
  const hidden = (e) => {
    if (!e.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true })) return true;
    if (e.closest('.visually-hidden')) return true;
    const box = e.getBoundingClientRect();
    return box.width < 2 || box.height < 2;
  };
  const disabled = (e) => e.closest(':disabled, [aria-disabled="true"]') !== null;
  const row = (e, text, colour) => {
    const style = window.getComputedStyle(e);
    const bg = background(e);
    const [r, g, b, a] = rgba(colour);
    const seen = over([r, g, b, a * opacity(e)], bg);
    const ratio = contrastRatio(seen, bg);
    const round = (c) => `rgb(${c.map((x) => Math.round(x)).join(', ')})`;
    return {
      where: where(e),
      text: text.trim().replace(/\s+/g, ' ').slice(0, 50),
      colour: round(seen),
      background: round(bg),
      ratio: Math.round(ratio * 100) / 100,
      required: requiredRatio(parseFloat(style.fontSize), Number(style.fontWeight)),
    };
  };
  const rows = [];
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, window.NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!e || seen.has(e) || !node.nodeValue.trim() || ['SCRIPT', 'STYLE'].includes(e.tagName)) continue;
    seen.add(e);
    if (hidden(e) || disabled(e)) continue;
    rows.push(row(e, e.textContent, window.getComputedStyle(e).color));
  }
  // A prompt box's placeholder is text the user reads (what Enter does).
  for (const box of document.querySelectorAll('textarea, input')) {
    if (box.value || !box.placeholder || hidden(box) || disabled(box)) continue;
    rows.push(row(box, `[placeholder] ${box.placeholder}`, window.getComputedStyle(box, '::placeholder').color));
  }
  return rows;
}

/** The source that runs textContrast(base) in a page (with the helpers it uses). */
export function contrastScript(base) {
  const helpers = [luminance, contrastRatio, over, requiredRatio, textContrast].map(String).join('\n');
  return `(() => {\n${helpers}\nreturn textContrast(${JSON.stringify(base)});\n})()`;
}

/** The opaque colour under a webview: the nearest background that is not transparent from `selector` up, in the workbench. */
export async function workbenchBackground(page, selector) {
  const css = await page
    .locator(selector)
    .first()
    .evaluate((e) => {
      for (let n = e; n; n = n.parentElement) {
        const c = window.getComputedStyle(n).backgroundColor;
        if (c && c !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(c)) return c;
      }
      return 'rgb(255, 255, 255)';
    });
  const [r, g, b, a = 1] = css.match(/[\d.]+/g).map(Number);
  return over([r, g, b, a], [255, 255, 255]);
}

/**
 * Every visible text of `frame` measured over `selector`'s background in the workbench (`page`).
 * Returns { rows, failing }: failing are those below what they need.
 */
export async function measureContrast(page, frame, selector) {
  const base = await workbenchBackground(page, selector);
  const rows = await frame.evaluate(contrastScript(base));
  return { base, rows, failing: rows.filter((r) => r.ratio < r.required) };
}
