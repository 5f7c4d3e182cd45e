// Opening a panel in group `long` (longReplay.ts), measured in the webview's own document: first
// paint (the panel's `reins:snapshot-painted` mark) and interactive (the newest entry shown and
// the page answering an evaluation), from the document's start, each the median of a few opens.
// And the floor under both: an empty webview of a bare extension, trivial HTML, in the same host,
// its first frame and a message from its extension host drawn (what any webview costs there).
import { mkdirSync, symlinkSync } from 'node:fs';
import { writeBenchExtension } from './benchExtension';
import * as path from 'node:path';
import { repo } from './agents';
import { median } from './harness';
import { command, type CodeServerLib, type Frame, type Page } from './panelProbe';

/** How often the frame is looked for and its state read: a coarser poll would be measured as the panel's time. */
export const POLL_MS = 20;

export interface Opened {
  frame: Frame;
  firstPaint: number;
  interactive: number;
  /** Where the first paint went: the panel's marks and its bundle's load, ms from the document's start. */
  steps: string;
}

/** The panel's marks (main.ts) and its script's and stylesheet's loads, as `name at` pairs. */
const STEPS = `(() => {
  const at = (n) => { const e = performance.getEntriesByName(n)[0]; return e ? e.startTime.toFixed(0) : '-'; };
  const res = performance.getEntriesByType('resource').filter((r) => /webview\\.(js|css)/.test(r.name)).map((r) => (r.name.endsWith('.js') ? 'js ' : 'css ') + r.startTime.toFixed(0) + '-' + r.responseEnd.toFixed(0));
  return [...res, 'start ' + at('reins:start'), 'received ' + at('reins:snapshot-received'), 'applied ' + at('reins:snapshot-applied'), 'painted ' + at('reins:snapshot-painted')].join(', ');
})()`;

/** performance.now() in the frame once `script` holds there (polled every `everyMs`). */
export async function waitFor(page: Page, frame: Frame, script: string, timeoutMs: number, what: string, everyMs = POLL_MS): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const at = await frame.evaluate<number | false>(`(${script}) && performance.now()`);
    if (at !== false) return at;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await page.waitForTimeout(everyMs);
  }
}

export const lastAgentHas = (marker: string) =>
  `(() => { const e = [...document.querySelectorAll('#transcript .entry.agent')].pop(); return !!e && e.textContent.includes(${JSON.stringify(marker)}); })()`;

/** Closes the panel and opens it again; times from the new webview document's start. */
async function reopen(lib: CodeServerLib, page: Page, marker: string): Promise<Opened> {
  await command(lib, page, 'View: Close All Editors', 60_000);
  await page.waitForTimeout(1_000);
  await command(lib, page, 'Reins: Open Agent Panel', 60_000);
  const frame = await lib.findWebviewFrame(page, '#prompt-input', 120_000, POLL_MS);
  const interactive = await waitFor(page, frame, lastAgentHas(marker), 180_000, 'the newest entry after opening');
  // The mark comes a frame after the snapshot, which may be after the newest entry was seen (a run read NaN).
  await waitFor(page, frame, `performance.getEntriesByName('reins:snapshot-painted').length > 0`, 60_000, 'the first paint mark');
  const firstPaint = await frame.evaluate<number>(`performance.getEntriesByName('reins:snapshot-painted')[0].startTime`);
  const steps = await frame.evaluate<string>(STEPS);
  console.log(`      opened: ${steps}; interactive ${interactive.toFixed(0)}`);
  return { frame, firstPaint, interactive, steps };
}

export interface Opens {
  runs: Opened[];
  firstPaint: number;
  interactive: number;
  /** The last open's frame: the panel as it is now. */
  frame: Frame;
}

/** `n` opens of the panel, their medians (one open is one sample of a machine shared with others). */
export async function reopenMedian(
  lib: CodeServerLib,
  page: Page,
  marker: string,
  n: number,
  traced: (i: number, open: () => Promise<Opened>) => Promise<Opened>,
): Promise<Opens> {
  const runs: Opened[] = [];
  for (let i = 0; i < n; i++) runs.push(await traced(i, () => reopen(lib, page, marker)));
  return { runs, firstPaint: median(runs.map((r) => r.firstPaint)), interactive: median(runs.map((r) => r.interactive)), frame: runs[runs.length - 1]!.frame };
}

