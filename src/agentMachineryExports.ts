// What the editor-facing code takes from the agent machinery, in one place: only
// agentMachinery.ts requires this module (lazily); everything else imports its types only.
export { AgentRuntime, StartError } from './session/agentRuntime';
export { ResponseError } from 'vscode-jsonrpc/node';
