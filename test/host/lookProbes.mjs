// The look smoke's measurements in the real panel (lookSmoke.mjs drives it): what a person sees,
// read from the laid-out page. Each returns data or a list of problems (empty when all held).

/**
 * The header at the panel's width: its parts' boxes (no two overlap, none outside the header),
 * and each cut text (ellipsis, the whole text in its tooltip); the agent's name and the state
 * must not be cut at all.
 */
export function checkHeader(frame) {
  return frame.evaluate(() => {
    const problems = [];
    const header = document.querySelector('.header');
    const hb = header.getBoundingClientRect();
    const shown = (e) => e.checkVisibility() && e.getBoundingClientRect().width > 0;
    const name = (e) => e.id || [...e.classList].join('.');
    // The leaves a person reads or clicks, in the header's rows.
    const parts = [
      ...header.querySelectorAll(
        '.agent-icon, .agent-name, .agent-picker-chevron, .demo-badge, .agent-note, .folder > .icon, .folder-name, .status-dot, .status-text, .session-chip-label, .session-chip-value, #session-usage',
      ),
    ].filter(shown);
    const boxes = parts.map((e) => ({ e, b: e.getBoundingClientRect() }));
    for (const { e, b } of boxes) {
      if (b.left < hb.left - 0.5 || b.right > hb.right + 0.5)
        problems.push(`${name(e)} lies outside the header (${Math.round(b.left)}–${Math.round(b.right)} of ${Math.round(hb.left)}–${Math.round(hb.right)})`);
    }
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i].b, boxes[j].b];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 0.5 && h > 0.5) problems.push(`${name(boxes[i].e)} and ${name(boxes[j].e)} overlap (${w.toFixed(1)} × ${h.toFixed(1)} px)`);
      }
    const cut = [];
    for (const e of parts) {
      if (e.scrollWidth <= e.clientWidth + 0.5 || e.classList.contains('icon')) continue;
      const text = e.textContent.trim();
      cut.push(`${name(e)}: ${JSON.stringify(text)}`);
      if (window.getComputedStyle(e).textOverflow !== 'ellipsis') problems.push(`${name(e)} is cut without an ellipsis: ${JSON.stringify(text)}`);
      const tip = e.closest('[title]')?.getAttribute('title') ?? '';
      if (!tip.includes(text)) problems.push(`${name(e)} is cut and its tooltip ${JSON.stringify(tip)} lacks its text ${JSON.stringify(text)}`);
      if (e.matches('.agent-name, .status-text')) problems.push(`${name(e)} is cut: ${JSON.stringify(text)} (the agent and the state must stay readable)`);
    }
    if (!parts.some((e) => e.matches('.agent-name'))) problems.push('the agent name is not shown');
    if (!parts.some((e) => e.matches('.status-text'))) problems.push('the state is not shown');
    return { problems, cut, width: window.innerWidth, parts: parts.length };
  });
}

/** What the panel says while busy (#working) and in the header (#status), as drawn: generated text (::before, ::after) included. */
export function statusTexts(frame) {
  return frame.evaluate(() => {
    const drawn = (e) => {
      if (!e || !e.checkVisibility()) return undefined;
      const pseudo = (which) => {
        const c = window.getComputedStyle(e, which).content;
        return c && c !== 'none' && c !== 'normal' ? c.replace(/^"|"$/g, '') : '';
      };
      return `${pseudo('::before')}${e.textContent}${pseudo('::after')}`.trim();
    };
    const working = document.querySelector('#working');
    return {
      working: working && !working.hidden ? drawn(working.querySelector('.working-text')) : undefined,
      status: drawn(document.querySelector('#status .status-text')),
    };
  });
}

/**
 * Samples what each frame draws, from now until stopFrames(): the DOM as it stands after the
 * frame's animation callbacks and layout (a ResizeObserver on a probe resized every frame runs
 * then, before paint). Records too each message the panel receives from the host (a listener of
 * ours after the panel's: it only looks), with what it carries.
 */
