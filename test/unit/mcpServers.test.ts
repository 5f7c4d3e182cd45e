// `reins.mcpServers` → ACP's McpServer shapes (src/acp/mcpServers.ts): what is accepted, what
// is refused and how it is said, and which servers an agent may be given.
import * as assert from 'node:assert/strict';
import { parseMcpServers, serversFor } from '../../src/acp/mcpServers';

describe('mcp servers: the setting, validated, and per agent capability', () => {
  it('takes ACP shapes and the object forms of env and headers', () => {
    const { servers, problems } = parseMcpServers([
      { name: 'fs', command: '/bin/mcp-fs', args: ['--stdio'], env: { TOKEN: 's3cret' } },
      { type: 'stdio', name: 'plain', command: 'mcp-plain' },
      { type: 'http', name: 'api', url: 'https://example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
      { type: 'sse', name: 'events', url: 'http://localhost:9000/sse', headers: { 'X-Key': 'k' } },
    ]);
    assert.deepEqual(problems, []);
    assert.deepEqual(servers, [
      { name: 'fs', command: '/bin/mcp-fs', args: ['--stdio'], env: [{ name: 'TOKEN', value: 's3cret' }] },
      { name: 'plain', command: 'mcp-plain', args: [], env: [] },
      { type: 'http', name: 'api', url: 'https://example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
      { type: 'sse', name: 'events', url: 'http://localhost:9000/sse', headers: [{ name: 'X-Key', value: 'k' }] },
    ]);
  });

  it('refuses bad entries with the place and the reason, keeps the good ones, never quotes a value', () => {
    const { servers, problems } = parseMcpServers([
      { name: 'ok', command: 'x' },
      { name: 'nocmd' },
      { type: 'http', name: 'badurl', url: 'not a url' },
      { type: 'http', name: 'ftp', url: 'ftp://example.com' },
      { type: 'websocket', name: 'ws', url: 'ws://x' },
      { name: 'ok', command: 'dup' },
      { name: 'typo', comand: 'x' },
      { name: 'envnum', command: 'x', env: { SECRET: 42 } },
      'just a string',
    ]);
    assert.deepEqual(
      servers.map((s) => s.name),
      ['ok'],
    );
    assert.deepEqual(problems, [
      'reins.mcpServers[1] ("nocmd"): needs a "command" (the MCP server executable)',
      'reins.mcpServers[2] ("badurl"): "url" is not a URL: "not a url"',
      'reins.mcpServers[3] ("ftp"): "url" must be http or https, not ftp',
      'reins.mcpServers[4] ("ws"): "type" must be "stdio", "http" or "sse", not "websocket"',
      'reins.mcpServers[5] ("ok"): another server already has the name "ok"',
      'reins.mcpServers[6] ("typo"): unknown field "comand" for a stdio server (known: type, name, command, args, env)',
      'reins.mcpServers[7] ("envnum"): "env": the variable "SECRET" must have a string value',
      'reins.mcpServers[8]: must be an object, not a string',
    ]);
    assert.deepEqual(parseMcpServers({ name: 'x' }).problems, ['reins.mcpServers must be a list of servers, not an object']);
  });

  it('gives http and sse servers only to agents that advertise them', () => {
    const { servers } = parseMcpServers([
      { name: 'local', command: 'x' },
      { type: 'http', name: 'api', url: 'https://example.com/mcp' },
      { type: 'sse', name: 'events', url: 'https://example.com/sse' },
    ]);
    // Sabotage (serversFor() skipping nothing), this printed: "[ 'local', + 'api', + 'events' ]".
    const none = serversFor(servers, undefined);
    assert.deepEqual(
      none.allowed.map((s) => s.name),
      ['local'],
    );
    assert.deepEqual(none.skipped, [
      { name: 'api', type: 'http' },
      { name: 'events', type: 'sse' },
    ]);
    const http = serversFor(servers, { http: true });
    assert.deepEqual(
      http.allowed.map((s) => s.name),
      ['local', 'api'],
    );
    assert.deepEqual(serversFor(servers, { http: true, sse: true }).skipped, []);
  });
});
