import { nth } from '../support/helpers';
// Realistic traffic for the benchmarks: the text of a long streamed answer cut into chunks as
// model APIs cut them (a few characters to a few words), Markdown and code included, and
// non-ASCII text (accents, typographic punctuation, CJK, emoji) so that 64 KiB reads split
// UTF-8 sequences. Deterministic: every run measures the same bytes.

const PIECES = [
  'The ',
  'function ',
  '`parseConfig`',
  ' reads ',
  'the file ',
  'and returns ',
  'a typed ',
  'object',
  '. ',
  'If the path ',
  'does not exist',
  ', it throws ',
  '`ENOENT`',
  '.\n\n',
  '## Changes',
  '\n\n',
  '- ',
  'Renamed ',
  '`load`',
  ' to ',
  '`loadConfig`',
  ' in ',
  '`src/config.ts`',
  '\n',
  '```ts\n',
  'export async function ',
  'loadConfig(path: string): Promise<Config> {\n',
  '  const text = await readFile(path, "utf8");\n',
  '  return JSON.parse(text) as Config;\n',
  '}\n',
  '```\n',
  'café ',
  'naïve ',
  'résumé ',
  '— ',
  '“quoted” ',
  '‘single’ ',
  '… ',
  'Ünïcödé ',
  'Grüße ',
  'señor ',
  '日本語の',
  'テキスト',
  '中文字符',
  '한국어 ',
  '🙂 ',
  '🚀 ',
  '✅ ',
  '→ ',
  '≤ 3× ',
  'because ',
  'the tests ',
  'still pass',
  '; ',
  'however, ',
  'the build ',
  'needs ',
  '`npm ci`',
  ' first.\n',
];

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` chunk texts of one to four pieces each (about 15 characters on average). */
export function chunkTexts(n: number, seed = 1): string[] {
  const rnd = prng(seed);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const k = 1 + Math.floor(rnd() * 4);
    let s = '';
    for (let j = 0; j < k; j++) s += PIECES[Math.floor(rnd() * PIECES.length)];
    out[i] = s;
  }
  return out;
}

const SESSION_ID = 'sess-1';

/** One `session/update` agent_message_chunk notification, as an agent sends it. */
export function chunkNotification(text: string) {
  return {
    jsonrpc: '2.0' as const,
    method: 'session/update',
    params: { sessionId: SESSION_ID, update: { sessionUpdate: 'agent_message_chunk' as const, content: { type: 'text' as const, text } } },
  };
}

/** `buf` cut into `size`-byte reads, as a pipe delivers it; and how many cuts split a UTF-8 sequence. */
export function cut(buf: Buffer, size: number): { chunks: Buffer[]; splitUtf8: number } {
  const chunks: Buffer[] = [];
  let splitUtf8 = 0;
  for (let i = 0; i < buf.length; i += size) {
    chunks.push(buf.subarray(i, Math.min(buf.length, i + size)));
    // A continuation byte (10xxxxxx) right after the cut: the cut is inside a character.
    if (i > 0 && (buf.readUInt8(i) & 0xc0) === 0x80) splitUtf8++;
  }
  return { chunks, splitUtf8 };
}

/**
 * What a client writes, in a realistic mix: prompts, answers to permission requests, and
 * answers to fs/read_text_file (one in ten carries a 4 KiB file).
 */
export function clientMessages(n: number): object[] {
  const file = chunkTexts(300, 7).join('').slice(0, 4096);
  const out: object[] = [];
  for (let i = 0; i < n; i++) {
    switch (i % 10) {
      case 0:
        out.push({ jsonrpc: '2.0', id: i, result: { content: file } });
        break;
      case 1:
      case 2:
      case 3:
        out.push({
          jsonrpc: '2.0',
          id: i,
          method: 'session/prompt',
          params: { sessionId: SESSION_ID, prompt: [{ type: 'text', text: 'Rename loadConfig and update its callers, then run the tests.' }] },
        });
        break;
      case 4:
        out.push({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: SESSION_ID } });
        break;
      default:
        out.push({ jsonrpc: '2.0', id: i, result: { outcome: { outcome: 'selected', optionId: 'allow-once' } } });
    }
  }
  return out;
}

/**
 * A realistic stretch of an agent's output: mostly small message chunks, a tool call now and
 * then, and one in 500 messages a tool result carrying 100 KB of output (a test run, a file).
 */
export function traffic(n: number): { bytes: Buffer; count: number; toolOutputs: number } {
  const texts = chunkTexts(n, 3);
  const output = sourceFile(100_000);
  const lines: string[] = [];
  let toolOutputs = 0;
  for (let i = 0; i < n; i++) {
    if (i % 500 === 250) {
      toolOutputs++;
      const update = {
        sessionUpdate: 'tool_call_update',
        toolCallId: `call-${i}`,
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: output } }],
      };
      lines.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SESSION_ID, update } }));
    } else if (i % 100 === 50) {
      const update = {
        sessionUpdate: 'tool_call',
        toolCallId: `call-${i}`,
        title: 'Run npm test',
        kind: 'execute',
        status: 'pending',
        rawInput: { command: 'npm test' },
      };
      lines.push(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SESSION_ID, update } }));
    } else {
      lines.push(JSON.stringify(chunkNotification(nth(texts, i, 'the texts'))));
    }
  }
  return { bytes: Buffer.from(lines.join('\n') + '\n', 'utf8'), count: n, toolOutputs };
}

/** `size` characters of plausible TypeScript (ASCII, as most source files are). */
export function sourceFile(size: number): string {
  const rnd = prng(9);
  const lines = [
    'export function parseConfig(path: string): Config {',
    '  const text = readFileSync(path, "utf8");',
    '  if (!text.trim()) throw new Error(`empty config: ${path}`);',
    '  return { ...defaults, ...(JSON.parse(text) as Partial<Config>) };',
    '}',
    '',
    '// Retries with back-off: the server may still be starting.',
    'for (let attempt = 0; attempt < 5; attempt++) {',
    '  await delay(100 * 2 ** attempt);',
    '}',
  ];
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const line = lines[Math.floor(rnd() * lines.length)] + '\n';
    parts.push(line);
    length += line.length;
  }
  return parts.join('').slice(0, size);
}
