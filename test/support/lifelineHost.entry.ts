// A stand-in extension host for test/process/lifeline.test.ts: it starts one scripted agent through
// AgentProcess with the lifeline configured as extension.ts configures it, drives it into a
// turn (raw ACP lines: initialize, session/new, session/prompt), prints what it started as
// JSON lines on stdout, then obeys lines on stdin:
//   end    → AgentProcess.end(), prints {"event":"ended", report}
//   close  → closes the agent's stdin
//   terminal     → starts a terminal as terminal/create does (`sh -c 'sleep 60 & wait'` in its own
//                  group, a child of this host) guarded by the agent's watchdog, prints
//                  {"event":"terminal", pid, sleep}
//   endTerminal  → ends it as the runtime does (its tree, then unguard), prints {"event":"terminalEnded"}
// The test plays a dying extension host by sending this process SIGKILL.
//
//   node lifelineHost.entry.js SCENARIO_JSON AGENT_RECORD_FILE RECORDS_DIR [OPTIONS_JSON]
// OPTIONS_JSON: { pollMs?, graceMs?: the watchdog's, nodeOptions?: NODE_OPTIONS for this process's
// children from now on (the agent is given an empty one) }
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { AgentProcess } from '../../src/acp/agentProcess';
import { AgentRecords } from '../../src/acp/agentRecords';
import { TerminalProcess } from '../../src/acp/clientMethods/terminalProcess';
import { configureLifeline } from '../../src/acp/lifeline';
import { descendantsNow } from '../../src/acp/processTree';
import { silentLogger } from '../../src/util/logger';

const repo = path.resolve(__dirname, '../../..');
const [scenario, agentRecord, recordsDir, optionsJson] = process.argv.slice(2);
if (scenario === undefined || agentRecord === undefined || recordsDir === undefined) {
  throw new Error('usage: lifelineHost.entry.js <scenario json> <agent record> <records folder> [options json]');
}
/** The agent's working folder: the one that holds the records folder. */
const workFolder = path.dirname(recordsDir);
const options = JSON.parse(optionsJson ?? '{}') as { pollMs?: number; graceMs?: number; nodeOptions?: string };
if (options.nodeOptions) process.env.NODE_OPTIONS = options.nodeOptions;
const say = (value: object) => process.stdout.write(JSON.stringify(value) + '\n');

configureLifeline({
  node: process.execPath,
  watchdogScript: path.join(repo, 'dist', 'watchdog.js'),
  records: new AgentRecords(recordsDir),
  pollMs: options.pollMs,
  graceMs: options.graceMs,
});
const agent = new AgentProcess(
  {
    command: process.execPath,
    args: [path.join(repo, 'dist', 'scripted-agent.js'), '--scenario-json', scenario, '--record', agentRecord],
    cwd: workFolder,
    env: { NODE_OPTIONS: '' },
  },
  silentLogger,
);
agent.stdout.resume();
const send = (id: number, method: string, params: object) => agent.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
send(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
send(2, 'session/new', { cwd: workFolder, mcpServers: [] });
send(3, 'session/prompt', { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'go' }] });
// The lifeline starts the watchdog on the next turn of the event loop (off the agent's start).
setImmediate(() => say({ event: 'started', agent: agent.pid, watchdog: agent.watchdogPid, host: process.pid }));
void agent.exited.then((exit) => say({ event: 'exit', code: exit.code, signal: exit.signal }));

let terminal: { proc: TerminalProcess; unguard: { dispose(): void } | undefined } | undefined;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'end') void agent.end().then((report) => say({ event: 'ended', report }));
  if (line === 'close') agent.stdin.end();
  if (line === 'terminal') void startTerminal();
  if (line === 'endTerminal' && terminal) {
    const { proc, unguard } = terminal;
    void proc.end().then(() => {
      unguard?.dispose();
      say({ event: 'terminalEnded' });
    });
  }
});

async function startTerminal(): Promise<void> {
  const proc = new TerminalProcess({ command: 'sh', args: ['-c', 'sleep 60 & wait'], env: {}, cwd: workFolder, outputByteLimit: 1024 }, () => undefined);
  await proc.started();
  terminal = { proc, unguard: agent.guardTerminal(proc.pid!, proc.startTime!) };
  // The sleep below the shell, once it has started.
  for (let i = 0; i < 100; i++) {
    const sleep = (await descendantsNow(proc.pid!)).find((p) => /sleep 60/.test(p.command))?.pid;
    if (sleep) {
      say({ event: 'terminal', pid: proc.pid, sleep });
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  say({ event: 'terminal', pid: proc.pid });
}
// Stays up until killed (the test's SIGKILL) or told to end and then closed.
setInterval(() => undefined, 60_000);
