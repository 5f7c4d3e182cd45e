// A stopped turn's late updates through the whole path (runtime → feed → transcript) against
// the scripted agent. The pure placement is test/unit/lateUpdates.test.ts.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentRuntime, defaultRuntimeSettings } from '../../src/runtime/agentRuntime';
import { Transcript } from '../../src/runtime/transcript';
import { feedTranscript } from '../../src/runtime/transcriptFeed';
import type { TranscriptEntry } from '../../src/shared/messages';
import { MemoryLogger } from '../../src/util/logger';
import { waitFor } from '../support/helpers';

/** Each entry as `kind:text` (`*` marks a late one), in transcript order. */
function shape(entries: TranscriptEntry[]): string[] {
  return entries.map((e) => {
    const text = e.kind === 'user' ? e.text : e.kind === 'agent' || e.kind === 'thought' ? e.markdown : e.kind === 'tool' ? `${e.id}=${e.status}` : e.kind;
    return `${'late' in e && e.late ? '*' : ''}${e.kind}:${text}`;
  });
}

describe('late updates through the runtime (scripted agent late-after-cancel)', function () {
  this.timeout(20_000);
  const repo = path.resolve(__dirname, '../../..');
  let rt: AgentRuntime | undefined;

  afterEach(async () => {
    await rt?.shutdown('deactivate', 200);
    rt = undefined;
  });

  // Sabotage (transcriptFeed.ts without its onTurnEnded line: no turn is ever known stopped):
  // this printed "timed out after 10000 ms waiting for the late text". With place()'s `ofStopped`
  // return removed instead: "Expected values to be strictly deep-equal", 'agent:it finished after
  // the stop.' between 'user:next' and 'agent:The next answer.'.
  it("the stopped turn's late text and tool result land in its part, the next answer is clean", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reins-late-'));
    const json = readFileSync(path.join(repo, 'test/fixtures/scriptedAgent/scenarios/late-after-cancel.json'), 'utf8');
    rt = new AgentRuntime({
      name: 'scripted',
      launch: {
        command: process.execPath,
        args: [path.join(repo, 'dist', 'scripted-agent.js'), '--scenario-json', json, '--record', path.join(dir, 'r.jsonl')],
        cwd: dir,
      },
      settings: () => ({ ...defaultRuntimeSettings, initializeTimeoutMs: 3000 }),
      log: new MemoryLogger(),
    });
    const transcript = new Transcript();
    feedTranscript(rt, transcript);
    await rt.start();
    const first = rt.turns.prompt('start the job');
    await waitFor('the tool card', () => transcript.get('late-job') !== undefined);
    const report = await rt.turns.stop('user');
    assert.equal(report.outcome, 'aborted');
    await first;
    await waitFor('the late text', () => transcript.entries.some((e) => 'late' in e && e.kind === 'agent'));
    assert.equal((await rt.turns.prompt('next')).kind, 'completed');
    const entries = transcript.entries;
    const next = entries.findIndex((e) => e.kind === 'user' && e.text === 'next');
    assert.deepEqual(shape(entries.slice(next)), ['user:next', 'agent:The next answer.']);
    const stopped = entries.slice(0, next);
    assert.deepEqual(
      stopped.filter((e) => 'late' in e && e.late).map((e) => (e.kind === 'agent' ? e.markdown : e.kind === 'tool' ? `${e.status} ${e.detail}` : e.kind)),
      ['completed late output', 'The job was still running; it finished after the stop.'],
    );
  });
});
