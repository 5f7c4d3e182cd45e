// The runtime suites' one way to start an AgentRuntime on the scripted agent (a real child
// process speaking ACP over stdio, writing a record of what it received and when), and to end
// them all after each test.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentRuntime, defaultRuntimeSettings, type RuntimeSettings } from '../../src/runtime/agentRuntime';
import type { ProcessInfo } from '../../src/acp/processTree';
import { MemoryLogger } from '../../src/util/logger';

const repo = path.resolve(__dirname, '../../..');
const agentJs = path.join(repo, 'dist', 'scripted-agent.js');
const scenarios = path.join(repo, 'test', 'fixtures', 'scriptedAgent', 'scenarios');

export interface Started {
  rt: AgentRuntime;
  record: string;
  log: MemoryLogger;
}

/** Every runtime a test started (start(), or a test that made its own): ended after each test. */
export const live: AgentRuntime[] = [];

export async function start(
  scenario: string | object,
  settings: Partial<RuntimeSettings> = {},
  startIt = true,
  maxLineBytes?: number,
  listProcesses?: () => Promise<ProcessInfo[]>,
): Promise<Started> {
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-rt-'));
  const record = path.join(dir, 'record.jsonl');
  const json = typeof scenario === 'string' ? readFileSync(path.join(scenarios, `${scenario}.json`), 'utf8') : JSON.stringify(scenario);
  const log = new MemoryLogger();
  const rt = new AgentRuntime({
    name: 'scripted',
    launch: { command: process.execPath, args: [agentJs, '--scenario-json', json, '--record', record], cwd: dir },
    settings: () => ({ ...defaultRuntimeSettings, initializeTimeoutMs: 3000, ...settings }),
    log,
    maxLineBytes,
    listProcesses,
  });
  live.push(rt);
  if (startIt) await rt.start();
  return { rt, record, log };
}

/** Ends every runtime start() made: the suites' afterEach. */
export async function shutdownStarted(): Promise<void> {
  await Promise.all(live.splice(0).map((rt) => rt.shutdown('deactivate', 200)));
}
