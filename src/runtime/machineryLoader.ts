// The agent machinery — AgentRuntime and all it needs (vscode-jsonrpc, the framing, the turn
// controller, the client methods) — is loaded when the first agent starts, not at activation,
// so that activating Reins (a command, a restored panel) stays cheap. esbuild has no code
// splitting for cjs, but a require() of an ES module makes it wrap that module, and whatever
// only it imports, in a lazy initialiser: none of that code runs until this function is called.
// What activation still loads: `ARCHITECTURE.md` → *Activation*.
import type * as Machinery from './machinery';

let loaded: typeof Machinery | undefined;

export function loadMachinery(): typeof Machinery {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the lazy load is the point
  return (loaded ??= require('./machinery') as typeof Machinery);
}