export const runsOf = (o: Opens, key: 'firstPaint' | 'interactive') => o.runs.map((r) => r[key].toFixed(0)).join(' / ');

const FLOOR_COMMAND = 'Reins Bench: Open Empty Webview';
export const HEAP_COMMAND = 'Reins Bench: Collect the Extension Host Heap';
/** Where HEAP_COMMAND writes what it measured (a JSON object of process.memoryUsage() fields and `at`). */
export const hostHeapFile = (scratch: string) => path.join(scratch, 'host-heap.json');

/**
 * The extensions the workbench loads: Reins (a link to this checkout) and the floor, a bare
 * extension whose command opens a webview of trivial HTML (one inline script, no resources). Its
 * script marks its first frame, says `ready`, and draws what its extension host answers, then
 * marks that frame too: the same steps as the panel's first paint, without the panel. Its bare
 * textarea (the panel's input box's id, so that the same keys are typed the same way) is the
 * floor under the typing rows: what any webview's input gets in that host.
 *
 * With `agent`, Enter in that textarea also streams: the floor's extension host is the least an
 * ACP client does (the same agent started, initialize, session/new, session/prompt; the text of
 * its message chunks posted to the page once a frame), and the page appends what came to a plain
 * text block once an animation frame and keeps its end in view. Keys typed meanwhile are the floor
 * under typing while streaming; its frames (the bench's probe, which watches `#transcript`) the
 * floor under the frame gaps.
 */
export function benchExtensions(scratch: string, agent?: { command: string; args: string[] }): string {
  const dir = path.join(scratch, 'extensions');
  const floor = path.join(dir, 'floor');
  mkdirSync(dir, { recursive: true });
  symlinkSync(repo, path.join(dir, 'reins'), 'dir');
  const html = `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-floor'; style-src 'nonce-floor'"><title>floor</title>
<style nonce="floor">#stream { height: 70vh; overflow-y: auto; white-space: pre-wrap; }</style></head>
<body><div id="floor">empty</div><div id="transcript"><div id="stream"></div></div><textarea id="prompt-input" rows="1"></textarea><script nonce="floor">
const api = acquireVsCodeApi();
const painted = (name) => requestAnimationFrame(() => setTimeout(() => performance.mark(name), 0));
painted('floor:first-frame');
const stream = document.getElementById('stream');
const input = document.getElementById('prompt-input');
let pending = '', done = 0;
// What came since the last frame, drawn once in the next (as Reins draws its stream): one append
// and one scroll a frame, not one a message.
const draw = () => {
  if (pending) { stream.append(pending); pending = ''; stream.scrollTop = stream.scrollHeight; }
  if (done) { stream.dataset.done = String(Number(stream.dataset.done || 0) + done); done = 0; }
};
window.addEventListener('message', (e) => {
  const d = e.data;
  if ((d.append !== undefined || d.done) && !pending && !done) requestAnimationFrame(draw);
  if (d.append !== undefined) pending += d.append;
  if (d.done) done++;
  if (d.text !== undefined) { document.getElementById('floor').textContent = d.text; painted('floor:painted'); }
});
input.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  e.preventDefault();
  stream.textContent = '';
  input.value = '';
  api.postMessage({ type: 'prompt' });
});
api.postMessage({ type: 'ready' });
</script></body></html>`;
  const fields = {
    main: './extension.js',
    activationEvents: [],
    contributes: {
      commands: [
        { command: 'reinsBenchFloor.open', title: FLOOR_COMMAND },
        { command: 'reinsBenchFloor.heap', title: HEAP_COMMAND },
      ],
    },
  };
  writeBenchExtension(
    floor,
    'floor',
    fields,
    `const vscode = require('vscode');
const AGENT = ${JSON.stringify(agent ?? null)};
// The least an ACP client does while an agent streams: read its lines, parse them, and post the
// chunks' text to the page once a frame. No renderer, no transcript, no turn machine.
function startAgent(cwd) {
  const child = require('child_process').spawn(AGENT.command, AGENT.args, { cwd, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  let next = 1, rest = '', onChunk = () => {};
  const request = (method, params) => new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\\n');
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data) => {
    const lines = (rest + data).split('\\n');
    rest = lines.pop();
    for (const line of lines) {
      if (!line.trim()) continue;
      const m = JSON.parse(line);
      if (m.method === 'session/update') {
        const u = m.params.update;
        if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') onChunk(u.content.text);
      } else if (m.method !== undefined && m.id !== undefined) {
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'not here' } }) + '\\n');
      } else if (m.id !== undefined) {
        waiting.get(m.id)?.(m.result);
        waiting.delete(m.id);
      }
    }
  });
  const session = request('initialize', { protocolVersion: 1, clientCapabilities: {} }).then(() => request('session/new', { cwd, mcpServers: [] }));
  return {
    child,
    async prompt(post) {
      const { sessionId } = await session;
      let pending = '';
      onChunk = (text) => { pending += text; };
      const flush = () => { if (pending) { post({ append: pending }); pending = ''; } };
      const frames = setInterval(flush, 16);
      await request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'stream' }] });
      clearInterval(frames);
      flush();
      post({ done: true });
    },
  };
}
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('reinsBenchFloor.open', () => {
    const panel = vscode.window.createWebviewPanel('reinsBenchFloor', 'Floor', vscode.ViewColumn.Active, { enableScripts: true });
    let agent;
    panel.onDidDispose(() => agent?.child.kill());
    panel.webview.onDidReceiveMessage((m) => {
      if (m.type === 'ready') void panel.webview.postMessage({ text: 'the host answered' });
      if (m.type === 'prompt' && AGENT) {
        agent ??= startAgent(vscode.workspace.workspaceFolders[0].uri.fsPath);
        void agent.prompt((message) => panel.webview.postMessage(message));
      }
    });
    panel.webview.html = ${JSON.stringify(html)};
  }));
  // The extension host's heap after full collections, written to a file the bench reads (its
  // process is every extension's: Reins' and the built-ins'). gc() is V8's, exposed here.
  context.subscriptions.push(vscode.commands.registerCommand('reinsBenchFloor.heap', () => {
    require('v8').setFlagsFromString('--expose-gc');
    const gc = require('vm').runInNewContext('gc');
    gc(); gc();
    const m = process.memoryUsage();
    require('fs').writeFileSync(${JSON.stringify(hostHeapFile(scratch))}, JSON.stringify({ heapUsed: m.heapUsed, rss: m.rss, external: m.external, arrayBuffers: m.arrayBuffers, at: Date.now() }));
  }));
};
`,
  );
  return dir;
}

