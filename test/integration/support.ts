// Helpers for the suite that runs inside the real extension host: configure a scripted agent
// per test through the real settings, drive Reins through its real commands, read what the
// agent received from its record.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as vscode from 'vscode';
import type { ReinsApi, SendResult, StopResult, WhenBusy } from '../../src/api';
import type { TranscriptEntry } from '../../src/shared/messages';
import type { StopReport } from '../../src/runtime/agentRuntime';
import { readRecord, type RecordEntry } from '../fixtures/scriptedAgent/records';
import { nth, waitFor } from '../support/helpers';

const EXTENSION_ID = 'reins-dev.reins';

export async function api(): Promise<ReinsApi> {
  const ext = vscode.extensions.getExtension<ReinsApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded`);
  return ext.isActive ? ext.exports : ext.activate();
}

/** The test window's (first) workspace folder: the fixture folder the host opens. */
export function workspaceFolder(): vscode.WorkspaceFolder {
  return nth(vscode.workspace.workspaceFolders ?? [], 0, 'the workspace folders');
}

export function extensionPath(): string {
  return vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reins-it-'));
let counter = 0;

export interface ScriptedAgent {
  name: string;
  record: string;
  entries(): RecordEntry[];
}

/** Add a scripted agent running `scenario` to reins.agents, under a fresh name. */
export async function addAgent(scenario: object | string, extra: Record<string, unknown> = {}): Promise<ScriptedAgent> {
  const name = `scripted-${++counter}`;
  const record = path.join(scratch, `${name}.jsonl`);
  const file =
    typeof scenario === 'string'
      ? path.join(extensionPath(), 'test', 'fixtures', 'scriptedAgent', 'scenarios', `${scenario}.json`)
      : path.join(scratch, `${name}.scenario.json`);
  if (typeof scenario !== 'string') fs.writeFileSync(file, JSON.stringify(scenario));
  const agents = { ...(vscode.workspace.getConfiguration('reins').get<Record<string, unknown>>('agents') ?? {}) };
  agents[name] = {
    command: process.execPath,
    args: [path.join(extensionPath(), 'dist', 'scripted-agent.js'), '--scenario', file, '--record', record],
    // In desktop VS Code process.execPath is Electron: this makes it a plain Node.
    env: { ELECTRON_RUN_AS_NODE: '1' },
    ...extra,
  };
  await setting('agents', agents);
  return { name, record, entries: () => readRecord(record) };
}

export async function setting(key: string, value: unknown): Promise<void> {
  const config = vscode.workspace.getConfiguration('reins');
  // Already so (most of resetReins' and the matrix's resets, after a test that left the setting
  // alone): the write would change nothing and fire no change, and each costs a round trip to
  // the settings file (15–40 ms measured, hundreds of times a suite).
  if (isDeepStrictEqual(config.inspect(key)?.globalValue, value)) return;
  await config.update(key, value, vscode.ConfigurationTarget.Global);
}

export async function useAgent(agent: ScriptedAgent | string): Promise<void> {
  const ok = await vscode.commands.executeCommand<boolean>('reins.selectAgent', typeof agent === 'string' ? agent : agent.name);
  if (!ok) throw new Error(`could not select ${typeof agent === 'string' ? agent : agent.name}`);
}

export function send(text: string, whenBusy?: WhenBusy): Thenable<SendResult> {
  return vscode.commands.executeCommand<SendResult>('reins.sendPrompt', text, whenBusy ? { whenBusy } : undefined);
}

export function stop(): Thenable<StopResult> {
  return vscode.commands.executeCommand<StopResult>('reins.stop');
}

/**
 * The leftovers of turn `turnId`'s stop once its check is done: `reins.stop` answers before the
 * check, and a later call that finds nothing running shows them under `previous`.
 */
export async function checkedLeftovers(turnId: number): Promise<StopResult['leftovers']> {
  let previous: StopResult | undefined;
  await waitFor('the leftover check', async () => {
    previous = (await stop()).previous;
    return previous?.turnId === turnId && previous.leftoverCheck !== 'pending';
  });
  return previous!.leftovers;
}

/** Every stop report from now on (one per routine). */
export async function collectStops(): Promise<{ reports: StopReport[]; dispose(): void }> {
  const reports: StopReport[] = [];
  const sub = (await api()).onDidStop((r) => reports.push(r));
  return { reports, dispose: () => sub.dispose() };
}

/** The text of the Reins log file (the LogOutputChannel writes it under the extension's log folder). */
export async function logText(): Promise<string> {
  const root = path.dirname((await api()).logUri.fsPath);
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 4) return;
    for (const e of safeReaddir(dir)) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p, depth + 1);
      else if (/Reins\.log$/.test(e.name)) found.push(p);
    }
  };
  walk(path.dirname(root), 0);
  return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

function safeReaddir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

export async function resetReins(): Promise<void> {
  await vscode.commands.executeCommand('reins.forceStop');
  await setting('settleTimeoutSeconds', undefined);
  await setting('turnTimeoutMinutes', undefined);
  await setting('maxToolCallsPerTurn', undefined);
  await setting('leftoverProcesses', undefined);
  await setting('initializeTimeoutSeconds', undefined);
  await setting('maxMessageMegabytes', undefined);
}

type Elicitation = Extract<TranscriptEntry, { kind: 'elicitation' }>;

/** The elicitation waiting for the user now (the transcript keeps earlier tests' entries). */
export async function waitingElicitation(): Promise<Elicitation> {
  let found: Elicitation | undefined;
  await waitFor(
    'an elicitation waiting in the transcript',
    async () => {
      found = (await api()).state()?.transcript.find((e): e is Elicitation => e.kind === 'elicitation' && e.resolved === undefined);
      return found !== undefined;
    },
    15_000,
  );
  return found!;
}