export function startFrames(frame) {
  return frame.evaluate(() => {
    const frames = [];
    const messages = [];
    const probe = document.createElement('div');
    probe.setAttribute('aria-hidden', 'true');
    Object.assign(probe.style, { position: 'fixed', left: '0', top: '0', height: '1px', width: '1px', opacity: '0', pointerEvents: 'none' });
    document.body.append(probe);
    const shown = (sel) => {
      const e = document.querySelector(sel);
      return e && e.checkVisibility() ? e.textContent.trim() : undefined;
    };
    const observer = new window.ResizeObserver(() =>
      frames.push({
        at: performance.now(),
        notices: [...document.querySelectorAll('.entry.notice')].filter((n) => /^Stopped —/.test(n.textContent.trim())).length,
        stop: document.querySelector('#stop')?.checkVisibility() ?? false,
        working: shown('#working .working-text'),
        status: shown('#status .status-text'),
      }),
    );
    observer.observe(probe);
    let tick = 0;
    let running = true;
    const loop = () => {
      probe.style.width = `${1 + (tick++ % 2)}px`;
      if (running) window.requestAnimationFrame(loop);
    };
    window.requestAnimationFrame(loop);
    // What one message carries: a stop's notice, the status's turn.
    const parts = (data) => (data?.type === 'batch' ? data.messages : [data]);
    const look = (event) =>
      messages.push(
        parts(event.data).map((m) =>
          m?.type === 'upsert' && m.entry?.kind === 'notice' && /^Stopped —/.test(m.entry.text)
            ? 'stop notice'
            : m?.type === 'status'
              ? `status ${m.status.turn}${m.status.canStop ? ' with Stop' : ''}`
              : String(m?.type),
        ),
      );
    window.addEventListener('message', look);
    window.__reinsFrames = {
      stop() {
        running = false;
        observer.disconnect();
        probe.remove();
        window.removeEventListener('message', look);
        return { frames, messages };
      },
    };
  });
}

/** The frames sampled and the messages received since startFrames(): { frames, messages }. */
export function stopFrames(frame) {
  return frame.evaluate(() => window.__reinsFrames.stop());
}

/** The frames that showed a stop's notice beside a stopping state (Stop, or "Stopping…"), after `before` notices. */
export function twoStates(frames, before) {
  return frames.filter((f) => f.notices > before && (f.stop || /Stopping/.test(f.working ?? '') || /Stopping/.test(f.status ?? '')));
}

/** Each wide code block: its content's width, its box's, and the height of its sideways scrollbar. */
export function codeBlocks(frame) {
  return frame.evaluate(() =>
    [...document.querySelectorAll('.code-block pre')].map((pre) => {
      const style = window.getComputedStyle(pre);
      const borders = parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
      return { content: pre.scrollWidth, box: pre.clientWidth, scrollbar: pre.offsetHeight - pre.clientHeight - borders };
    }),
  );
}

/** File links broken inside a name: each line of a link but its last must end with a separator (`/`, `\\`). */
export function brokenPaths(frame) {
  return frame.evaluate(() => {
    const problems = [];
    for (const link of document.querySelectorAll('.tool-file, .tool-location, .files-path')) {
      if (!link.checkVisibility()) continue;
      // The link's text line by line, as laid out: each character's box says its line.
      const lines = [];
      let top;
      const walker = document.createTreeWalker(link, window.NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text; text = walker.nextNode())
        for (let i = 0; i < text.length; i++) {
          const range = document.createRange();
          range.setStart(text, i);
          range.setEnd(text, i + 1);
          const box = range.getClientRects()[0];
          if (!box) continue;
          if (top === undefined || Math.abs(box.top - top) > 2) lines.push('');
          top = box.top;
          lines[lines.length - 1] += text.data[i];
        }
      const broken = lines.slice(0, -1).find((line) => !/[/\\]$/.test(line));
      if (broken !== undefined) problems.push(`${JSON.stringify(link.textContent)} breaks after ${JSON.stringify(broken)} (lines ${JSON.stringify(lines)})`);
    }
    return problems;
  });
}
