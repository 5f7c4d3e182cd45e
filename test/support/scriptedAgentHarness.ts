// The scripted agent's test harness: the agent as a child process with a minimal raw client,
// and the per-test fixture (record file, clean-up). Build first: node scripts/esbuild.mjs --tests.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { RpcMessage } from '../fixtures/scriptedAgent/records';

const ROOT = path.resolve(__dirname, '../../..');
const AGENT = path.join(ROOT, 'dist/scripted-agent.js');
export const SCENARIOS = path.join(ROOT, 'test/fixtures/scriptedAgent/scenarios');

/** A scripted agent process and a minimal raw client for it. */
export class Agent {
  readonly child: ChildProcess;
  readonly messages: RpcMessage[] = [];
  /** stdout lines that were not JSON. */
  readonly rawLines: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private nextId = 100;
  private buffer = '';
  private readonly waiters = new Set<() => void>();

  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    // Its own process group, as Reins starts agents: cleanup ends the group, tools included.
    this.child = spawn(process.execPath, [AGENT, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, REINS_SCENARIO: '', REINS_SCENARIO_JSON: '', REINS_RECORD: '', ...env },
    });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        try {
          this.messages.push(JSON.parse(line) as RpcMessage);
        } catch {
          this.rawLines.push(line);
        }
      }
      for (const wake of this.waiters) wake();
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => {
      for (const wake of this.waiters) wake();
    });
  }

  send(msg: object): void {
    this.child.stdin!.write(JSON.stringify(msg) + '\n');
  }

  writeRaw(line: string): void {
    this.child.stdin!.write(line + '\n');
  }

  /** Sends a request and returns its id and a promise of its response. */
  request(method: string, params: unknown): { id: number; response: Promise<RpcMessage> } {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return { id, response: this.waitFor((m) => m.id === id && m.method === undefined) };
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** The first message (from index `from`) that matches. */
  async waitFor(match: (m: RpcMessage) => boolean, timeoutMs = 5000, from = 0): Promise<RpcMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(match);
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`agent exited (${this.child.exitCode ?? this.child.signalCode}) before the message came; stderr: ${this.stderr}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms; got ${this.messages.length} messages`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  async ready(): Promise<string> {
    const init = await this.request('initialize', { protocolVersion: 1, clientCapabilities: {} }).response;
    assert.equal(init.result?.protocolVersion, 1, JSON.stringify(init));
    const created = await this.request('session/new', { cwd: '/tmp/project', mcpServers: [] }).response;
    return created.result.sessionId as string;
  }

  prompt(sessionId: string, text: string): { id: number; response: Promise<RpcMessage> } {
    return this.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  }

  cancel(sessionId: string): void {
    this.notify('session/cancel', { sessionId });
  }

  /** The text of the agent_message_chunk updates received so far. */
  text(kind = 'agent_message_chunk'): string {
    return this.messages
      .filter((m) => m.method === 'session/update' && m.params?.update?.sessionUpdate === kind)
      .map((m) => m.params.update.content.text)
      .join('');
  }

  /** Ends the whole process group (tool processes included). */
  kill(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export const json = (scenario: object) => ['--scenario-json', JSON.stringify(scenario)];
export const hang = (onCancel?: unknown, extra: object = {}) => ({
  prompts: [{ steps: [{ text: 'working' }, { hang: true }], ...(onCancel !== undefined && { onCancel }), ...extra }],
});
export const isUpdate = (kind: string) => (m: RpcMessage) => m.method === 'session/update' && m.params?.update?.sessionUpdate === kind;

/**
 * The scripted agents of one suite: each test gets a fresh record file in its own folder, and
 * every agent it started is ended after it.
 */
export class AgentFixture {
  dir = '';
  record = '';
  private readonly agents: Agent[] = [];

  constructor() {
    before(function () {
      assert.ok(existsSync(AGENT), `${AGENT} is missing: run node scripts/esbuild.mjs --tests first`);
    });
    beforeEach(() => {
      this.dir = mkdtempSync(path.join(tmpdir(), 'reins-scripted-'));
      this.record = path.join(this.dir, 'record.jsonl');
    });
    afterEach(() => {
      for (const agent of this.agents.splice(0)) agent.kill();
      rmSync(this.dir, { recursive: true, force: true });
    });
  }

  /** Start an agent with these arguments, recording to this test's record file. */
  readonly start = (args: string[], env?: NodeJS.ProcessEnv): Agent => this.track(new Agent([...args, '--record', this.record], env));

  /** End `agent` with the test. */
  track(agent: Agent): Agent {
    this.agents.push(agent);
    return agent;
  }
}
