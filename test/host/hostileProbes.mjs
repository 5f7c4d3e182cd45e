// The hostile smoke's probes for the diffs and the agent's name (test/host/hostileSmoke.mjs has
// the rest). Each returns a list of problems, empty when everything held; the smoke throws them.

/** Bidi controls and zero-width characters that must show as markers (invisibleChars.ts), never raw. */
const CONTROLS = '[\\u202A-\\u202E\\u2066-\\u2069\\u200B]';

/**
 * Every payload `i` as the path and both sides of the two diffs of tool card `hostile-i`
 * (placements.mjs): both diffs drawn inline, each side's text after the payload shown, the
 * path's end shown on its file link and in Open Diff's tooltip, no raw bidi or zero-width
 * character left in a diff. Elements and handlers are the transcript-wide probe's.
 */
export function checkDiffs(frame, count) {
  return frame.evaluate(
    ({ count, controls }) => {
      const out = [];
      const raw = new RegExp(controls);
      for (let i = 0; i < count; i++) {
        const diffs = [...document.querySelectorAll(`.entry.tool[data-id="hostile-${i}"] .tool-diff`)];
        if (diffs.length !== 2) {
          out.push(`${i}: ${diffs.length} diffs drawn, want 2`);
          continue;
        }
        const want = [`DIFF-OLD-END-${i}`, `DIFF-NEW-END-${i}`];
        diffs.forEach((d, side) => {
          const lines = d.querySelector('.tool-diff-lines')?.textContent ?? '(no inline rows)';
          if (!lines.includes(want[side])) out.push(`${i}: ${want[side]} not shown (${JSON.stringify(lines.slice(-80))})`);
          const file = d.querySelector('.tool-file')?.textContent ?? '(no file link)';
          if (!file.includes(`PATH-END-${i}`)) out.push(`${i}: the file link shows ${JSON.stringify(file.slice(-80))}`);
          const open = d.querySelector('.open-diff');
          if (!open?.title.includes(`PATH-END-${i}`)) out.push(`${i}: Open Diff's tooltip is ${JSON.stringify(open?.title.slice(-80))}`);
          if (raw.test(d.textContent)) out.push(`${i}: a raw bidi or zero-width character in diff ${side}`);
        });
      }
      return out;
    },
    { count, controls: CONTROLS },
  );
}

/**
 * The agent's (hostile) name where the panel shows it, as text: each element holds the name's
 * characters (markup, `$(zap)`, the link) as text, no element of its own but the markers, no
 * raw bidi or zero-width character, the override shown as a marker; in the header and the empty
 * state isolated from what surrounds it. `places`: [what, selector, attribute?].
 */
export function checkAgentName(frame, token, places) {
  return frame.evaluate(
    ({ token, places, controls }) => {
      const out = [];
      const raw = new RegExp(controls);
      for (const [what, selector, attribute] of places) {
        const e = document.querySelector(selector);
        if (!e) {
          out.push(`${what}: ${selector} not found`);
          continue;
        }
        const text = attribute ? (e.getAttribute(attribute) ?? '') : e.textContent;
        const shown = JSON.stringify(text.slice(0, 160));
        if (!text.includes(token)) out.push(`${what}: the name is not shown (${shown})`);
        for (const part of ['<img src=x onerror=', '$(zap)', '[run](command:', '<b>b</b>'])
          if (!text.includes(part)) out.push(`${what}: "${part}" is not shown as text (${shown})`);
        if (raw.test(text)) out.push(`${what}: a raw bidi or zero-width character (${shown})`);
        if (!text.includes('⟨RLO⟩')) out.push(`${what}: no ⟨RLO⟩ marker (${shown})`);
        if (attribute) continue;
        // Allowed: the markers, and a span that isolates the name (agentText's).
        const allowed = (c) => (c.classList.contains('invisible-char') && c.childElementCount === 0) || (c.tagName === 'SPAN' && c.hasAttribute('dir'));
        const strange = [...e.querySelectorAll('*')].filter((c) => !allowed(c));
        if (strange.length) out.push(`${what}: elements ${strange.map((c) => `<${c.tagName.toLowerCase()}>`).join(', ')}`);
        const marker = e.querySelector('.invisible-char');
        const holder = marker?.closest('[dir]');
        if (what !== 'status line' && (!holder || window.getComputedStyle(holder).unicodeBidi !== 'isolate')) out.push(`${what}: the name is not isolated`);
      }
      return out;
    },
    { token, places, controls: CONTROLS },
  );
}

/**
 * The workbench's status bar item: the name as text, not a codicon (`$(zap)` drawn as an icon)
 * or markup; bidi and zero-width characters not raw.
 */
export async function checkStatusBar(page, token) {
  const item = page.locator('.part.statusbar .statusbar-item', { hasText: token }).first();
  await item.waitFor({ timeout: 30_000 });
  return item.evaluate((e) => {
    const out = [];
    const text = e.textContent;
    const shown = JSON.stringify(text.slice(0, 160));
    if (e.querySelector('.codicon-zap')) out.push(`the name's $(zap) is drawn as an icon (${shown})`);
    if (!text.includes('$(zap)')) out.push(`"$(zap)" is not shown as text (${shown})`);
    if (!text.includes('<img src=x onerror=')) out.push(`the markup is not shown as text (${shown})`);
    if (e.querySelector('img, b, script')) out.push('an element from the name');
    if (/[\u202A-\u202E\u2066-\u2069\u200B]/.test(text)) out.push(`a raw bidi or zero-width character (${shown})`);
    return out;
  });
}
