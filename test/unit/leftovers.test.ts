// The leftover check on fake process lists: only what the stopped turn's tool calls ran is a
// leftover; the agent's own processes never are (issue 7 §1: claude-agent-acp's per-session
// Claude Code process and pi-acp's `pi` were ended as "leftovers").
import * as assert from 'node:assert/strict';
import { parseElapsed, parsePsOutput, type ProcessInfo } from '../../src/acp/processTree';
import { findLeftovers, LeftoverWatch, runsCommand, stillRunning, toolCommands, type LeftoverQuery } from '../../src/runtime/leftovers';
import { MemoryLogger } from '../../src/util/logger';
import { nth, sleep } from '../support/helpers';

const T0 = 1_000_000_000_000; // the stopped turn's start
const AGENT = 100;

function proc(pid: number, ppid: number, command: string, startedAt = T0 + 2000, pgid = AGENT): ProcessInfo {
  return { pid, ppid, pgid, startedAt, command };
}

function query(tools: { commands: string[]; seenAt?: number }[], baseline: number[] = []): LeftoverQuery {
  return { agentPid: AGENT, baseline: new Set(baseline), since: T0, tools: tools.map((t) => ({ commands: t.commands, seenAt: t.seenAt ?? T0 + 1000 })) };
}

describe('leftovers: the commands a tool call announces', () => {
  it('reads rawInput.command as a string or an argv, cmd, and the title', () => {
    assert.deepEqual(toolCommands('Run tests', { command: 'npm test' }), ['npm test', 'tests']);
    assert.deepEqual(toolCommands(undefined, { command: ['bash', '-lc', 'sleep 37 && echo done'] }), [
      'bash -lc sleep 37 && echo done',
      'sleep 37 && echo done',
    ]);
    assert.deepEqual(toolCommands('Run `make all`', { cmd: 'make  all' }), ['make all']);
    assert.deepEqual(toolCommands('sleep 37', {}), ['sleep 37']);
    assert.deepEqual(toolCommands(null, null), []);
  });
});

describe('leftovers: does a process run a command', () => {
  const table: [string, string, boolean][] = [
    ['sleep 37', 'sleep 37', true],
    ['sh -c sleep 37', 'sleep 37', true],
    ["/bin/bash -c -l eval 'sleep 37' < /dev/null", 'sleep 37', true], // claude's wrapper
    ['/usr/bin/sleep 37', 'sleep 37', true],
    ['sleep 37', 'sleep 37 && echo done', true],
    ['sleep 370', 'sleep 37', false],
    ['sleep 3', 'sleep 37', false],
    ['node /x/claude-agent-sdk/cli.js --output-format stream-json', 'node', false], // the agent's own, never
    ['node', 'node', true],
    ['/usr/bin/node', 'node', true],
    ['cat', 'ls | cat', false], // a one-word process counts only below a matched shell
    ['ps -o pid --ppid 4242', 'sleep 37', false], // claude's own clean-up
    ['pi', 'sleep 37', false],
  ];
  for (const [args, command, want] of table) {
    it(`${JSON.stringify(args)} runs ${JSON.stringify(command)}: ${want}`, () => assert.equal(runsCommand(args, command), want));
  }
});

describe('leftovers: findLeftovers on a fake process list', () => {
  it("finds codex's cancelled sleep 37, the shell around it and what it started", () => {
    const list = [
      proc(AGENT, 1, 'node codex-acp', T0 - 60_000),
      proc(101, AGENT, 'codex-acp-native', T0 - 59_000),
      proc(200, 101, 'bash -lc sleep 37'),
      proc(201, 200, 'sleep 37'),
    ];
    const found = findLeftovers(list, query([{ commands: ['bash -lc sleep 37', 'sleep 37'] }], [AGENT, 101]));
    assert.deepEqual(found.map((p) => p.pid).sort(), [200, 201]);
  });

  // Sabotage (the tool-command match removed: every new descendant counted, as before):
  // "claude's session process taken: [300,301]".
  it("never takes the agent's own processes started during the turn or after it (claude, pi)", () => {
    const list = [
      proc(AGENT, 1, 'node claude-agent-acp', T0 - 60_000),
      proc(300, AGENT, 'node /x/claude-agent-sdk/cli.js --output-format stream-json --session sess-2', T0 + 3000),
      proc(301, AGENT, 'pi --mode rpc', T0 + 3000),
      proc(302, AGENT, 'ps -o pid --ppid 300', T0 + 3000),
    ];
    const found = findLeftovers(list, query([{ commands: ['sleep 37'] }]));
    assert.deepEqual(
      found.map((p) => p.pid),
      [],
      `claude's session process taken: ${JSON.stringify(found.map((p) => p.pid))}`,
    );
  });

  it('leaves out the baseline, processes older than the turn, and the agent itself', () => {
    const list = [proc(AGENT, 1, 'sleep 37', T0 - 60_000), proc(400, AGENT, 'sleep 37', T0 - 30_000), proc(401, AGENT, 'sleep 37')];
    assert.deepEqual(
      findLeftovers(list, query([{ commands: ['sleep 37'] }], [401])).map((p) => p.pid),
      [],
    );
  });

  it('a process older than its tool call (by more than ps can tell) is not that tool', () => {
    const list = [proc(AGENT, 1, 'agent', T0 - 60_000), proc(500, AGENT, 'sleep 37', T0 + 100)];
    assert.deepEqual(
      findLeftovers(list, query([{ commands: ['sleep 37'], seenAt: T0 + 5000 }])).map((p) => p.pid),
      [],
    );
  });

  // Sabotage (findLeftovers comparing every start with ps's 1.5 s slack again), this printed:
  //   AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: [ + 700, 701 ] (the helper taken for a leftover)
  it("a start read from /proc (known to a few ms) just before the turn is not the turn's, even outside the baseline", () => {
    // A session's own `sleep 37` that came up 200 ms before the turn, after the baseline was listed.
    const helper = { ...proc(700, AGENT, 'sleep 37', T0 - 200), startedWithinMs: 50 };
    const tool = { ...proc(701, AGENT, 'sleep 37', T0 + 1200), startedWithinMs: 50 };
    assert.deepEqual(
      findLeftovers([proc(AGENT, 1, 'agent', T0 - 60_000), helper, tool], query([{ commands: ['sleep 37'] }])).map((p) => p.pid),
      [701],
    );
  });

  it("finds a tool re-parented to init that stays in the agent's group", () => {
    const list = [proc(AGENT, 1, 'agent', T0 - 60_000), proc(600, 1, 'sh -c sleep 37')];
    assert.deepEqual(
      findLeftovers(list, query([{ commands: ['sleep 37'] }])).map((p) => p.pid),
      [600],
    );
  });

  it('nothing without tool calls', () => {
    const list = [proc(AGENT, 1, 'agent', T0 - 60_000), proc(700, AGENT, 'sleep 37')];
    assert.deepEqual(findLeftovers(list, query([])), []);
  });
});

