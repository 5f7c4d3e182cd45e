// Group `long:memory` of `npm run bench`: the leak check of the long session, per update received.
// The recorded session (longSession.ts) is loaded by session/load from the scripted agent into a
// real AgentRuntime and a Transcript, in this process (no editor host): the path an extension
// host takes from the agent's stdout to the transcript. Every few turns of the second half the
// heap is measured after full collections, and its growth is judged per MB of session received.
//
// The transcript keeps the conversation's text by design, so the heap grows by that text; what
// must not grow is anything else (a listener, a pending map, a queue, a copy per update). So the
// row's figure is the heap's growth beyond the strings the transcript's entries hold, each
// counted as V8 lays out a flat string; the growth with the text is printed beside it.
//
// A check over time cannot tell this apart: the replay comes in bursts and the heap is collected
// when V8 likes, so it is sampled here per update received instead (longReplay.ts's RSS halves).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { AgentRuntime, defaultRuntimeSettings } from '../../src/runtime/agentRuntime';
import { Transcript } from '../../src/runtime/transcript';
import { silentLogger } from '../../src/util/logger';
import { agentJs } from './agents';
import { gc, hasGc, MB, record } from './harness';
import { emptyFile, writeSession } from './longSession';

/**
 * Growth beyond the transcript's text, MB per MB of session: a few small objects per entry stay.
 * Held both ways: a heap that falls as the session comes is a backlog draining (messages read
 * ahead and not yet handled), which would hide a leak as large.
 */
const MAX_MB_PER_MB = 0.1;
/** Heap samples over the second half: enough for a slope, few enough that collecting stays cheap. */
const SAMPLES = 25;
const UPDATES_PER_TURN = 400;

/** A string's size in V8's heap once flat (64-bit, no pointer compression: a 16-byte header, 8-aligned). */
function stringBytes(s: string): number {
  // Flattened first (a rope of streamed chunks costs more than its text): Number() flattens it.
  Number(s);
  const wide = /[\u0100-\uffff]/.test(s);
  return (16 + s.length * (wide ? 2 : 1) + 7) & ~7;
}

/** Bytes of every string the entries hold, however deep. */
function textBytes(value: unknown): number {
  if (typeof value === 'string') return stringBytes(value);
  if (typeof value !== 'object' || value === null) return 0;
  let sum = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) sum += textBytes(v);
  return sum;
}

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
  heap: number;
  text: number;
}

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
  emptyFile(file);
  const session = writeSession(file, 'long-memory', 'Long memory', dir, turns);
  const mbPerTurn = session.chars / turns / MB;
  const every = Math.max(1, Math.round(turns / 2 / SAMPLES));
  const transcript = new Transcript();
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
  const sample = () => {
    gc();
    gc();
    const heap = process.memoryUsage().heapUsed;
    samples.push({ x: (updates / UPDATES_PER_TURN) * mbPerTurn, heap: heap / MB, text: textBytes(transcript.entries) / MB });
  };
  rt.session.onUpdate((note: SessionNotification) => {
    transcript.apply(note);
    updates++;
    // At a turn's end (its last update handled), every `every` turns of the second half.
    const turn = updates / UPDATES_PER_TURN;
    if (Number.isInteger(turn) && turn >= turns / 2 && (turn - Math.ceil(turns / 2)) % every === 0) sample();
  });
  const started = Date.now();
  try {
    await rt.start();
  } finally {
    await rt.shutdown('deactivate', 500);
    rmSync(dir, { recursive: true, force: true });
  }
  if (updates !== session.updates || samples.length < 3) throw new Error(`${updates} of ${session.updates} updates received, ${samples.length} samples`);
  console.log(`  heap / its text, MB, at MB of session: ${samples.map((s) => `${s.heap.toFixed(1)} / ${s.text.toFixed(1)} at ${s.x.toFixed(1)}`).join(', ')}`);
  const withText = slope(samples.map((s) => ({ x: s.x, y: s.heap })));
  const beyond = slope(samples.map((s) => ({ x: s.x, y: s.heap - s.text })));
  const last = samples[samples.length - 1]!;
  record({
    name: 'long: heap per MB of session, beyond the transcript\u2019s text',
    reins: `${beyond.toFixed(3)} MB/MB over the second half (${samples.length} samples, every ${every} turns)`,
    baseline: `with the text: ${withText.toFixed(3)} MB/MB; heap ${last.heap.toFixed(0)} MB at the end, its text ${last.text.toFixed(0)} MB`,
    ratio: undefined,
    target: `within ±${MAX_MB_PER_MB} MB/MB`,
    pass: Math.abs(beyond) <= MAX_MB_PER_MB,
    note: `${session.updates} updates, ${(session.chars / MB).toFixed(1)} MB of session in ${((Date.now() - started) / 1000).toFixed(0)} s; a leak of one small object per update would show as about ${((UPDATES_PER_TURN * 100) / (mbPerTurn * MB)).toFixed(2)} MB/MB`,
  });
}
