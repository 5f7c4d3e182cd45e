// The connection alone, against the scripted agent: a pending request never hangs.
import * as assert from 'node:assert/strict';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentProcess } from '../../src/acp/agentProcess';
import { AcpConnection, AgentExitedError } from '../../src/acp/connection';
import { MemoryLogger } from '../../src/util/logger';

const repo = path.resolve(__dirname, '../../..');
const scenario = (name: string) => readFileSync(path.join(repo, 'test/fixtures/scriptedAgent/scenarios', `${name}.json`), 'utf8');

function connect(name: string) {
  const log = new MemoryLogger();
  const proc = new AgentProcess(
    {
      command: process.execPath,
      args: [path.join(repo, 'dist/scripted-agent.js'), '--scenario-json', scenario(name)],
      cwd: mkdtempSync(path.join(tmpdir(), 'reins-conn-')),
    },
    log,
  );
  const conn = new AcpConnection(proc, { sessionUpdate() {}, requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }) }, log);
  return { proc, conn, log };
}

describe('connection', function () {
  this.timeout(10_000);

  it('rejects a pending prompt with the exit code and stderr when the agent dies mid-turn', async () => {
    const { conn, proc } = connect('crash-mid-turn');
    await conn.initialize({ protocolVersion: 1 }, 5000);
    const { sessionId } = await conn.newSession({ cwd: '/', mcpServers: [] }, 5000);
    // Sabotage (close() neither disposing the rpc connection nor racing requests against
    // `closed`): "Timeout of 10000ms exceeded" — the prompt hung forever.
    await assert.rejects(conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'go' }] }), (e: Error) => {
      assert.ok(e instanceof AgentExitedError, e.message);
      assert.match(e.message, /exited with code 101/);
      assert.match(e.message, /scripted crash/);
      return true;
    });
    const closed = await conn.closed;
    assert.equal(closed.cause, 'process-exited');
    await proc.end();
  });

  it('a request after the connection closed fails at once', async () => {
    const { conn, proc } = connect('quick');
    await conn.initialize({ protocolVersion: 1 }, 5000);
    await proc.end();
    await conn.closed;
    await assert.rejects(conn.newSession({ cwd: '/', mcpServers: [] }, 5000), AgentExitedError);
    await assert.rejects(conn.cancel({ sessionId: 'x' }), AgentExitedError);
  });

  it('a request that gets no answer in its time limit fails with a TimeoutError', async () => {
    const { conn, proc } = connect('init-never');
    await assert.rejects(conn.initialize({ protocolVersion: 1 }, 300), /initialize got no answer within 0 s|initialize got no answer/);
    await proc.end();
  });
});
