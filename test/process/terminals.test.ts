// terminal/* against real processes in a real temporary folder: the cwd stays inside the
// workspace folder by real path, only the current session and its own terminals are served,
// nothing starts outside a running turn, kill ends the whole process group, and every
// terminal is ended when the session ends. (The same through the editor: test/integration.)
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerminalHost, type TerminalView } from '../../src/acp/clientMethods/terminals';
import { isRunning, listProcesses } from '../../src/acp/processTree';
import { OutputFiles } from '../../src/runtime/outputLog';
import { MemoryLogger } from '../../src/util/logger';
import { refusal } from '../support/refusal';
import { nth, RUN_TAG, sleep, sleepArg, waitFor } from '../support/helpers';

const SESSION = 'sess-1';
const posix = process.platform !== 'win32';

/** This run's `sleep` processes (sleepArg) whose command line starts with `marker` (a length of their own; not the shells around them). */
const withMarker = async (marker: string) => (await listProcesses()).filter((p) => p.command.startsWith(marker) && p.command.endsWith(RUN_TAG));

describe('terminal/* client methods', function () {
  this.timeout(20_000);
  let base: string;
  let ws: string;
  let host: TerminalHost;
  let log: MemoryLogger;
  let session: string | undefined;
  let turn: { phase: string; turnId?: number };
  let views: TerminalView[];
  const m = () => host.methods;
  const create = (params: Record<string, unknown>) => m()['terminal/create']({ sessionId: SESSION, ...params } as never);
  const output = (terminalId: string, sessionId = SESSION) => m()['terminal/output']({ sessionId, terminalId });

  before(function () {
    if (!posix) this.skip(); // process groups and `sh`
  });

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'reins-term-')));
    ws = path.join(base, 'ws');
    fs.mkdirSync(path.join(ws, 'sub'), { recursive: true });
    fs.mkdirSync(path.join(base, 'outside'));
    fs.symlinkSync(path.join(base, 'outside'), path.join(ws, 'link-out'));
    fs.symlinkSync(path.join(ws, 'sub'), path.join(base, 'link-in'));
    fs.writeFileSync(path.join(ws, 'file.txt'), 'x');
    log = new MemoryLogger();
    session = SESSION;
    turn = { phase: 'running', turnId: 1 };
    views = [];
    host = new TerminalHost({ root: ws, log, sessionId: () => session, turn: () => turn });
    host.onOutput((v) => views.push(v));
  });

  afterEach(async () => {
    await host.endAll('test over');
    host.dispose();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('runs a command line through the shell in the folder, with env; output, exit status, wait_for_exit', async () => {
    const { terminalId } = await create({ command: 'echo "$GREETING from $(pwd)"; exit 3', env: [{ name: 'GREETING', value: 'hello' }] });
    assert.deepEqual(await m()['terminal/wait_for_exit']({ sessionId: SESSION, terminalId }), { exitCode: 3, signal: null });
    assert.deepEqual(await output(terminalId), { output: `hello from ${ws}\n`, truncated: false, exitStatus: { exitCode: 3, signal: null } });
    assert.ok(!log.lines.some((l) => l.includes('hello') && l.includes('GREETING=')), 'env values are never logged');
    assert.ok(log.lines.some((l) => /env keys GREETING/.test(l)));
  });

  it('runs a program with args exactly (no shell), in a cwd inside the folder given through a link from outside', async () => {
    const { terminalId } = await create({ command: 'sh', args: ['-c', 'printf "%s|" "$@"; pwd', 'x', 'a b', '$HOME'], cwd: path.join(base, 'link-in') });
    await m()['terminal/wait_for_exit']({ sessionId: SESSION, terminalId });
    assert.equal((await output(terminalId)).output, `a b|$HOME|${path.join(ws, 'sub')}\n`);
  });

  it('keeps output within outputByteLimit, cut at a character boundary', async () => {
    const { terminalId } = await create({ command: "printf 'aaaa€€€€'", outputByteLimit: 7 });
    await m()['terminal/wait_for_exit']({ sessionId: SESSION, terminalId });
    assert.deepEqual(await output(terminalId), { output: '€€', truncated: true, exitStatus: { exitCode: 0, signal: null } });
  });

  it('hands every byte a terminal prints to onOutputData: its log is whole where its buffer keeps the end', async () => {
    const files = new OutputFiles();
    const logged = new TerminalHost({ root: ws, log, sessionId: () => session, turn: () => turn, onOutputData: (id, data) => files.terminal(id, data) });
    const shown: TerminalView[] = [];
    logged.onOutput((v) => shown.push(v));
    try {
      const { terminalId } = await logged.methods['terminal/create']({
        sessionId: SESSION,
        command: 'yes 0123456789 | head -c 8000000',
        outputByteLimit: 1000,
      });
      await logged.methods['terminal/wait_for_exit']({ sessionId: SESSION, terminalId });
      const kept = await logged.methods['terminal/output']({ sessionId: SESSION, terminalId });
      assert.equal(kept.output.length, 1000);
      files.linkTerminal('card', terminalId);
      const file = nth(files.filesOf('card'), 0, 'the terminal log');
      // Sabotage (TerminalHost not passing the data on), this printed:
      //   AssertionError: the terminal log has no element 0 (length 0)
      assert.equal(fs.statSync(file).size, 8_000_000, 'every byte printed is in the log');
      assert.ok(fs.readFileSync(file, 'utf8').endsWith(kept.output));
      // The card says how much it leaves out: all that was printed before what it shows.
      const last = nth(shown, shown.length - 1, 'the views shown');
      assert.equal(last.omittedBytes, 8_000_000 - Buffer.byteLength(last.text));
    } finally {
      await logged.endAll('test over');
      logged.dispose();
      files.dispose();
    }
  });

  // Sabotage (TerminalHost.workingDirectory taking the cwd as given, without resolveForRead),
  // this test printed: AssertionError: expected the request to be refused.
  it('refuses a cwd outside the folder, through a link out, relative, missing or not a directory', async () => {
    const cases: [string, string, RegExp][] = [
      [path.join(base, 'outside'), 'outside-workspace', /terminal\/create refused: cwd is outside the workspace folder/],
      [path.join(ws, 'link-out'), 'outside-workspace', /it leads to .*outside/],
      [path.join(ws, 'sub', '..', '..'), 'outside-workspace', /outside the workspace folder/],
      ['sub', 'not-absolute', /cwd must be absolute/],
      [path.join(ws, 'missing'), 'not-a-directory', /the working directory does not exist/],
      [path.join(ws, 'file.txt'), 'not-a-directory', /cwd is not a directory/],
    ];
    for (const [cwd, reason, message] of cases) {
      const error = await refusal(create({ command: 'touch planted', cwd }));
      assert.equal(error.data?.reason, reason, `${cwd}: ${error.message}`);
      assert.match(error.message, message);
    }
    assert.equal(fs.existsSync(path.join(base, 'outside', 'planted')), false, 'nothing ran outside');
    assert.equal(host.size, 0);
  });

  // Sabotage (TerminalHost.checkSession comparing nothing), this test printed:
  // AssertionError: expected the request to be refused (the terminal/output for sess-other).
  it('serves only the current session, and only ids it gave; released ids say so', async () => {
    const { terminalId } = await create({ command: 'true' });
    const other = await refusal(output(terminalId, 'sess-other'));
    assert.equal(other.data?.reason, 'wrong-session');
    assert.match(other.message, /terminal\/output names session "sess-other", which is not this client's current session \(sess-1\)/);
    assert.equal((await refusal(create({ command: 'true', sessionId: 'sess-other' }))).data?.reason, 'wrong-session');

    const unknown = await refusal(output('term-nope'));
    assert.equal(unknown.code, -32002);
    assert.equal(unknown.data?.reason, 'unknown-terminal');
    assert.match(unknown.message, /unknown terminal "term-nope"/);

    await m()['terminal/release']({ sessionId: SESSION, terminalId });
    const released = await refusal(m()['terminal/kill']({ sessionId: SESSION, terminalId }));
    assert.match(released.message, new RegExp(`terminal ${terminalId} was released by the agent; its id is no longer valid`));

    // A new session: the old session's terminals were ended with it, and their ids say so.
    const { terminalId: second } = await create({ command: `sleep ${sleepArg('30.1')}` });
    await host.endAll('new session');
    session = 'sess-2';
    const gone = await refusal(m()['terminal/output']({ sessionId: 'sess-2', terminalId: second }));
    assert.match(gone.message, /was ended with its session \(new session\)/);
  });

  // Sabotage (TerminalHost.create's turn check removed), this test printed:
  // AssertionError: expected the request to be refused (the first case: while stopping).
  it('starts nothing unless a turn is running: not while one is being stopped, not between turns', async () => {
    for (const phase of ['stopping', 'unverified', 'idle']) {
      turn = phase === 'idle' ? { phase } : { phase, turnId: 1 };
      const error = await refusal(create({ command: 'touch started' }));
      assert.equal(error.data?.reason, 'not-running-turn', phase);
      assert.match(error.message, phase === 'idle' ? /no turn is running/ : /nothing new starts until the agent is known to be quiet/);
    }
    await sleep(100);
    assert.equal(fs.existsSync(path.join(ws, 'started')), false);
  });

  it('a command that is not found is refused at create', async () => {
    const error = await refusal(create({ command: 'reins-no-such-command', args: ['x'] }));
    assert.equal(error.data?.reason, 'command-not-found');
    assert.match(error.message, /command not found: reins-no-such-command/);
  });

  // Sabotage (TerminalProcess spawned without `detached`: no group of its own, so kill(-pid)
  // reaches nothing and only the shell's listed children are signalled), this test printed:
  // AssertionError: Expected values to be strictly deep-equal: exitCode 0, signal null (the
  // shell itself was never killed) where exitCode null, signal 'SIGTERM' was expected.
  it('kill ends the whole tree, keeps the terminal valid (output, exit status), release forgets it', async () => {
    const { terminalId } = await create({ command: `sleep ${sleepArg('31.1')} & sleep ${sleepArg('31.2')} & echo started; wait` });
    await waitFor('both sleeps', async () => (await withMarker('sleep 31.')).length >= 2);
    await waitFor('output', async () => (await output(terminalId)).output === 'started\n');
    const started = Date.now();
    await m()['terminal/kill']({ sessionId: SESSION, terminalId });
    assert.ok(Date.now() - started < 3000, 'kill answered once the tree was gone');
    const left = await withMarker('sleep 31.');
    assert.deepEqual(
      left.map((p) => p.command),
      [],
      `${left.map((p) => p.command).join(', ')} still running`,
    );
    assert.deepEqual(await output(terminalId), { output: 'started\n', truncated: false, exitStatus: { exitCode: null, signal: 'SIGTERM' } });
    assert.deepEqual(await m()['terminal/wait_for_exit']({ sessionId: SESSION, terminalId }), { exitCode: null, signal: 'SIGTERM' });
    await m()['terminal/release']({ sessionId: SESSION, terminalId });
    assert.equal(host.size, 0);
  });

  it('release kills a command that still runs', async () => {
    const { terminalId } = await create({ command: `sleep ${sleepArg('32.1')}` });
    await waitFor('sleep', async () => (await withMarker('sleep 32.1')).length === 1);
    await m()['terminal/release']({ sessionId: SESSION, terminalId });
    assert.deepEqual(await withMarker('sleep 32.1'), []);
  });

  // Sabotage (endAll retiring nothing), this test printed:
  // AssertionError: sleep 33.1 and sleep 33.2 still running after the session ended.
  it('endAll ends every terminal of the session, what their commands left in their groups too, and logs what', async () => {
    await create({ command: `sleep ${sleepArg('33.1')}` });
    turn = { phase: 'running', turnId: 2 };
    const { terminalId } = await create({ command: `(sleep ${sleepArg('33.2')} &) ; exit 0` }); // exits at once, leaves a sleep in its group
    await m()['terminal/wait_for_exit']({ sessionId: SESSION, terminalId });
    await waitFor('both sleeps', async () => (await withMarker('sleep 33.')).length === 2);
    await host.endAll('new session');
    const left = await withMarker('sleep 33.');
    assert.deepEqual(left, [], `${left.map((p) => p.command).join(' and ')} still running after the session ended`);
    const line = log.lines.find((l) => l.includes('new session: ended'));
    assert.match(
      line ?? '',
      new RegExp(
        String.raw`ended 1 running terminal\(s\): term-\d+ \`sleep 33\.1${RUN_TAG}\` \(pid \d+\); and what they left: .*\d+ sleep 33\.2${RUN_TAG}.*; 2 terminal\(s\) of session sess-1 released`,
      ),
    );
    assert.equal(host.size, 0);
  });

  it("knows which turn made each terminal (for that turn's leftover check)", async () => {
    const first = await create({ command: `sleep ${sleepArg('34.1')}` });
    turn = { phase: 'running', turnId: 2 };
    await create({ command: `sleep ${sleepArg('34.2')}` });
    assert.equal(host.runningPids(1).length, 1);
    assert.equal(host.runningPids(2).length, 1);
    assert.ok(isRunning(nth(host.runningPids(1), 0, 'host.runningPids(1)')));
    await m()['terminal/release']({ sessionId: SESSION, terminalId: first.terminalId });
    assert.deepEqual(host.runningPids(1), []);
  });

  // Sabotage (TerminalHost.changed showing every read at once, no timer), this test printed:
  // AssertionError: 42 live updates for 40 writes 10 ms apart (at most one per 100 ms).
  it('shows live output at most every 100 ms, and the exit at once', async () => {
    const { terminalId } = await create({ command: 'for i in $(seq 1 40); do echo $i; sleep 0.01; done' });
    await m()['terminal/wait_for_exit']({ sessionId: SESSION, terminalId });
    const mine = views.filter((v) => v.terminalId === terminalId);
    const last = nth(mine, mine.length - 1, 'mine');
    assert.equal(last.text.split('\n').length, 41);
    assert.deepEqual(last.exitStatus, { exitCode: 0, signal: null });
    assert.ok(mine.length <= 12, `${mine.length} live updates for 40 writes 10 ms apart (at most one per 100 ms)`);
    assert.ok(mine.length >= 2, 'output shown while it ran, not only at the end');
  });
});
