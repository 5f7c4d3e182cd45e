// What the browser workbench has written to its storage (IndexedDB, the `vscode-web-state-db*`
// databases): a webview's state survives a window reload only once it is there.
//
// Why a smoke waits on this: the workbench keeps webview states in memory and writes them at its
// periodic flush (every 5 s in the browser, when idle), and its write at unload does not always
// finish before the page goes (a run kept "a draft typed before the re"). Waiting for the state
// itself replaces a fixed wait of more than the flush's period.

/** Every item of the workbench's storage: [{ db, key, value }] (value as stored, a string). */
export function storedItems(page) {
  return page.evaluate(async () => {
    const done = (request) =>
      new Promise((resolve, reject) => {
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
    const items = [];
    for (const { name } of await globalThis.indexedDB.databases()) {
      if (!name?.startsWith('vscode-web-state-db')) continue;
      const db = await done(globalThis.indexedDB.open(name));
      try {
        for (const store of db.objectStoreNames) {
          const os = db.transaction(store, 'readonly').objectStore(store);
          const [keys, values] = await Promise.all([done(os.getAllKeys()), done(os.getAll())]);
          keys.forEach((key, i) => items.push({ db: name, key: String(key), value: typeof values[i] === 'string' ? values[i] : JSON.stringify(values[i]) }));
        }
      } finally {
        db.close();
      }
    }
    return items;
  });
}

const parse = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * The webview states among `items` (storedItems): a view's under `memento/webviewView.<id>`
 * ({ webviewState }), an editor tab's inside the editor part's layout (an editor of id
 * `workbench.editors.webviewInput`, whose value holds its `state`). Each state as its page saved
 * it (vscode.setState), parsed: [{ where: 'view:<id>' | 'editor:<viewType>', state }].
 */
export function webviewStates(items) {
  const out = [];
  for (const { key, value } of items) {
    const view = /^memento\/webviewView\.(.+)$/.exec(key);
    if (view) {
      const state = parse(parse(value)?.webviewState);
      if (state) out.push({ where: `view:${view[1]}`, state });
    } else if (key === 'memento/workbench.parts.editor') {
      const walk = (node) => {
        if (!node || typeof node !== 'object') return;
        if (node.id === 'workbench.editors.webviewInput' && typeof node.value === 'string') {
          const input = parse(node.value);
          const state = parse(input?.state);
          if (state) out.push({ where: `editor:${input.providedId ?? input.viewType}`, state });
          return;
        }
        for (const child of Object.values(node)) walk(child);
      };
      walk(parse(value));
    }
  }
  return out;
}

/**
 * Waits until `test(items)` holds for the workbench's storage (polled every 250 ms), so that a
 * window reload finds what the smoke is about to check. Throws naming `what`.
 */
export async function waitForStored(page, what, test, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await storedItems(page);
    if (test(items)) return;
    if (Date.now() > deadline) {
      const states = webviewStates(items).map((w) => `${w.where}: ${JSON.stringify(w.state).slice(0, 300)}`);
      throw new Error(`${what}: not in the workbench's storage within ${timeoutMs / 1000} s; its webview states: ${states.join(' | ') || 'none'}`);
    }
    await page.waitForTimeout(250);
  }
}
