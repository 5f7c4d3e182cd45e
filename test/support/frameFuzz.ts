// What the framing fuzz tests share (unit: a few thousand frames; reliability: 100,000): an
// AcpConnection over two pipes instead of a process, a corpus of valid ACP frames, the
// mutations fast-check applies to them, and the oracle that says what the reader must do with
// each line.
import * as fc from 'fast-check';
import { PassThrough } from 'node:stream';
import type { AgentProcess, ExitInfo } from '../../src/acp/agentProcess';
import { AcpConnection } from '../../src/acp/connection';
import type { TraceLevel } from '../../src/acp/trace';
import { Deferred } from '../../src/util/deferred';
import { MemoryLogger } from '../../src/util/logger';

/** An AcpConnection whose agent is two pipes: `agentWrites` is what the agent prints. */
export function pipeConnection(trace: TraceLevel, maxLineBytes?: number) {
  const agentWrites = new PassThrough();
  const agentReads = new PassThrough();
  agentReads.resume(); // the client's answers: nobody reads them here
  const exited = new Deferred<ExitInfo>();
  // Only what AcpConnection reads of its agent: the two streams and the exit.
  const agent = { stdout: agentWrites, stdin: agentReads, exited: exited.promise, exit: undefined } as unknown as AgentProcess;
  const log = new MemoryLogger();
  const updates: unknown[] = [];
  const conn = new AcpConnection(
    agent,
    {
      sessionUpdate: (params) => updates.push(params),
      requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }),
      readTextFile: () => Promise.resolve({ content: '' }),
      writeTextFile: () => Promise.resolve({}),
    },
    log,
    { trace: () => trace, maxLineBytes },
  );
  return { conn, agentWrites, log, updates, exited };
}

/** The warning the connection logs once for each line it skips. */
export const SKIPPED = /^warn skipped a line from the agent that is not JSON-RPC/;

/** Lets vscode-jsonrpc's queue, which handles one message per setImmediate, handle `messages` messages. */
export async function settle(messages = 1): Promise<void> {
  for (let i = 0; i < messages + 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** JSON nested `depth` levels deep, as text (building it as a value would need the stack we test). */
export const deepJson = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

const SESSION = '"sessionId":"s-1"';
/** Valid frames an agent sends: every shape the client handles, and a few it must survive. */
const FRAMES: string[] = [
  `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}`,
  `{"jsonrpc":"2.0","method":"session/update","params":{${SESSION},"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"héllo — 🐴 ‮evil‬ \\u0000"}}}}`,
  `{"jsonrpc":"2.0","method":"session/update","params":{${SESSION},"update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"<script>alert(1)</script>","status":"pending"}}}`,
  `{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{${SESSION},"toolCall":{"toolCallId":"t1"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}`,
  `{"jsonrpc":"2.0","id":"r-8","method":"fs/read_text_file","params":{${SESSION},"path":"/tmp/x"}}`,
  `{"jsonrpc":"2.0","id":9,"method":"fs/write_text_file","params":{${SESSION},"path":"/tmp/x","content":"y"}}`,
  `{"jsonrpc":"2.0","id":10,"method":"terminal/create","params":{${SESSION},"command":"ls"}}`,
  `{"jsonrpc":"2.0","id":11,"method":"no/such_method","params":{}}`,
  `{"jsonrpc":"2.0","id":12,"error":{"code":-32603,"message":"boom","data":{"x":[1,2,3]}}}`,
  `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`,
  `{"jsonrpc":"2.0","method":"session/update","params":{${SESSION},"update":{"sessionUpdate":"plan","entries":${deepJson(3000)}}}}`,
  `{"jsonrpc":"2.0","method":"session/update","params":${deepJson(20_000, '{"a":', '}').replace(/\{"a":\}/, '{"a":1}')}}`,
  `{"jsonrpc":"2.0","id":{"toString":1},"result":null}`,
  `{"jsonrpc":"2.0","method":{"valueOf":2},"params":[${'"x",'.repeat(2000)}"x"]}`,
];

/**
 * One change to a frame's bytes. None writes '\n', so a mutated frame stays one line. None writes a
 * byte-order mark at a line's start on purpose: that rule is framing.ts's own (its unit tests).
 */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), bytes: fc.uint8Array({ maxLength: 12 }) }),
  fc.record({
    kind: fc.constant('insertText' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    text: fc.constantFrom('"', '{', '}', '[', ']', ',', ':', 'null', '\\', '\\u', '\r', deepJson(12_000), '1e999', '-0'),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), length: fc.integer({ min: 1, max: 60 }) }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function apply(frame: Buffer, m: Mutation): Buffer {
  const at = Math.floor(m.at * frame.length);
  switch (m.kind) {
    case 'flip':
      return Buffer.concat([frame.subarray(0, at), Buffer.from([m.byte === 0x0a ? 0x0b : m.byte]), frame.subarray(at + 1)]);
    case 'delete':
      return Buffer.concat([frame.subarray(0, at), frame.subarray(at + m.length)]);
    case 'insert':
      return Buffer.concat([frame.subarray(0, at), Buffer.from(m.bytes.map((b) => (b === 0x0a ? 0x0b : b))), frame.subarray(at)]);
    case 'insertText':
      return Buffer.concat([frame.subarray(0, at), Buffer.from(m.text), frame.subarray(at)]);
    case 'truncate':
      return frame.subarray(0, at);
    case 'duplicate':
      return Buffer.concat([frame.subarray(0, at + m.length), frame.subarray(at)]);
  }
}

/** A frame from the corpus with up to four mutations (a fifth of them left valid). */
export const mutatedFrame: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.constantFrom(...FRAMES),
    fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 4, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 4 }) }),
  )
  .map(([frame, mutations]) => mutations.reduce(apply, Buffer.from(frame)));

/** What the reader must do with one line, by the framing rules: deliver it, skip and log it, or ignore a blank. */
export function expected(line: Buffer): 'message' | 'skipped' | 'blank' {
  let text = line.toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.trim() === '') return 'blank';
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? 'message' : 'skipped';
  } catch {
    return 'skipped';
  }
}

/** `bytes` cut at the given fractions of its length: any chunking of the same stream. */
export function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  return chunks;
}
