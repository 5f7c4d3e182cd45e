// `tool output`: an agent that resends a tool call's whole accumulated output on every
// tool_call_update (200 updates of an output growing to 200 KB), through the host's side of the
// panel: the transcript, the outbox and what it posts. The wire itself is quadratic (each update
// carries all the output so far), so each update is judged against the least any client must do
// with it, JSON.parse of its line, in the same run: Reins' work per update must stay a bounded
// multiple of that, not grow with what came before; and what it posts per update must be flat.
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { Outbox } from '../../src/panel/outbox';
import { Transcript } from '../../src/runtime/transcript';
import type { HostToWebview } from '../../src/shared/messages';
import { fmtSpread, gc, median, now, record } from './harness';

const MAX_RATIO = 3;
/** What is posted for the last updates over the first: flat means about 1. */
const POSTED_MAX_RATIO = 1.5;

/** The 200 updates' lines, as the agent writes them. */
function updates(count: number, finalBytes: number): string[] {
  const step = Math.floor(finalBytes / count);
  const lines: string[] = [];
  let whole = '';
  for (let i = 0; i < count; i++) {
    while (whole.length < (i + 1) * step) whole += `${String(whole.length).padStart(8, '0')} test output line: ok\n`;
    const update = { sessionUpdate: 'tool_call_update', toolCallId: 'run', content: [{ type: 'content', content: { type: 'text', text: whole } }] };
    lines.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update } }));
  }
  return lines;
}

function runOnce(lines: string[]): { parse: number[]; reins: number[]; posted: number[] } {
  const transcript = new Transcript();
  const posted: number[] = [];
  let size = 0;
  const outbox = new Outbox(
    (m: HostToWebview) => (size += JSON.stringify(m).length),
    (flush) => (queueMicrotask(flush), () => undefined),
    (flush) => (queueMicrotask(flush), () => undefined),
  );
  transcript.onOp((op) => op.type !== 'reset' && outbox.post(op));
  transcript.apply({
    sessionId: 's',
    update: { sessionUpdate: 'tool_call', toolCallId: 'run', title: 'npm test', kind: 'execute', status: 'in_progress' },
  });
  outbox.flush();
  const parse: number[] = [];
  const reins: number[] = [];
  for (const line of lines) {
    const t0 = now();
    const message = JSON.parse(line) as { params: SessionNotification };
    const t1 = now();
    size = 0;
    transcript.apply(message.params);
    outbox.flush(); // one flush per update: what the panel would get for it
    reins.push(now() - t1);
    parse.push(t1 - t0);
    posted.push(size);
  }
  return { parse, reins, posted };
}

export function benchToolOutput(count: number, finalBytes: number, rounds: number): Promise<void> {
  console.log(`\n4b. Tool output resent whole: ${count} tool_call_updates of an output growing to ${(finalBytes / 1000).toFixed(0)} KB`);
  const lines = updates(count, finalBytes);
  runOnce(lines); // warm-up
  const ratios: number[] = [];
  const lastReins: number[] = [];
  const lastParse: number[] = [];
  let posted: number[] = [];
  for (let r = 0; r < rounds; r++) {
    gc();
    const run = runOnce(lines);
    const tenth = Math.max(1, Math.floor(count / 10));
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    // The last tenth of the updates, the biggest: Reins' time over their parse time.
    lastReins.push(sum(run.reins.slice(-tenth)));
    lastParse.push(sum(run.parse.slice(-tenth)));
    ratios.push(sum(run.reins.slice(-tenth)) / sum(run.parse.slice(-tenth)));
    posted = run.posted;
  }
  const ratio = median(ratios);
  record({
    name: 'tool output resent whole: the last 20 updates',
    reins: `${fmtSpread(lastReins)} (transcript + outbox)`,
    baseline: `JSON.parse of the same lines: ${fmtSpread(lastParse)}`,
    ratio,
    target: `ratio ≤ ${MAX_RATIO}`,
    pass: ratio <= MAX_RATIO,
    note: 'each update carries the whole output so far (the wire is quadratic); Reins must cost a bounded multiple of reading it, not more as the output grows',
  });
  const tenth = Math.max(1, Math.floor(count / 10));
  const first = median(posted.slice(1, 1 + tenth));
  const last = median(posted.slice(-tenth));
  record({
    name: 'tool output resent whole: posted to the panel per update',
    reins: `last ${tenth}: median ${last} bytes`,
    baseline: `updates 2–${tenth + 1}: median ${first} bytes (the first update posts the card)`,
    ratio: last / first,
    target: `ratio ≤ ${POSTED_MAX_RATIO}`,
    pass: last / first <= POSTED_MAX_RATIO,
    note: `each update's message is its delta (an output append), not the card with its output again; the last update's JSON line is ${(nthLast(lines).length / 1000).toFixed(0)} KB`,
  });
  return Promise.resolve();
}

function nthLast(xs: string[]): string {
  return xs[xs.length - 1] ?? '';
}
