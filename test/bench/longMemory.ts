// Group `long:memory` of `npm run bench`: the leak check of the long session, per update received.
// The recorded session (longSession.ts) is loaded by session/load from the scripted agent into a
// real AgentRuntime and a Transcript, in this process (no editor host): the path an extension
// host takes from the agent's stdout to the transcript. Every few turns of the second half the
// heap is measured after full collections, and its growth is judged per MB of session received.
//
// The transcript is made as a folder's conversation makes it, its settled entries on disk
// (runtime/entryList.ts): what grows with the session then is a stub per entry and anything that
// should not grow at all (a listener, a pending map, a queue, a copy per update). The baseline is
// the same replay with the transcript kept whole in memory.
//
// A check over time cannot tell this apart: the replay comes in bursts and the heap is collected
// when V8 likes, so it is sampled here per update received instead (longReplay.ts's RSS halves).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { AgentRuntime, defaultRuntimeSettings } from '../../src/runtime/agentRuntime';
import { EntryFiles } from '../../src/runtime/entryFiles';
import { Transcript } from '../../src/runtime/transcript';
import { searchTranscript } from '../../src/runtime/transcriptSearch';
import { silentLogger } from '../../src/util/logger';
import { agentJs } from './agents';
import { gc, hasGc, MB, record } from './harness';
import { emptyFile, writeSession, type WrittenSession } from './longSession';

/**
 * Heap growth, MB per MB of session: a stub per entry on disk and the newest entries stay. Held
 * both ways: a heap that falls as the session comes is a backlog draining (messages read ahead and
 * not yet handled), which would hide a leak as large.
 */
const MAX_MB_PER_MB = 0.1;
/** Heap samples over the second half: enough for a slope, few enough that collecting stays cheap. */
const SAMPLES = 25;
const UPDATES_PER_TURN = 400;

/** The least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return num / den;
}

interface Sample {
  /** MB of session received so far. */
  x: number;
  /** MB of heap after full collections. */
  y: number;
}

/** Find in Conversation's search over the whole replayed transcript: ms per search, the median of SEARCHES. */
interface SearchCost {
  ms: number;
  entries: number;
}
const SEARCHES = 7;
/** Found nowhere: every entry read and looked in (the search's worst case). */
const NOWHERE = 'zq-not-in-the-session';

function searchCost(transcript: Transcript): SearchCost {
  const times: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    const t0 = performance.now();
    const found = searchTranscript(transcript, NOWHERE, 200);
    times.push(performance.now() - t0);
    if (found.length > 0) throw new Error(`"${NOWHERE}" found in the session`);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(SEARCHES / 2)]!, entries: transcript.length };
}

/**
 * One replay of the session's `turns` into a transcript (its entries on disk with `spill`): the
 * heap at turn ends of the second half, and then what a search of all of it costs.
 */
async function replay(
  dir: string,
  file: string,
  session: WrittenSession,
  spill: boolean,
): Promise<{ samples: Sample[]; every: number; seconds: number; search: SearchCost }> {
  const turns = session.turns;
  const mbPerTurn = session.chars / turns / MB;
  const every = Math.max(1, Math.round(turns / 2 / SAMPLES));
  const entryFiles = spill ? new EntryFiles() : undefined;
  const transcript = new Transcript(Date.now, undefined, entryFiles);
  const samples: Sample[] = [];
  let updates = 0;
  const rt = new AgentRuntime({
    name: 'bench',
    launch: {
      command: process.execPath,
      args: [agentJs, '--scenario-json', JSON.stringify({ sessions: { load: true, file }, prompts: [{ steps: [] }] })],
      cwd: dir,
    },
    settings: () => ({ ...defaultRuntimeSettings, initializeTimeoutMs: 30_000 }),
    log: silentLogger,
    reopen: { sessionId: session.sessionId, keepTranscript: false },
  });
  rt.session.onUpdate((note: SessionNotification) => {
    transcript.apply(note);
    updates++;
    // At a turn's end (its last update handled), every `every` turns of the second half.
    const turn = updates / UPDATES_PER_TURN;
    if (!Number.isInteger(turn) || turn < turns / 2 || (turn - Math.ceil(turns / 2)) % every !== 0) return;
    gc();
    gc();
    samples.push({ x: turn * mbPerTurn, y: process.memoryUsage().heapUsed / MB });
  });
  const started = Date.now();
  let search: SearchCost | undefined;
  try {
    await rt.start();
    search = searchCost(transcript); // before the entry files go
  } finally {
    await rt.shutdown('deactivate', 500);
    entryFiles?.dispose();
  }
  if (updates !== session.updates || samples.length < 3) throw new Error(`${updates} of ${session.updates} updates received, ${samples.length} samples`);
  if (transcript.length === 0) throw new Error('nothing in the transcript');
  return { samples, every, seconds: (Date.now() - started) / 1000, search };
}

const heaps = (samples: Sample[]) => samples.map((s) => `${s.y.toFixed(1)} at ${s.x.toFixed(1)}`).join(', ');

export async function benchLongMemory(turns: number): Promise<void> {
  console.log(`\nLong session, leak check: ${turns} turns loaded by session/load into AgentRuntime + Transcript, the heap per update received`);
  if (!hasGc()) {
    record({
      name: 'long: heap per MB of session',
      reins: 'n/a',
      baseline: 'n/a',
      ratio: undefined,
      target: `within ±${MAX_MB_PER_MB} MB/MB`,
      pass: undefined,
      note: 'node without --expose-gc',
    });
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-bench-longmem-'));
  const file = path.join(dir, 'sessions.jsonl');
  try {
    emptyFile(file);
    const session = writeSession(file, 'long-memory', 'Long memory', dir, turns);
    const whole = await replay(dir, file, session, false);
    const spilled = await replay(dir, file, session, true);
    console.log(`  heap MB at MB of session, the transcript kept whole: ${heaps(whole.samples)}`);
    console.log(`  heap MB at MB of session, settled entries on disk: ${heaps(spilled.samples)}`);
    const reins = slope(spilled.samples);
    const base = slope(whole.samples);
    const end = (r: { samples: Sample[] }) => r.samples[r.samples.length - 1]!.y.toFixed(0);
    record({
      name: 'long: heap per MB of session (the leak check)',
      reins: `${reins.toFixed(3)} MB/MB over the second half (${spilled.samples.length} samples, every ${spilled.every} turns; ${end(spilled)} MB at the end)`,
      baseline: `the transcript kept whole in memory: ${base.toFixed(3)} MB/MB (${end(whole)} MB at the end)`,
      ratio: undefined,
      target: `within ±${MAX_MB_PER_MB} MB/MB`,
      pass: Math.abs(reins) <= MAX_MB_PER_MB,
      note: `${session.updates} updates, ${(session.chars / MB).toFixed(1)} MB of session, ${spilled.seconds.toFixed(0)} s a replay; one small object kept per update would show as about ${((UPDATES_PER_TURN * 100 * turns) / session.chars).toFixed(2)} MB/MB`,
    });
    record({
      name: 'long: Find in Conversation, one search of the whole session',
      reins: `${spilled.search.ms.toFixed(1)} ms (median of ${SEARCHES}) for ${spilled.search.entries} entries, settled ones read from disk, text found nowhere`,
      baseline: `the transcript kept whole in memory: ${whole.search.ms.toFixed(1)} ms`,
      ratio: spilled.search.ms / whole.search.ms,
      target: 'info',
      pass: undefined,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
