// The ACP Registry's index: parsed from a fixture in its published format, fetched from a local
// HTTP server on 127.0.0.1 (the real CDN is not reachable here), and what happens offline.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { fetchRegistry, parseRegistry, pin, platformKey, registryEntry } from '../../src/agents/registry';
import { present } from '../support/helpers';

const fixture = path.resolve(__dirname, '../../../test/fixtures/registry/registry.json');
const json = () => JSON.parse(readFileSync(fixture, 'utf8')) as unknown;

function serve(handler: (url: string) => { status?: number; body: string }): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      const { status = 200, body } = handler(req.url ?? '/');
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

describe('ACP registry', () => {
  it('parses the published format: npx (pinned), npx with cmd, uvx, binary', () => {
    const { agents } = parseRegistry(json(), 'linux-x86_64');
    const by = Object.fromEntries(agents.map((a) => [a.id, a]));
    const agent = (id: string) => present(by[id], `the registry's agent ${id}`);
    assert.deepEqual(Object.keys(by).sort(), ['codex-acp', 'gemini', 'hermes', 'multi-bin', 'zeta']);
    assert.deepEqual(registryEntry(agent('codex-acp')), { command: 'npx', args: ['-y', '@agentclientprotocol/codex-acp@1.4.0'] });
    assert.deepEqual(registryEntry(agent('gemini')), {
      command: 'npx',
      args: ['-y', '@google/gemini-cli@0.61.0', '--acp'],
      env: { GEMINI_CLI_NO_RELAUNCH: '1' },
    });
    assert.deepEqual(registryEntry(agent('multi-bin')), { command: 'npx', args: ['-y', '--package', 'multi-bin@2.0.1', 'multi-bin-acp', 'serve'] });
    assert.deepEqual(registryEntry(agent('hermes')), { command: 'uvx', args: ['--from', 'hermes-agent[acp]==0.9.2', 'hermes-acp'] });
    assert.equal(registryEntry(agent('zeta')), undefined, 'binary only: Reins does not download archives');
    assert.equal(agent('zeta').archive, 'https://example.com/zeta-linux.tar.gz');
    assert.deepEqual(agent('zeta').distributions, ['binary']);
    assert.equal(parseRegistry(json(), 'windows-aarch64').agents.find((a) => a.id === 'zeta')?.archive, undefined);
  });

  // Sabotage (PACKAGE not checked): "The expression evaluated to a falsy value:
  // assert.ok(!agents.some((a) => a.id === "sneaky" || …))" — `--call=touch /tmp/x` was listed
  // as an npx package, an option smuggled into npx's command line.
  it('skips what does not validate and says why; a package is never an option', () => {
    const { agents, skipped } = parseRegistry(json(), 'linux-x86_64');
    assert.ok(!agents.some((a) => a.id === 'sneaky' || a.id === 'Bad_Id' || a.id === 'noversion'));
    assert.equal(agents.filter((a) => a.id === 'gemini').length, 1);
    assert.equal(skipped.length, 5, skipped.join('\n'));
    assert.ok(
      skipped.some((s) => /sneaky: npx.package is missing or not a package name/.test(s)),
      skipped.join('\n'),
    );
    assert.ok(skipped.some((s) => /gemini is listed twice/.test(s)));
    assert.throws(() => parseRegistry({ version: '1' }), /not an ACP registry index/);
  });

  // Sabotage (pin keeping any given tag): "- multi-bin@latest + multi-bin@2.0.1" and
  // "+ 'pkg@latest' - 'pkg@1.2.3'" — it would start whatever is newest on the day.
  it('pins to an exact version: an index pin is kept, a tag or no version gets the entry version', () => {
    assert.equal(pin('@scope/pkg', '1.2.3', 'npx'), '@scope/pkg@1.2.3');
    assert.equal(pin('@scope/pkg@1.2.0', '1.2.3', 'npx'), '@scope/pkg@1.2.0');
    assert.equal(pin('pkg@latest', '1.2.3', 'npx'), 'pkg@1.2.3');
    assert.equal(pin('hermes-agent[acp]', '0.9.2', 'uvx'), 'hermes-agent[acp]==0.9.2');
    assert.equal(pin('x==0.1.0', '0.9.2', 'uvx'), 'x==0.1.0');
  });

  it('names this platform as the registry does', () => {
    assert.equal(platformKey('linux', 'x64'), 'linux-x86_64');
    assert.equal(platformKey('darwin', 'arm64'), 'darwin-aarch64');
    assert.equal(platformKey('win32', 'x64'), 'windows-x86_64');
  });

  it('fetches the index from a server on 127.0.0.1', async () => {
    const body = readFileSync(fixture, 'utf8');
    const { server, url } = await serve((u) => (u === '/registry/v1/latest/registry.json' ? { body } : { status: 404, body: '{}' }));
    try {
      const parsed = await fetchRegistry(`${url}/registry/v1/latest/registry.json`);
      assert.equal(parsed.agents.length, 5);
      await assert.rejects(fetchRegistry(`${url}/missing.json`), /answered 404/);
    } finally {
      server.close();
    }
  });

  it('rejects (for the one log line) when offline, slow, or not JSON', async () => {
    const { server, url } = await serve(() => ({ body: 'not json' }));
    const port = Number(new URL(url).port);
    try {
      await assert.rejects(fetchRegistry(url), SyntaxError);
    } finally {
      server.close();
    }
    await new Promise((r) => server.once('close', r));
    // Nothing listens there now: connection refused, as offline.
    await assert.rejects(fetchRegistry(`http://127.0.0.1:${port}/registry.json`, { timeoutMs: 2000 }));
    const hanging = createServer(() => {});
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', () => r()));
    try {
      const t = Date.now();
      await assert.rejects(fetchRegistry(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`, { timeoutMs: 300 }));
      assert.ok(Date.now() - t < 3000, 'the time limit holds');
    } finally {
      hanging.closeAllConnections();
      hanging.close();
    }
  });
});
