// The pure parts of Reins' ACP v2 client: the initialize both ways (v2Init.ts), a permission
// request's question and subject (permissionView.ts), agent-owned terminals (agentTerminals.ts),
// messages by id (messageUpserts.ts with the real transcript), and streamed tool content
// (toolOutputs.ts, the transcript's tool_call_content_chunk). Each table row names its case.
import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { Message } from 'vscode-jsonrpc/node';
import { NdjsonMessageReader } from '../../src/acp/framing';
import type { InitializeRequest, InitializeResponse, RequestPermissionRequest, SessionNotification } from '@agentclientprotocol/sdk';
import { readV2Answer, typedServers, v2InitializeRequest } from '../../src/acp/v2Init';
import { AgentTerminals, AGENT_TERMINAL_BYTES, terminalText } from '../../src/runtime/agentTerminals';
import { asChunk, MessageUpserts } from '../../src/runtime/messageUpserts';
import { permissionAsk } from '../../src/runtime/permissionView';
import { SessionConfig } from '../../src/runtime/sessionConfig';
import { ToolOutputs } from '../../src/runtime/toolOutputs';
import { Transcript } from '../../src/runtime/transcript';
import type { TranscriptEntry } from '../../src/shared/messages';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const text = (t: string) => ({ type: 'text', text: t });
const note = (update: object, sessionId = 's'): SessionNotification => ({ sessionId, update }) as SessionNotification;

describe('ACP v2 initialize', () => {
  const v1: InitializeRequest = {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, auth: { terminal: true }, elicitation: { form: {}, url: {} } },
    clientInfo: { name: 'reins', version: '1.2.3' },
  };

  // Sabotage (v2InitializeRequest returning v1's params with protocolVersion 2), run on 2026-12-06:
  // this printed "+ undefined - { auth: { terminal: {} }, elicitation: …" (no `capabilities`).
  it('the request: info (required, with a title) and capabilities as object markers; no fs, terminal or v1 names', () => {
    const sent = v2InitializeRequest(v1, 2);
    assert.deepEqual(sent.capabilities, { elicitation: { form: {}, url: {} }, auth: { terminal: {} } });
    assert.deepEqual(sent.info, { title: 'Reins', name: 'reins', version: '1.2.3' });
    assert.equal(sent.protocolVersion, 2);
    assert.ok(!('clientCapabilities' in sent) && !('clientInfo' in sent));
  });

  const rows: { name: string; answer: object; caps: object; info?: object }[] = [
    {
      name: 'markers present (objects) read as supported; absent and null as not',
      answer: {
        capabilities: { session: { prompt: { image: {}, audio: null, embeddedContext: {} }, mcp: { stdio: {}, http: {} } } },
        info: { name: 'a', version: '2' },
      },
      caps: { image: true, audio: false, embeddedContext: true, http: true },
      info: { name: 'a', version: '2' },
    },
    {
      name: 'no session capabilities: nothing supported',
      answer: { capabilities: {}, info: { name: 'b', version: '1', title: 'B' } },
      caps: { image: false, audio: false, embeddedContext: false, http: false },
      info: { name: 'b', version: '1', title: 'B' },
    },
    {
      name: 'no capabilities at all (default {})',
      answer: { info: { name: 'c', version: '0' } },
      caps: { image: false, audio: false, embeddedContext: false, http: false },
      info: { name: 'c', version: '0' },
    },
  ];
  for (const row of rows) {
    it(`the answer: ${row.name}`, () => {
      const read = readV2Answer({ protocolVersion: 2, ...row.answer });
      const caps = read.agentCapabilities!;
      assert.deepEqual({ ...caps.promptCapabilities, http: caps.mcpCapabilities?.http }, row.caps);
      assert.equal(caps.loadSession, false);
      assert.deepEqual(read.agentInfo, row.info);
    });
  }

  it('MCP servers: a stdio config gets its `type` (v2 requires it); a typed one is sent as it is', () => {
    const stdio = { name: 'fs', command: '/bin/mcp', args: [], env: [] };
    const http = { type: 'http', name: 'web', url: 'https://x', headers: [] };
    assert.deepEqual(typedServers([stdio, http]), [{ type: 'stdio', ...stdio }, http]);
  });

  it('a v1 answer is read as it came (the same object)', () => {
    const answer = { protocolVersion: 1, agentCapabilities: { loadSession: true }, agentInfo: { name: 'x', version: '1' } } as InitializeResponse;
    assert.equal(readV2Answer(answer), answer);
  });
});

