// The panel's page: a strict CSP (one nonce for its scripts and its styles, local resources
// only), the conversation as it was when the page was made (PageSnapshot), a first script that
// says `ready`, the stylesheet and the bundle.
//
// The bundle and the stylesheet are written into the page, not named by it. A webview fetches a
// named file through its service worker, which asks the workbench, which reads it from the
// extension's folder (the remote's, in code-server): 50–150 ms for dist/webview.js in the long
// bench, the whole of that before the bundle could start. And VS Code's webview host keeps the
// messages posted to a page until that page's `load` event (its pre/index.html), which waits for
// the named files, or for 200 ms after the page was written: so the snapshot, asked for at once
// (BOOT), reached the page only after both. The icon font too: a font loading delays the `load`
// event, and the first layout asks for it at once; fetched, it took 100–300 ms there, and the
// snapshot waited the 200 ms. Written in as a data: address it is there when asked for.
// Read once and again only when a file changed (a rebuild shows in the next panel, as before).
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { inlineScript, inlineStyles } from './inlineAssets';
import { dataBlock, type PageSnapshot } from './pageSnapshot';

/** The element id of the page's snapshot (PageSnapshot). */
const FIRST_ID = 'reins-first';

/**
 * Says `ready` before the stylesheet and the bundle run, keeping what the host posts until the
 * bundle takes over (media/webview/vscodeApi.ts), so that the snapshot's way here overlaps the
 * bundle's start instead of following it. A snapshot written into the page (pageSnapshot.ts) is
 * kept first, and `ready` names it.
 */
const BOOT = `window.reinsBoot=(()=>{const api=acquireVsCodeApi();const early=[];const f=document.getElementById('${FIRST_ID}');let first;if(f){const m=JSON.parse(f.textContent);first=m.id;early.push(m.message);performance.mark('reins:page-snapshot');}const keep=(e)=>early.push(e.data);window.addEventListener('message',keep);api.postMessage(first?{type:'ready',first}:{type:'ready'});return{api,early,stop:()=>window.removeEventListener('message',keep)};})();`;

/** The codicons' font, which dist/webview.css names (@vscode/codicons). */
const FONT = 'codicon.ttf';

interface Assets {
  /** The files' modification times, joined: read again when it changes. */
  stamp: string;
  script: string;
  styles: string;
}
let cached: Assets | undefined;

/** dist/webview.js and dist/webview.css made inline; undefined when they cannot be read (the page names them then). */
function inlineAssets(dist: vscode.Uri, base: string): Assets | undefined {
  if (dist.scheme !== 'file') return undefined;
  try {
    const js = path.join(dist.fsPath, 'webview.js');
    const css = path.join(dist.fsPath, 'webview.css');
    const font = path.join(dist.fsPath, FONT);
    const stamp = [js, css, font].map((f) => statSync(f).mtimeMs).join(' ') + base;
    const embed = (file: string) => (file === FONT ? `data:font/ttf;base64,${readFileSync(font).toString('base64')}` : undefined);
    if (cached?.stamp !== stamp)
      cached = { stamp, script: inlineScript(readFileSync(js, 'utf8'), base), styles: inlineStyles(readFileSync(css, 'utf8'), base, embed) };
    return cached;
  } catch {
    return undefined;
  }
}

export function renderHtml(webview: vscode.Webview, extensionUri: vscode.Uri, first?: PageSnapshot): string {
  const nonce = randomBytes(16).toString('base64');
  const dist = vscode.Uri.joinPath(extensionUri, 'dist');
  const base = webview.asWebviewUri(dist).toString();
  // The second bundle, highlight.js: the first adds it after the first paint, with this nonce (media/webview/highlight.ts).
  const highlight = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'highlight.js'));
  const assets = inlineAssets(dist, base);
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource} data:`,
  ].join('; ');
  const styles = assets ? `<style nonce="${nonce}">${assets.styles}</style>` : `<link rel="stylesheet" href="${base}/webview.css">`;
  const script = assets
    ? `<script nonce="${nonce}" data-highlight="${highlight}">${assets.script}</script>`
    : `<script nonce="${nonce}" src="${base}/webview.js" data-highlight="${highlight}"></script>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${first ? `<script type="application/json" id="${FIRST_ID}">${dataBlock(first)}</script>\n` : ''}<script nonce="${nonce}">${BOOT}</script>
${styles}
<title>Reins</title>
</head>
<body>
<div id="app"></div>
${script}
</body>
</html>`;
}