export interface Floor {
  firstFrame: number;
  painted: number;
}

/**
 * The empty webview opened `n` times (the editors closed before each); medians, and each run.
 * `typeInto` runs in the last one's frame before it is closed (keys typed into its bare textarea).
 */
export async function openFloor<T>(
  lib: CodeServerLib,
  page: Page,
  n: number,
  typeInto?: (frame: Frame) => Promise<T>,
): Promise<{ runs: Floor[]; firstFrame: number; painted: number; typed?: T }> {
  const runs: Floor[] = [];
  let typed: T | undefined;
  for (let i = 0; i < n; i++) {
    await command(lib, page, 'View: Close All Editors', 60_000);
    await page.waitForTimeout(1_000);
    // Once in four runs the command ran and no webview came within 120 s: run it again.
    let frame: Frame | undefined;
    for (let attempt = 1; !frame; attempt++) {
      await command(lib, page, FLOOR_COMMAND, 60_000);
      frame = await lib.findWebviewFrame(page, '#floor', 15_000, POLL_MS).catch((err: unknown) => {
        if (attempt >= 3) throw err;
        return undefined;
      });
    }
    await waitFor(page, frame, `performance.getEntriesByName('floor:painted').length > 0`, 60_000, 'the empty webview drawn');
    runs.push(
      await frame.evaluate<Floor>(
        `({ firstFrame: performance.getEntriesByName('floor:first-frame')[0].startTime, painted: performance.getEntriesByName('floor:painted')[0].startTime })`,
      ),
    );
    if (i === n - 1 && typeInto) typed = await typeInto(frame);
  }
  await command(lib, page, 'View: Close All Editors', 60_000);
  return { runs, firstFrame: median(runs.map((r) => r.firstFrame)), painted: median(runs.map((r) => r.painted)), typed };
}
