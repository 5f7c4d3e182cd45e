// The leftover matching's edges, written for mutants that survived `npm run test:mutation`
// (docs/RELIABILITY.md): the shapes of rawInput a tool call may carry, a title's verb, whole
// words, and the time slack at exactly its value. Each case names what it keeps from breaking.
import * as assert from 'node:assert/strict';
import type { ProcessInfo } from '../../src/acp/processTree';
import { findLeftovers, runsCommand, stillRunning, toolCommands, type LeftoverQuery } from '../../src/runtime/leftovers';

const T0 = 1_000_000_000_000; // the stopped turn's start
const AGENT = 100;
const SLACK = 1500; // ps gives start times to the second

function proc(pid: number, ppid: number, command: string, startedAt = T0 + 2000): ProcessInfo {
  return { pid, ppid, pgid: AGENT, startedAt, command };
}

function query(commands: string[][], seenAt = T0 + 1000, baseline: number[] = []): LeftoverQuery {
  return { agentPid: AGENT, baseline: new Set(baseline), since: T0, tools: commands.map((c) => ({ commands: c, seenAt })) };
}

const pids = (found: ProcessInfo[]) => found.map((p) => p.pid).sort((a, b) => a - b);

describe('leftovers: what a tool call announces, at the edges', () => {
  it('an argv of blanks, of mixed types, or no argv at all announces nothing', () => {
    assert.deepEqual(toolCommands(null, { command: [' ', '  '] }), []);
    assert.deepEqual(toolCommands(null, { command: ['sleep', 37] }), []);
    assert.deepEqual(toolCommands(null, { command: 42, cmd: { run: 'sleep 37' } }), []);
  });

  it('only an argv whose last word holds a script adds that script', () => {
    assert.deepEqual(toolCommands(null, { command: ['ls', '-la'] }), ['ls -la']);
    assert.deepEqual(toolCommands(null, { command: ['echo', 'hi '] }), ['echo hi']);
  });

  it('a title alone, with no rawInput, and its verb only at the start', () => {
    assert.deepEqual(toolCommands('Run `make all`', undefined), ['make all']);
    assert.deepEqual(toolCommands('make run fast', undefined), ['make run fast']);
    assert.deepEqual(toolCommands('Bash : sleep 37', undefined), ['sleep 37']);
  });

  it('a command with blanks around it is taken without them', () => {
    assert.deepEqual(toolCommands(null, { command: '  sleep 37 ' }), ['sleep 37']);
  });
});

describe('leftovers: whole words only', () => {
  it('an empty command runs nothing, and a word inside a longer one is not it', () => {
    assert.equal(runsCommand('ls /tmp/', ''), false);
    assert.equal(runsCommand('xsleep 37', 'sleep 37'), false);
    assert.equal(runsCommand('sh -c xsleep 37; sleep 37', 'sleep 37'), true);
  });
});

describe('leftovers: findLeftovers at the edges', () => {
  const agent = proc(AGENT, 1, 'agent', T0 - 60_000);

  it("what a matched tool started is the tool's, whatever it runs (npm test → node jest)", () => {
    const list = [agent, proc(200, AGENT, 'sh -c npm test'), proc(201, 200, 'node /x/jest.js')];
    assert.deepEqual(pids(findLeftovers(list, query([['npm test']]))), [200, 201]);
  });

  it('a tool call with several commands matches on any of them', () => {
    const list = [agent, proc(300, AGENT, 'sleep 37')];
    assert.deepEqual(pids(findLeftovers(list, query([['make all', 'sleep 37']]))), [300]);
  });

  it('a baseline process is never a leftover, even when it runs the command', () => {
    const list = [agent, proc(400, AGENT, 'sleep 37')];
    assert.deepEqual(pids(findLeftovers(list, query([['sleep 37']], T0 + 1000, [400]))), []);
  });

  it('the slack at exactly its value still counts: before the tool call, and before the turn', () => {
    const seenAt = T0 + 5000;
    const list = [agent, proc(500, AGENT, 'sleep 37', seenAt - SLACK)];
    assert.deepEqual(pids(findLeftovers(list, query([['sleep 37']], seenAt))), [500]);
    const fromProc = { ...proc(501, AGENT, 'sleep 37', T0 - 50), startedWithinMs: 50 };
    assert.deepEqual(pids(findLeftovers([agent, fromProc], query([['sleep 37']], T0))), [501]);
  });

  it('still running: a start that moved by exactly the slack is the same process', () => {
    const found = [proc(1, 0, 'sleep 37')];
    assert.deepEqual(pids(stillRunning(found, [proc(1, 0, 'sleep 37', T0 + 2000 + SLACK)])), [1]);
  });
});