describe('ACP v2 permission requests', () => {
  const options = [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }];
  const rows: { name: string; request: object; ask: object }[] = [
    {
      name: 'v1: the tool call is the question',
      request: { toolCall: { toolCallId: 't', title: 'Edit a.ts' } },
      ask: { title: 'Edit a.ts', toolCall: { toolCallId: 't', title: 'Edit a.ts' }, v2: false },
    },
    {
      name: 'v2 tool_call subject: the question apart from the tool call',
      request: { title: 'Run this?', description: 'Why', subject: { type: 'tool_call', toolCall: { toolCallId: 't', kind: 'execute' } } },
      ask: { title: 'Run this?', description: 'Why', toolCall: { toolCallId: 't', kind: 'execute' }, v2: true },
    },
    {
      name: 'v2 command subject: the command, its cwd, the tool call it links to',
      request: { title: 'Push?', subject: { type: 'command', command: 'git push', cwd: '/w', toolCallId: 't', terminalId: 'x' } },
      ask: { title: 'Push?', command: { command: 'git push', cwd: '/w' }, linkedToolCallId: 't', v2: true },
    },
    { name: 'v2 without a subject: a generic question', request: { title: 'Continue?' }, ask: { title: 'Continue?', v2: true } },
    { name: 'v2 with an unknown subject: a generic question', request: { title: 'Go?', subject: { type: '_mine', x: 1 } }, ask: { title: 'Go?', v2: true } },
    {
      name: 'v2 command subject without a cwd: not a command',
      request: { title: 'Go?', subject: { type: 'command', command: 'ls' } },
      ask: { title: 'Go?', v2: true },
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(permissionAsk({ sessionId: 's', options, ...row.request } as RequestPermissionRequest), row.ask));
  }
});

describe('ACP v2 agent-owned terminals', () => {
  const update = (fields: object) => ({ sessionUpdate: 'terminal_update', terminalId: 't', ...fields }) as never;
  const chunk = (data: string | Buffer) => ({ sessionUpdate: 'terminal_output_chunk', terminalId: 't', data: b64(data) }) as never;

  // Sabotage (a snapshot appended to what was kept): this printed "+ '$ ls\ncafé\nold\nnew\n' - '$ ls\nnew\n'".
  it('chunks append, each decoded on its own (a character split between two); a snapshot replaces; null clears', () => {
    const t = new AgentTerminals();
    t.apply(update({ command: 'ls', cwd: '/w' }));
    t.apply(chunk(Buffer.from([0x63, 0x61, 0x66, 0xc3])));
    assert.equal(t.apply(chunk(Buffer.from([0xa9, 0x0a])))?.text, '$ ls\ncafé\n');
    t.apply(chunk('old\n'));
    assert.equal(t.apply(update({ output: { data: b64('new\n') } }))?.text, '$ ls\nnew\n');
    assert.equal(t.apply(update({ command: null, output: null }))?.text, '');
    assert.equal(t.apply({ sessionUpdate: 'agent_message_chunk' } as never), undefined);
  });

  it('exit status: a code, a signal, or cleared by null; omitted leaves it', () => {
    const t = new AgentTerminals();
    assert.deepEqual(t.apply(update({ exitStatus: { exitCode: 2 } }))?.exitStatus, { exitCode: 2, signal: null });
    assert.deepEqual(t.apply(update({ command: 'x' }))?.exitStatus, { exitCode: 2, signal: null });
    assert.deepEqual(t.apply(update({ exitStatus: { signal: 'SIGTERM' } }))?.exitStatus, { exitCode: null, signal: 'SIGTERM' });
    assert.equal(t.apply(update({ exitStatus: null }))?.exitStatus, undefined);
  });

  it('bounded: a terminal keeps its last bytes, the card its last 32 KB, and says it was cut', () => {
    const t = new AgentTerminals();
    let view;
    for (let i = 0; i < 20; i++) view = t.apply(chunk(`${String(i).padStart(2, '0')}${'x'.repeat(8 * 1024)}\n`));
    assert.equal(view?.truncated, true);
    assert.ok(view.text.length <= 32 * 1024 && view.text.endsWith('x\n'), String(view?.text.length));
    assert.ok(AGENT_TERMINAL_BYTES >= 32 * 1024);
  });

  const texts: [string, string, string][] = [
    ['colours taken out', '\u001b[1;32mok\u001b[0m done', 'ok done'],
    ['a window title taken out', '\u001b]0;title\u0007text', 'text'],
    ['a carriage return starts the line again', '10%\r50%\r100%\r\nnext', '100%\nnext'],
    ['an escape the next chunk finishes is not shown', 'abc\u001b[3', 'abc'],
    ['other control characters dropped, tabs kept', 'a\u0007\tb\u0000', 'a\tb'],
  ];
  for (const [name, raw, shown] of texts) it(`terminalText: ${name}`, () => assert.equal(terminalText(raw), shown));
});

