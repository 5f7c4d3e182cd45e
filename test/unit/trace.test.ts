// The protocol trace is total: whatever the agent wrote, describing it never throws and never
// costs more than a bounded walk.
import * as assert from 'node:assert/strict';
import type { Message } from 'vscode-jsonrpc/node';
import { boundedJson, ProtocolTracer } from '../../src/acp/trace';
import { MemoryLogger } from '../../src/util/logger';
import { deepJson, pipeConnection, settle } from '../support/frameFuzz';
import { nth } from '../support/helpers';

describe('protocol trace', () => {
  // Sabotage (the verbose payload back to shorten(JSON.stringify(…))): "RangeError: Maximum call
  // stack size exceeded" thrown out of tracer.incoming.
  it('a message 100,000 levels deep is traced at verbose, shortened, without throwing', () => {
    const log = new MemoryLogger();
    const tracer = new ProtocolTracer(log, () => 'verbose');
    const deep = JSON.parse(`{"jsonrpc":"2.0","method":"session/update","params":${deepJson(100_000)}}`) as Message;
    tracer.incoming(deep, 200_000);
    assert.equal(log.lines.length, 1);
    const line = nth(log.lines, 0, 'the log');
    assert.match(line, /^info ← \+\d+\.\d{3}s notification session\/update \(200000 B\) \[\[\[/);
    assert.ok(line.includes('[…]'), 'cut at the depth limit');
    assert.ok(line.length < 2200, `${line.length} characters`);
  });

  // Sabotage (the read loop without the fix, through the real connection): the write below threw
  // "RangeError: Maximum call stack size exceeded" out of agentWrites.write.
  it('through the connection: a deeply nested frame at verbose neither throws nor stops the reading', async () => {
    const { agentWrites, updates, log } = pipeConnection('verbose');
    agentWrites.write(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":${deepJson(50_000)}}}\n`);
    agentWrites.write('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}\n');
    await settle();
    assert.equal(updates.length, 2);
    assert.equal(log.lines.filter((l) => l.startsWith('info ← ')).length, 2);
  });

  // Sabotage (connection.ts's JSON.stringify(params) for the warning): "AssertionError: warn
  // [jsonrpc] Notification handler 'session/update' failed with message: Maximum call stack size
  // exceeded … -0 +1".
  it('a malformed session/update nested deep is named in its warning, shortened', async () => {
    const { agentWrites, log } = pipeConnection('off');
    agentWrites.write(`{"jsonrpc":"2.0","method":"session/update","params":{"update":${deepJson(50_000)}}}\n`);
    await settle();
    assert.equal(log.lines.filter((l) => /^warn ignored a malformed session\/update: \{"update":\[\[\[/.test(l)).length, 1, log.lines.join('\n').slice(0, 500));
  });

  // Sabotage (String(m.id) for the key and the head): "TypeError: Cannot convert object to
  // primitive value".
  it('ids and methods that are objects with hostile keys are shown, not called', () => {
    const log = new MemoryLogger();
    const tracer = new ProtocolTracer(log, () => 'messages');
    tracer.incoming(JSON.parse('{"jsonrpc":"2.0","id":{"toString":1,"valueOf":2},"result":null}') as Message, 10);
    tracer.incoming(JSON.parse('{"jsonrpc":"2.0","id":{"toString":1},"method":{"toString":3}}') as Message, 10);
    tracer.incoming(JSON.parse('{"jsonrpc":"2.0","id":3,"error":{"code":{"toString":1},"message":{"valueOf":1}}}') as Message, 10);
    assert.equal(log.lines.length, 5, log.lines.join('\n'));
    assert.match(nth(log.lines, 0, 'the log'), /^warn ignored a response to an unknown request id \{"toString":1,"valueOf":2\}/);
    assert.match(nth(log.lines, 1, 'the log'), /response #\{"toString":1,"valueOf":2\} to an unknown request/);
    assert.match(nth(log.lines, 2, 'the log'), /request \{"toString":3\} #\{"toString":1\}/);
    assert.match(nth(log.lines, 4, 'the log'), /error \{"toString":1\} \{"valueOf":1\} #3/);
  });

  it('boundedJson: JSON for small values, a marker past the depth, stops walking at the limit', () => {
    const value = { a: [1, 'two', null, true, { b: undefined }], c: -0, d: Number.NaN };
    assert.equal(boundedJson(value), '{"a":[1,"two",null,true,{"b":null}],"c":0,"d":null}');
    assert.equal(boundedJson([[[1]]], 100, 2), '[[[…]]]');
    assert.equal(boundedJson({ n: 10n, f: () => 1 }), '{"n":"<bigint>","f":"<function>"}');
    const throwing = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    assert.equal(boundedJson(throwing), '{"x":"<unreadable>"}');
    // 2 million elements: the walk stops after the limit instead of visiting them all.
    const huge = new Array<number>(2_000_000).fill(7);
    const shown = boundedJson(huge, 50);
    assert.equal(shown, `[${'7,'.repeat(24)}7… (shortened)`);
    assert.equal(boundedJson('x'.repeat(5000), 10), '"xxxxxxxxx… (shortened)');
  });

  // Sabotage (the `secret && key === 'value'` branch removed): "AssertionError: the secret is in
  // the log at verbose".
  it('env and header values (MCP servers in session/new, terminal/create) are never in the log, at any level', async () => {
    const secret = 'sk-reins-trace-7f3a';
    for (const level of ['off', 'messages', 'verbose'] as const) {
      const { conn, agentWrites, log } = pipeConnection(level);
      const asked = conn.newSession(
        {
          cwd: '/w',
          mcpServers: [
            { name: 'gh', command: 'gh-mcp', args: [], env: [{ name: 'GITHUB_TOKEN', value: secret }] },
            { type: 'http', name: 'docs', url: 'https://docs.example', headers: [{ name: 'Authorization', value: `Bearer ${secret}` }] },
          ],
        },
        5000,
      );
      agentWrites.write('{"jsonrpc":"2.0","id":0,"result":{"sessionId":"s"}}\n');
      await asked;
      agentWrites.write(
        `{"jsonrpc":"2.0","id":5,"method":"terminal/create","params":{"sessionId":"s","command":"x","env":[{"name":"K","value":"${secret}"}]}}\n`,
      );
      await settle(3);
      const text = log.lines.join('\n');
      assert.ok(!text.includes(secret), `the secret is in the log at ${level}`);
      if (level === 'verbose') {
        assert.match(text, /"env":\[\{"name":"GITHUB_TOKEN","value":"<hidden>"\}\]/);
        assert.match(text, /"headers":\[\{"name":"Authorization","value":"<hidden>"\}\]/);
        assert.match(text, /terminal\/create #5 .*"env":\[\{"name":"K","value":"<hidden>"\}\]/);
      }
      conn.dispose();
    }
  });

  it('remembers at most 10,000 unanswered requests', () => {
    const log = new MemoryLogger();
    const tracer = new ProtocolTracer(log, () => 'off');
    for (let id = 0; id < 10_050; id++) tracer.outgoing({ jsonrpc: '2.0', id, method: 'm' } as Message, 1);
    tracer.incoming({ jsonrpc: '2.0', id: 0, result: null } as Message, 1);
    tracer.incoming({ jsonrpc: '2.0', id: 10_049, result: null } as Message, 1);
    assert.deepEqual(log.lines, ['warn ignored a response to an unknown request id 0']);
  });
});