describe('leftovers: still running a little later', () => {
  it('keeps only the same pid with the same command and start', () => {
    const found = [proc(1, 0, 'sleep 37'), proc(2, 0, 'sleep 38'), proc(3, 0, 'sleep 39')];
    const later = [proc(1, 0, 'sleep 37'), proc(2, 0, 'other'), proc(3, 0, 'sleep 39', T0 + 60_000)];
    assert.deepEqual(
      stillRunning(found, later).map((p) => p.pid),
      [1],
    );
  });
});

describe('ps parsing', () => {
  it('parses [[dd-]hh:]mm:ss', () => {
    assert.equal(parseElapsed('00:05'), 5);
    assert.equal(parseElapsed('01:02:03'), 3723);
    assert.equal(parseElapsed('2-00:00:01'), 172801);
  });

  it('parses pid, ppid, pgid, elapsed and the command line with its spaces', () => {
    const now = T0;
    const out = '  10     1    10    01:00 /usr/bin/node agent.js --acp\n  11    10    10       00:02 sh -c sleep 37\nnot a line\n';
    const list = parsePsOutput(out, now);
    assert.deepEqual(list, [
      { pid: 10, ppid: 1, pgid: 10, startedAt: now - 60_000, command: '/usr/bin/node agent.js --acp' },
      { pid: 11, ppid: 10, pgid: 10, startedAt: now - 2000, command: 'sh -c sleep 37' },
    ]);
  });
});

describe('leftovers: the watch', () => {
  // Pids above Linux's pid_max (4194304): signalling them can never reach a real process.
  const P = 5_000_000;
  const agent = proc(P, 1, 'agent', T0 - 60_000, P);
  // The tool starts with the turn it belongs to: times are taken when each test runs.
  let tool: ProcessInfo;
  beforeEach(() => (tool = proc(P + 1, P, 'sh -c sleep 37', Date.now(), P)));

  function watchOver(lists: () => ProcessInfo[][]): LeftoverWatch {
    let call = 0;
    const watch = new LeftoverWatch(new MemoryLogger(), async () => {
      const all = lists();
      return nth(all, Math.min(call++, all.length - 1), 'the process lists');
    });
    watch.beginTurn(Date.now() - 1000);
    watch.noteTool('t', 'sleep 37', { command: 'sleep 37' }, Date.now() - 500);
    return watch;
  }

  it('finds the tool, and re-checks it a moment later', async () => {
    const watch = watchOver(() => [
      [agent, tool],
      [agent, tool],
    ]);
    assert.deepEqual(
      (await watch.scan(P)).map((p) => p.pid),
      [P + 1],
    );
  });

  it('a tool the agent ended itself during the re-check is not reported', async () => {
    const watch = watchOver(() => [[agent, tool], [agent]]);
    assert.deepEqual(await watch.scan(P), []);
  });

  // Sabotage (endFound signalling lastFound without listing again): "ended: [5000001]".
  it('End Them ends only what is still the same process (a pid is reused once its process is gone)', async () => {
    const watch = watchOver(() => [
      [agent, tool],
      [agent, tool],
      [agent, { ...tool, command: 'vim notes.txt', startedAt: tool.startedAt + 120_000 }],
    ]);
    assert.equal((await watch.scan(P)).length, 1);
    const ended = await watch.endFound();
    assert.deepEqual(
      ended.map((p) => p.pid),
      [],
      `ended: ${JSON.stringify(ended.map((p) => p.pid))}`,
    );
  });

  it('barrier resolves once the listing of the outcome is taken', async () => {
    let release: (l: ProcessInfo[]) => void = () => undefined;
    const watch = new LeftoverWatch(new MemoryLogger(), () => new Promise((r) => (release = r)));
    let passed = false;
    void watch.scan(P);
    const barrier = watch.barrier().then(() => (passed = true));
    await sleep(20);
    assert.equal(passed, false, 'waits for the listing');
    release([agent]);
    await barrier;
    assert.equal(passed, true);
  });
});
