// Finding an agent's command as the user's shell would: PATH first, then the login shell (a
// fake one here: a script that prints a banner, counts its runs, and puts a "login" bin folder
// on PATH, as nvm's lines in ~/.bashrc would), with a time limit and a cache.
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CommandFinder, findOnPath, parseAnswers } from '../../src/agents/findCommand';

const root = mkdtempSync(path.join(tmpdir(), 'reins-find-'));
const loginBin = path.join(root, 'login-bin');
const hostBin = path.join(root, 'host-bin');
const runs = path.join(root, 'runs.txt');
mkdirSync(loginBin);
mkdirSync(hostBin);

function executable(file: string, text: string): string {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  return file;
}

executable(path.join(loginBin, 'nvm-agent'), '#!/bin/sh\nexit 0\n');
executable(path.join(hostBin, 'host-agent'), '#!/bin/sh\nexit 0\n');
// Prints what start-up files print, counts its runs, then runs the -c script with the login PATH.
const fakeShell = executable(
  path.join(root, 'fake-login-shell'),
  `#!/bin/sh
echo "Welcome! Last login: today /etc/motd"
echo run >> "${runs}"
for a; do script="$a"; done
PATH="${loginBin}:$PATH" exec /bin/sh -c "$script"
`,
);
const slowShell = executable(path.join(root, 'slow-login-shell'), '#!/bin/sh\nsleep 30\n');

const finder = (shell: string, o: { missTtlMs?: number; timeoutMs?: number } = {}) =>
  new CommandFinder({ env: () => ({ PATH: `${hostBin}:/usr/bin:/bin`, SHELL: shell }), timeoutMs: o.timeoutMs ?? 5000, missTtlMs: o.missTtlMs });
const shellRuns = () => (existsSync(runs) ? readFileSync(runs, 'utf8').split('\n').filter(Boolean).length : 0);

describe('finding the command through the login shell', function () {
  this.timeout(20_000);
  if (process.platform === 'win32') return;

  it('finds on PATH without asking any shell', async () => {
    const f = finder(fakeShell);
    const before = shellRuns();
    assert.deepEqual(await f.find('host-agent'), { path: path.join(hostBin, 'host-agent'), via: 'path' });
    assert.equal(f.shellRuns, 0);
    assert.equal(shellRuns(), before);
    assert.equal(findOnPath('host-agent', { PATH: hostBin }), path.join(hostBin, 'host-agent'));
    assert.equal(findOnPath('nvm-agent', { PATH: hostBin }), undefined);
  });

  // Sabotage (cache lookup skipped): "AssertionError: shellRuns 2, expected 1".
  it('asks the login shell when PATH has no such command, says which, and caches the answer', async () => {
    const f = finder(fakeShell);
    const before = shellRuns();
    const found = await f.find('nvm-agent');
    assert.deepEqual(found, { path: path.join(loginBin, 'nvm-agent'), via: 'login-shell', shell: fakeShell });
    assert.deepEqual(await f.find('nvm-agent'), found);
    assert.equal(f.shellRuns, 1, `shellRuns ${f.shellRuns}, expected 1`);
    assert.equal(shellRuns() - before, 1);
  });

  it('asks one shell for several names, and remembers a miss only for a while', async () => {
    const f = finder(fakeShell, { missTtlMs: 0 });
    const before = shellRuns();
    const found = await f.findMany(['nvm-agent', 'not-anywhere', 'host-agent']);
    assert.equal(found.get('nvm-agent')?.via, 'login-shell');
    assert.equal(found.get('not-anywhere'), undefined);
    assert.equal(found.get('host-agent')?.via, 'path');
    assert.equal(shellRuns() - before, 1, 'one shell for both missing names');
    await f.find('not-anywhere');
    assert.equal(shellRuns() - before, 2, 'a miss is asked again once its time is up (installed meanwhile?)');
    const g = finder(fakeShell, { missTtlMs: 60_000 });
    await g.find('not-anywhere');
    await g.find('not-anywhere');
    assert.equal(g.shellRuns, 1);
  });

  // Sabotage (timer set to 1e9 ms): "Timeout of 20000ms exceeded" — waiting for `sleep 30`.
  it('gives up on a shell that does not answer in time', async () => {
    const t = Date.now();
    assert.equal(await finder(slowShell, { timeoutMs: 300 }).find('nvm-agent'), undefined);
    assert.ok(Date.now() - t < 5000, `took ${Date.now() - t} ms`);
  });

  // Sabotage (SAFE_NAME = /^/): "AssertionError: the shell ran touch" — the file was created.
  it('never puts a name with shell syntax into the shell line', async () => {
    const cwd = process.cwd();
    process.chdir(root); // the shell's working folder: where `touch` would write
    try {
      const f = finder(fakeShell);
      assert.equal(await f.find('x;touch pwned'), undefined);
      assert.equal(await f.find('x$(touch pwned2)'), undefined);
    } finally {
      process.chdir(cwd);
    }
    assert.ok(!existsSync(path.join(root, 'pwned')) && !existsSync(path.join(root, 'pwned2')), 'the shell ran touch');
  });

  it('reads only marked absolute paths to executables (banners, aliases and functions do not count)', () => {
    const out = [
      'Welcome /etc/motd',
      '__reins_command__ ll',
      "alias ll='ls -l'",
      '__reins_command__ sh',
      '/bin/sh',
      '__reins_command__ fn',
      'fn',
      '__reins_command__ gone',
      '/nonexistent/bin/gone',
    ].join('\n');
    assert.deepEqual([...parseAnswers(out)], [['sh', '/bin/sh']]);
  });

  it('uses an absolute command as given, if it is there', async () => {
    const f = finder(fakeShell);
    assert.deepEqual(await f.find(path.join(loginBin, 'nvm-agent')), { path: path.join(loginBin, 'nvm-agent'), via: 'as-given' });
    assert.equal(await f.find(path.join(loginBin, 'nope')), undefined);
    assert.equal(f.shellRuns, 0);
  });
});