describe('ACP v2 messages by id', () => {
  function setup() {
    const transcript = new Transcript();
    const messages = new MessageUpserts({
      apply: (n) => transcript.apply(n),
      get: (id) => transcript.get(id),
      upsert: (entry, keep) => transcript.upsert(entry, keep),
      get streamingId() {
        return transcript.streamingId;
      },
      endStream: () => transcript.endStream(),
    });
    const feed = (update: object) => {
      if (!messages.take(note(update))) transcript.apply(note(update));
    };
    const shown = () =>
      transcript.entries.map((e: TranscriptEntry) =>
        e.kind === 'agent' || e.kind === 'thought' ? `${e.kind}:${e.markdown}` : e.kind === 'user' ? `user:${e.text}` : e.kind,
      );
    return { transcript, messages, feed, shown };
  }
  const chunk = (messageId: string | undefined, t: string, kind = 'agent_message_chunk') => ({
    sessionUpdate: kind,
    ...(messageId && { messageId }),
    content: text(t),
  });
  const whole = (messageId: string, content: unknown, kind = 'agent_message') => ({
    sessionUpdate: kind,
    messageId,
    ...(content !== undefined && { content }),
  });

  const rows: { name: string; updates: object[]; shown: string[] }[] = [
    { name: 'chunks of one id make one entry', updates: [chunk('a', 'Hel'), chunk('a', 'lo')], shown: ['agent:Hello'] },
    // Sabotage (take() returning false for chunks, as v1 reads them): "+ 'agent:OneTwo' - 'agent:One', - 'agent:Two'".
    {
      name: 'a changed id starts a new entry, even right after another of its kind',
      updates: [chunk('a', 'One'), chunk('b', 'Two')],
      shown: ['agent:One', 'agent:Two'],
    },
    {
      name: "a known id's chunk goes on in its entry after another",
      updates: [chunk('a', 'One'), chunk('b', 'Two'), chunk('a', '!')],
      shown: ['agent:One!', 'agent:Two'],
    },
    // Sabotage (a whole message appended like a chunk): "+ 'agent:AB' - 'agent:B'".
    { name: 'a repeated whole message replaces, never duplicates', updates: [whole('a', [text('A')]), whole('a', [text('B')])], shown: ['agent:B'] },
    {
      name: 'chunks append to a whole message; a later whole one resets it',
      updates: [whole('a', [text('A')]), chunk('a', 'B'), whole('a', [text('C')]), chunk('a', 'D')],
      shown: ['agent:CD'],
    },
    {
      name: 'null and [] clear; omitted content leaves it',
      updates: [whole('a', [text('A')]), whole('a', undefined), whole('b', [text('B')]), whole('b', null)],
      shown: ['agent:A', 'agent:'],
    },
    {
      name: 'thoughts and replayed user messages by id too',
      updates: [whole('u', [text('hi')], 'user_message'), chunk('t', 'hmm', 'agent_thought_chunk'), chunk('u', '!', 'user_message_chunk')],
      shown: ['user:hi!', 'thought:hmm'],
    },
    { name: 'chunks without an id are read as v1 reads them', updates: [chunk(undefined, 'One'), chunk(undefined, 'Two')], shown: ['agent:OneTwo'] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const { feed, shown } = setup();
      for (const u of row.updates) feed(u);
      assert.deepEqual(shown(), row.shown);
    });
  }

  // Sabotage (the acknowledgement branch off): "+ 'user:run it', 'user:run it', 'agent:ok'" (the prompt twice).
  it("the prompt's acknowledgement names the typed prompt (shown once, as typed); a later correction replaces its text", () => {
    const { transcript, messages, feed, shown } = setup();
    messages.promptShown(transcript.user('run it'));
    feed(whole('u1', [text('run it')], 'user_message'));
    feed(chunk('a1', 'ok'));
    assert.deepEqual(shown(), ['user:run it', 'agent:ok']);
    feed(whole('u1', [text('run it, please')], 'user_message'));
    assert.deepEqual(shown(), ['user:run it, please', 'agent:ok']);
    messages.turnEnded();
    feed(whole('u2', [text('another')], 'user_message'));
    assert.deepEqual(shown(), ['user:run it, please', 'agent:ok', 'user:another']);
  });

  // Sabotage (the acknowledgement's chunks appended like any known id's): "+ 'user:run itit' - 'user:run it'".
  it('an acknowledgement streamed as user_message_chunks names the prompt once; its text is not added again', () => {
    const { transcript, messages, feed, shown } = setup();
    messages.promptShown(transcript.user('run it'));
    feed(chunk('u1', 'run ', 'user_message_chunk'));
    feed(chunk('u1', 'it', 'user_message_chunk'));
    feed(chunk('a1', 'ok'));
    assert.deepEqual(shown(), ['user:run it', 'agent:ok']);
  });

  it('a late whole message is shown as its text', () => {
    assert.deepEqual(asChunk({ sessionUpdate: 'agent_message', messageId: 'm', content: [text('late')] } as never), {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm',
      content: text('late'),
    });
  });
});

