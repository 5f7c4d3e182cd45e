// What the editor-facing code takes from the agent machinery, in one place: only
// machineryLoader.ts requires this module (lazily); everything else imports its types only.
export { AgentRuntime, StartError } from './agentRuntime';
export { ResponseError } from 'vscode-jsonrpc/node';
