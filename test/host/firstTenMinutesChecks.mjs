// What the first-ten-minutes walk (firstTenMinutesSmoke.mjs) reads off the screen: what a user
// sees at a moment (for failure messages), the header's geometry at a width, the turn's busy
// line as drawn, and the demo folder's files. Nothing here changes what it reads.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const squash = (s, n = 200) => {
  const t = String(s ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

/**
 * The text an element shows, its ::before and ::after content included (innerText leaves those
 * out, and a CSS-added "…" is exactly what made "Working……"). '' when it is not drawn.
 */
export function shownText(frame, selector) {
  return frame
    .evaluate((sel) => {
      const root = document.querySelector(sel);
      if (!root || root.getClientRects().length === 0) return '';
      const pseudo = (e, p) => {
        const c = window.getComputedStyle(e, p).content;
        return c && c !== 'none' && c !== 'normal' ? c.replace(/^"(.*)"$/, '$1') : '';
      };
      const walk = (node) => {
        if (node.nodeType === window.Node.TEXT_NODE) return node.textContent;
        if (node.nodeType !== window.Node.ELEMENT_NODE || node.getClientRects().length === 0) return '';
        return pseudo(node, '::before') + [...node.childNodes].map(walk).join('') + pseudo(node, '::after');
      };
      return walk(root).replace(/\s+/g, ' ').trim();
    }, selector)
    .catch(() => '');
}

/** A doubled ellipsis as drawn ("Working……", "Starting…..."). */
export const DOUBLE_ELLIPSIS = /…\s*…|\.\.\.\s*…|…\s*\.\.\./;

/**
 * What a user would have seen at this moment, in a few lines: the Reins view (its welcome, or
 * the panel's header, busy line and last entries), a dialog or picker over the workbench, and
 * the notifications (toasts and the bell). Appended to every failure of the walk.
 */
export async function describeScreen(page, frame) {
  const lines = [];
  const texts = (loc) => loc.allInnerTexts().catch(() => []);
  const aux = page.locator('.part.auxiliarybar');
  if (!(await aux.isVisible().catch(() => false))) lines.push('the secondary side bar: not shown');
  else {
    const title = await texts(aux.locator('.composite.title').filter({ visible: true }));
    const welcome = await texts(aux.locator('.welcome-view-content').filter({ visible: true }));
    const webview = await aux
      .evaluate((a) => {
        const r = a.getBoundingClientRect();
        return [...document.querySelectorAll('iframe.webview.ready')].some((f) => {
          const b = f.getBoundingClientRect();
          return b.width > 0 && b.left >= r.left - 1 && b.right <= r.right + 1;
        });
      })
      .catch(() => false);
    const body = welcome.length ? `its welcome: "${squash(welcome.join(' '), 300)}"` : webview ? 'a conversation' : 'an empty body';
    lines.push(`the secondary side bar: "${squash(title.join(' '))}", ${body}`);
  }
  if (frame) {
    const header = await frame
      .locator('header')
      .first()
      .innerText()
      .catch(() => '?');
    lines.push(`the panel's header: "${squash(header)}"`);
    const busy = await shownText(frame, '#working');
    if (busy) lines.push(`its busy line: "${busy}"`);
    const stop = await frame
      .locator('#stop')
      .isVisible()
      .catch(() => false);
    lines.push(`Stop button: ${stop ? 'shown' : 'not shown'}`);
    const last = await frame
      .evaluate(() =>
        [...document.querySelectorAll('#transcript .entry')]
          .filter((e) => !e.parentElement.closest('.entry'))
          .slice(-4)
          .map((e) => `[${[...e.classList].filter((c) => c !== 'entry').join('.')}] ${e.innerText}`),
      )
      .catch(() => []);
    lines.push(`its last entries:\n    ${last.map((l) => squash(l, 240)).join('\n    ') || '(none)'}`);
  } else lines.push('the panel: not found');
  const dialog = await texts(page.locator('.monaco-dialog-box').filter({ visible: true }));
  if (dialog.length) lines.push(`a dialog: "${squash(dialog.join(' '), 300)}"`);
  const picker = page.locator('.quick-input-widget').filter({ visible: true });
  if (await picker.count()) {
    const rows = await texts(picker.locator('.monaco-list-row'));
    lines.push(
      `a picker: "${squash(
        await picker
          .locator('.quick-input-title')
          .innerText()
          .catch(() => ''),
      )}", rows: ${rows
        .slice(0, 8)
        .map((r) => `"${squash(r, 80)}"`)
        .join(', ')}`,
    );
  }
  const toasts = await texts(page.locator('.notifications-toasts .notification-list-item-message'));
  if (toasts.length) lines.push(`notifications: ${toasts.map((t) => `"${squash(t)}"`).join(', ')}`);
  const bell = await page
    .locator('.statusbar-item[id$="notifications.bell"] a, .statusbar-item[id*="notifications"] a')
    .first()
    .getAttribute('aria-label')
    .catch(() => null);
  if (bell) lines.push(`the bell: "${bell}"`);
  return lines.map((l) => `  ${l}`).join('\n');
}

/**
 * The header's geometry as drawn: every visible leaf (a text or an icon) with the part of it
 * that is visible (clipped by each ancestor that clips); then which leaves overlap, which are
 * cut without an ellipsis or without the whole text as a tooltip, and whether the agent's name
 * and the state line are whole. Read in the webview, in CSS pixels.
 */
export function headerGeometry(frame) {
  return frame.evaluate(() => {
    const header = document.querySelector('header');
    if (!header) return { error: 'no header in the panel' };
    const hb = header.getBoundingClientRect();
    const leaves = [];
    const describe = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')}`;
    const clipsX = (e) => ['hidden', 'clip', 'auto', 'scroll'].includes(window.getComputedStyle(e).overflowX);
    for (const e of header.querySelectorAll('*')) {
      if (e.getClientRects().length === 0) continue;
      const cs = window.getComputedStyle(e);
      if (cs.visibility !== 'visible' || Number(cs.opacity) === 0) continue;
      const icon = e.classList.contains('codicon') || e.tagName === 'svg';
      const ownText = [...e.childNodes]
        .filter((n) => n.nodeType === window.Node.TEXT_NODE)
        .map((n) => n.textContent)
        .join('')
        .trim();
      if (!icon && !ownText) continue;
      if (e.closest('svg') && e.tagName !== 'svg') continue;
      // The text's own extent (a nowrap text can run past its box), or the icon's box.
      let rect;
      if (icon) rect = e.getBoundingClientRect();
      else {
        const range = document.createRange();
        range.selectNodeContents(e);
        rect = range.getBoundingClientRect();
      }
      // Not drawn for the eye: the 1-px live region screen readers hear (its text runs past its box).
      const box = e.getBoundingClientRect();
      if (rect.width < 1 || rect.height < 1 || box.width <= 1 || box.height <= 1) continue;
      // What is left of it after every clipping box from itself up to the header (and the page).
      let vis = { l: rect.left, t: rect.top, r: rect.right, b: rect.bottom };
      let cutBy;
      for (let a = e; a; a = a.parentElement) {
        if (a === e && icon) continue;
        if (a !== document.documentElement && !clipsX(a)) continue;
        const ab = a === document.documentElement ? { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight } : a.getBoundingClientRect();
        const next = { l: Math.max(vis.l, ab.left), t: Math.max(vis.t, ab.top), r: Math.min(vis.r, ab.right), b: Math.min(vis.b, ab.bottom) };
        if (!cutBy && next.r - next.l < vis.r - vis.l - 1) cutBy = a;
        vis = next;
      }
      const text = icon ? '' : e.textContent.replace(/\s+/g, ' ').trim();
      let tooltip = '';
      for (let a = e; a && a !== header.parentElement; a = a.parentElement) if (a.title) tooltip += ` ${a.title}`;
      leaves.push({
        what: describe(e),
        text,
        icon,
        vis,
        visibleWidth: Math.max(0, vis.r - vis.l),
        cut: !icon && vis.r - vis.l < rect.width - 1,
        ellipsis: cutBy ? window.getComputedStyle(cutBy).textOverflow === 'ellipsis' : false,
        tooltipHasText: tooltip.replace(/\s+/g, ' ').includes(text),
        agent: !!e.closest('#agent-picker') && !icon,
        state: !!e.closest('#status') && !icon,
      });
    }
    const overlaps = [];
    for (let i = 0; i < leaves.length; i++)
      for (let j = i + 1; j < leaves.length; j++) {
        const a = leaves[i].vis;
        const b = leaves[j].vis;
        const w = Math.min(a.r, b.r) - Math.max(a.l, b.l);
        const h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
        if (w > 1 && h > 1)
          overlaps.push(`${leaves[i].what} "${leaves[i].text}" and ${leaves[j].what} "${leaves[j].text}" overlap by ${Math.round(w)}×${Math.round(h)} px`);
      }
    const outside = leaves
      .filter((l) => l.visibleWidth > 0 && (l.vis.l < hb.left - 1 || l.vis.r > hb.right + 1))
      .map((l) => `${l.what} "${l.text}" runs outside the header`);
    const cutBare = leaves.filter((l) => l.cut && l.visibleWidth > 0 && !l.ellipsis).map((l) => `${l.what} "${l.text}" is cut with no ellipsis`);
    const gone = leaves.filter((l) => l.cut && l.visibleWidth === 0).map((l) => `${l.what} "${l.text}" is cut away entirely`);
    const noTip = leaves.filter((l) => l.cut && !l.tooltipHasText).map((l) => `${l.what} "${l.text}" is cut and no tooltip holds its whole text`);
    const agentCut = leaves.filter((l) => l.agent && l.cut).map((l) => `the agent's name "${l.text}" is cut`);
    const stateCut = leaves.filter((l) => l.state && l.cut).map((l) => `the state "${l.text}" is cut`);
    const shown = leaves.map((l) => `${l.icon ? l.what : `"${l.text}"`}${l.cut ? ` (cut to ${Math.round(l.visibleWidth)} px)` : ''}`);
    return {
      width: Math.round(hb.width),
      problems: [...overlaps, ...outside, ...cutBare, ...gone, ...noTip, ...agentCut, ...stateCut],
      shown,
    };
  });
}

/** The folder's files (not .git) by path, each as a hash of its bytes: what a turn or an undo changed. */
export function folderFiles(dir) {
  const out = {};
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile()) out[relative(dir, p)] = createHash('sha1').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** The paths whose files differ between two folderFiles() readings (added, changed, deleted). */
export function changedFiles(before, after) {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((p) => before[p] !== after[p]).sort();
}

/**
 * What the notification centre holds, read as a user would find it (the bell's list opened, then
 * closed again): where an answer went that the panel did not give.
 */
export async function notificationCentre(page, runCommand) {
  await runCommand(page, 'Notifications: Show Notifications');
  const items = page.locator('.notifications-center .notification-list-item-message');
  await items
    .first()
    .waitFor({ timeout: 5_000 })
    .catch(() => {});
  const messages = (await items.allInnerTexts().catch(() => [])).map((m) => squash(m));
  await runCommand(page, 'Notifications: Hide Notifications');
  return messages.length ? messages.map((m) => `"${m}"`).join(', ') : 'nothing';
}