describe('ACP v2 streamed tool content', () => {
  it('ToolOutputs.append: the first item is the output, each next one a new line; only the delta logged; bounded', () => {
    const log: string[] = [];
    const outputs = new ToolOutputs({ replace: (id, t) => log.push(`replace ${t}`), append: (id, t) => log.push(`append ${t}`) });
    assert.deepEqual(outputs.append('c', 'one', undefined), { tail: 'one', total: 3 });
    assert.deepEqual(outputs.append('c', 'two', 'one'), { tail: 'one\ntwo', total: 7, delta: '\ntwo' });
    assert.deepEqual(log, ['replace one', 'append \ntwo']);
    const long = outputs.append('c', 'x'.repeat(20_000), 'one\ntwo');
    assert.equal(long.total, 7 + 1 + 20_000);
    assert.ok(long.tail.length <= 16 * 1024);
  });

  it('the transcript: a chunk appends to its card (the output replaces what the tool was asked); a diff chunk adds a diff', () => {
    const t = new Transcript();
    const ops: string[] = [];
    t.onOp((op) => ops.push(op.type));
    t.apply(note({ sessionUpdate: 'tool_call_update', toolCallId: 'c', title: 'Grep', status: 'in_progress', rawInput: { pattern: 'x' } }));
    t.apply(note({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 'c', content: { type: 'content', content: text('a.ts') } }));
    t.apply(note({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 'c', content: { type: 'content', content: text('b.ts') } }));
    const card = t.get('c') as Extract<TranscriptEntry, { kind: 'tool' }>;
    assert.equal(card.detail, 'a.ts\nb.ts');
    // The second item went to the panel as an output delta, not the card again.
    assert.deepEqual(ops, ['upsert', 'upsert', 'output']);
    t.apply(note({ sessionUpdate: 'tool_call_content_chunk', toolCallId: 'c', content: { type: 'diff', path: '/w/a.ts', oldText: 'a', newText: 'b' } }));
    assert.equal((t.get('c') as typeof card).diffs?.length, 1);
    // An update with content replaces what the chunks made.
    t.apply(note({ sessionUpdate: 'tool_call_update', toolCallId: 'c', content: [{ type: 'content', content: text('all') }] }));
    assert.equal((t.get('c') as typeof card).detail, 'all');
  });
});

describe('ACP v2 config options', () => {
  // Sabotage (v1Option returning the option as it came): this printed "+ [] - [ { value: 'ask', … } ]"
  // (an option named by `configId` only was dropped as malformed).
  it('an option named by configId, its select groups by groupId, read as v1 names them', () => {
    const config = new SessionConfig('s');
    const mode = {
      configId: 'mode',
      name: 'Mode',
      category: 'mode',
      type: 'select',
      currentValue: 'ask',
      options: [{ groupId: 'basic', name: 'Basic', options: [{ value: 'ask', name: 'Ask' }] }],
    };
    config.setInitial({ configOptions: [mode as never] });
    assert.deepEqual(
      config.choices('mode').map((c) => ({ value: c.value, group: c.group, current: c.current })),
      [{ value: 'ask', group: 'Basic', current: true }],
    );
    const plan = config.plan('mode', 'ask');
    assert.equal('params' in plan && (plan.params as { configId?: string }).configId, 'mode', JSON.stringify(plan));
  });
});

describe('ACP v2 on stdio: JSON-RPC batches', () => {
  // Sabotage (an array line refused whole, as before): this printed "+ [] - [ 'session/update', 'session/update' ]".
  it('a batch line is its entries, in order; an entry that is not an object is malformed, the rest still read', () => {
    const input = new PassThrough();
    const messages: Message[] = [];
    const malformed: string[] = [];
    new NdjsonMessageReader(input, { onMalformedLine: (first, why) => malformed.push(why) }).listen((m) => messages.push(m));
    input.write('[{"jsonrpc":"2.0","method":"session/update","params":{}},{"jsonrpc":"2.0","method":"session/update","params":{}}]\n');
    assert.deepEqual(
      messages.map((m) => (m as { method?: string }).method),
      ['session/update', 'session/update'],
    );
    input.write('[7,{"jsonrpc":"2.0","id":3,"result":{}}]\n[]\n');
    assert.equal(messages.length, 3);
    assert.deepEqual(malformed, ['not a JSON object', 'not a JSON object']);
  });
});
