// A local imitation of the model APIs that real ACP agents call, so the interop suite runs
// offline with no key. It speaks just enough of three wire formats:
//   OpenAI Responses          POST /v1/responses                      (codex)
//   OpenAI Chat Completions   POST /v1/chat/completions               (opencode)
//   Gemini                    POST /v1beta/models/M:streamGenerateContent?alt=sse,
//                             :generateContent, :countTokens          (gemini-cli)
// The reply is chosen by a keyword in the latest user message (see `Keyword`). When the latest
// item of the conversation is a tool result, the reply is the text "done", so a tool turn ends.
// Every request is logged (path, keyword, tools offered) to `logFile` for debugging.
import * as http from 'node:http';
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

/** PLAIN: short text. LONGCMD: shell `sleep 37`. EDIT: write hello.txt. SLOW: 40 chunks 250 ms
 *  apart. STALL: headers, then nothing until the client goes away. */
export type Keyword = 'PLAIN' | 'LONGCMD' | 'EDIT' | 'SLOW' | 'STALL' | 'TOOLRESULT' | 'OTHER';
const KEYWORDS: Keyword[] = ['LONGCMD', 'EDIT', 'SLOW', 'STALL', 'PLAIN'];

export const PLAIN_ANSWER = 'pong from the fake model';
export const DONE_ANSWER = 'done';
export const EDIT_CONTENT = 'hello from the fake model\n';
export const LONG_COMMAND = 'sleep 37';

export interface FakeModelRequest { at: number; path: string; keyword: Keyword; tools: string[] }
export interface FakeModel {
  url: string; // http://127.0.0.1:PORT
  port: number;
  requests: FakeModelRequest[];
  close(): Promise<void>;
}

export interface FakeModelOptions {
  logFile?: string;
  /** Also write each request body to the log (large; for finding out what an agent sends). */
  logBodies?: boolean;
  slowChunks?: number;
  slowIntervalMs?: number;
}

/** What the reply should do, independent of the wire format. */
type Plan =
  | { kind: 'text'; chunks: string[]; intervalMs: number }
  | { kind: 'stall' }
  | { kind: 'tool'; name: string; args: Record<string, unknown>; freeform?: string };

export async function startFakeModel(opts: FakeModelOptions = {}): Promise<FakeModel> {
  const requests: FakeModelRequest[] = [];
  const open = new Set<http.ServerResponse>();
  let seq = 0;
  const log = (line: string) => {
    if (opts.logFile) appendFileSync(opts.logFile, `${new Date().toISOString()} ${line}\n`);
  };

  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      try {
        handle(req, res, body);
      } catch (e) {
        log(`ERROR ${req.url}: ${(e as Error).stack}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(e) } }));
      }
    });
  });

  function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const json = raw ? safeParse(raw) : {};
    if (req.method === 'GET') {
      // Model listings some agents ask for at start-up.
      log(`GET ${path}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }], models: [] }));
      return;
    }
    let api: 'responses' | 'chat' | 'gemini';
    if (path.endsWith('/responses')) api = 'responses';
    else if (path.endsWith('/chat/completions')) api = 'chat';
    else if (path.includes(':')) api = 'gemini';
    else {
      log(`404 ${req.method} ${path}`);
      res.writeHead(404).end();
      return;
    }
    if (api === 'gemini' && path.endsWith(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: Math.ceil(raw.length / 4) }));
      return;
    }
    const conv = api === 'responses' ? readResponses(json) : api === 'chat' ? readChat(json) : readGemini(json);
    const keyword: Keyword = conv.lastIsToolResult ? 'TOOLRESULT' : pickKeyword(conv.userTexts);
    const entry = { at: Date.now(), path, keyword, tools: conv.tools };
    requests.push(entry);
    log(`${path} keyword=${keyword} side=${conv.side} tools=[${conv.tools.join(',')}]`);
    if (opts.logBodies) log(`BODY ${raw}`);

    // Side requests (title generation, next-speaker checks, …) get a short neutral answer, so
    // they neither trigger tools nor stall.
    const plan: Plan = conv.side ? text('ok', 0) : planFor(keyword, conv.userTexts, conv.tools, opts);
    open.add(res);
    res.on('close', () => open.delete(res));
    const id = ++seq;
    if (api === 'gemini' && !path.includes(':streamGenerateContent')) return geminiUnary(res, plan, json);
    if (api === 'responses') return streamResponses(res, plan, id);
    if (api === 'chat') return streamChat(res, plan, id, String(json.model ?? 'fake-model'));
    return streamGemini(res, plan);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  log(`listening on ${port}`);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of open) r.destroy(); // STALL replies never end by themselves
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function safeParse(s: string): any {
  try {
    return JSON.parse(s);
  } catch {
    return {};
  }
}

function text(s: string, intervalMs: number, chunks = 1): Plan {
  const size = Math.ceil(s.length / chunks);
  const parts: string[] = [];
  for (let i = 0; i < s.length; i += size) parts.push(s.slice(i, i + size));
  return { kind: 'text', chunks: parts, intervalMs };
}

function pickKeyword(userTexts: string[]): Keyword {
  // The latest user message that carries a keyword: agents add their own user messages
  // (environment context, reminders), which must not hide the prompt's keyword.
  for (let i = userTexts.length - 1; i >= 0; i--) {
    const k = KEYWORDS.find((w) => userTexts[i].includes(w));
    if (k) return k;
  }
  return 'OTHER';
}

function planFor(k: Keyword, userTexts: string[], tools: string[], o: FakeModelOptions): Plan {
  switch (k) {
    case 'TOOLRESULT':
      return text(DONE_ANSWER, 0);
    case 'PLAIN':
    case 'OTHER':
      return text(PLAIN_ANSWER, 0);
    case 'SLOW': {
      const n = o.slowChunks ?? 40;
      return { kind: 'text', chunks: Array.from({ length: n }, (_, i) => `slow ${i + 1} `), intervalMs: o.slowIntervalMs ?? 250 };
    }
    case 'STALL':
      return { kind: 'stall' };
    case 'LONGCMD':
      return shellCall(tools);
    case 'EDIT': {
      // The prompt may name the absolute path to write, right after the keyword (agents differ
      // on relative paths; gemini's context also lists the folder, `└───hello.txt`).
      const last = [...userTexts].reverse().find((t) => t.includes('EDIT')) ?? '';
      const file = /EDIT\s+(\S*hello\.txt)/.exec(last)?.[1] ?? 'hello.txt';
      return editCall(tools, file);
    }
  }
}

/** The long shell command, in whichever shell tool the agent offered. */
function shellCall(tools: string[]): Plan {
  if (tools.includes('exec_command')) return { kind: 'tool', name: 'exec_command', args: { cmd: LONG_COMMAND } };
  if (tools.includes('shell_command')) return { kind: 'tool', name: 'shell_command', args: { command: LONG_COMMAND } };
  if (tools.includes('shell')) return { kind: 'tool', name: 'shell', args: { command: ['bash', '-lc', LONG_COMMAND] } };
  if (tools.includes('run_shell_command'))
    return { kind: 'tool', name: 'run_shell_command', args: { command: LONG_COMMAND, description: 'wait a while' } };
  if (tools.includes('bash')) return { kind: 'tool', name: 'bash', args: { command: LONG_COMMAND, description: 'wait a while' } };
  return text(`no shell tool offered (tools: ${tools.join(',')})`, 0);
}

function editCall(tools: string[], file: string): Plan {
  if (tools.includes('apply_patch')) {
    const patch = `*** Begin Patch\n*** Add File: ${file}\n+${EDIT_CONTENT.trimEnd()}\n*** End Patch\n`;
    return { kind: 'tool', name: 'apply_patch', args: { input: patch }, freeform: patch };
  }
  if (tools.includes('write_file')) return { kind: 'tool', name: 'write_file', args: { file_path: file, content: EDIT_CONTENT } };
  if (tools.includes('write')) return { kind: 'tool', name: 'write', args: { filePath: file, content: EDIT_CONTENT } };
  return text(`no write tool offered (tools: ${tools.join(',')})`, 0);
}

interface Conversation { userTexts: string[]; lastIsToolResult: boolean; tools: string[]; side: boolean }

const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => (typeof p === 'string' ? p : p?.text ?? '')).join('\n') : '';

/** A request the agent makes for itself (a title, a summary, a check), told apart from a turn
 *  by having no tools and an instruction we recognise. */
const SIDE = /generate a (short )?title|title generator|next_speaker|who should speak next/i;

function readResponses(j: any): Conversation {
  const input: any[] = Array.isArray(j.input) ? j.input : [];
  const userTexts = input.filter((i) => i.role === 'user').map((i) => textOf(i.content));
  const last = input[input.length - 1];
  const tools = (j.tools ?? []).map((t: any) => t.name ?? t.type);
  return {
    userTexts,
    lastIsToolResult: /_output$/.test(String(last?.type ?? '')),
    tools,
    side: tools.length === 0 && SIDE.test(String(j.instructions ?? '')),
  };
}

function readChat(j: any): Conversation {
  const msgs: any[] = Array.isArray(j.messages) ? j.messages : [];
  const userTexts = msgs.filter((m) => m.role === 'user').map((m) => textOf(m.content));
  const system = msgs.filter((m) => m.role === 'system').map((m) => textOf(m.content)).join('\n');
  const tools = (j.tools ?? []).map((t: any) => t.function?.name ?? t.name);
  return { userTexts, lastIsToolResult: msgs[msgs.length - 1]?.role === 'tool', tools, side: tools.length === 0 && SIDE.test(system) };
}

function readGemini(j: any): Conversation {
  const contents: any[] = Array.isArray(j.contents) ? j.contents : [];
  const partsText = (c: any) => (c.parts ?? []).map((p: any) => p.text ?? '').join('\n');
  const userTexts = contents.filter((c) => c.role === 'user').map(partsText);
  const last = contents[contents.length - 1];
  const tools = (j.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((f: any) => f.name));
  const lastText = last ? partsText(last) : '';
  return {
    userTexts,
    lastIsToolResult: (last?.parts ?? []).some((p: any) => p.functionResponse),
    tools,
    // gemini-cli asks "who speaks next" with a JSON schema and no tools.
    side: tools.length === 0 && (SIDE.test(lastText) || !!j.generationConfig?.responseJsonSchema || !!j.generationConfig?.responseSchema),
  };
}

// ---- writers ------------------------------------------------------------------------------

function sse(res: http.ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
}

/** Sends `chunks` with a pause between them; stops quietly when the client has gone. */
async function paced(res: http.ServerResponse, chunks: string[], intervalMs: number, each: (c: string) => void) {
  for (let i = 0; i < chunks.length; i++) {
    if (res.destroyed || res.writableEnded) return false;
    if (i > 0 && intervalMs > 0) await new Promise((r) => setTimeout(r, intervalMs));
    if (res.destroyed || res.writableEnded) return false;
    each(chunks[i]);
  }
  return true;
}

async function streamResponses(res: http.ServerResponse, plan: Plan, id: number) {
  sse(res);
  if (plan.kind === 'stall') return;
  const respId = `resp_${id}`;
  const ev = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const base = { id: respId, object: 'response', created_at: Math.floor(Date.now() / 1000), model: 'fake-model', status: 'in_progress', output: [] };
  ev('response.created', { response: base });
  let item: any;
  if (plan.kind === 'text') {
    const msgId = `msg_${id}`;
    ev('response.output_item.added', { output_index: 0, item: { type: 'message', id: msgId, role: 'assistant', status: 'in_progress', content: [] } });
    if (!(await paced(res, plan.chunks, plan.intervalMs, (c) => ev('response.output_text.delta', { item_id: msgId, output_index: 0, content_index: 0, delta: c })))) return;
    item = { type: 'message', id: msgId, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: plan.chunks.join(''), annotations: [] }] };
  } else if (plan.freeform !== undefined && plan.name === 'apply_patch') {
    item = { type: 'custom_tool_call', id: `ctc_${id}`, status: 'completed', call_id: `call_${id}`, name: plan.name, input: plan.freeform };
  } else {
    item = { type: 'function_call', id: `fc_${id}`, status: 'completed', call_id: `call_${id}`, name: plan.name, arguments: JSON.stringify(plan.args) };
  }
  ev('response.output_item.done', { output_index: 0, item });
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  ev('response.completed', { response: { ...base, status: 'completed', output: [item], usage } });
  res.end();
}

async function streamChat(res: http.ServerResponse, plan: Plan, id: number, model: string) {
  sse(res);
  if (plan.kind === 'stall') return;
  const chunk = (delta: object, finish: string | null) =>
    res.write(`data: ${JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  let finish = 'stop';
  if (plan.kind === 'text') {
    if (!(await paced(res, plan.chunks, plan.intervalMs, (c) => chunk({ role: 'assistant', content: c }, null)))) return;
  } else {
    chunk({ role: 'assistant', tool_calls: [{ index: 0, id: `call_${id}`, type: 'function', function: { name: plan.name, arguments: JSON.stringify(plan.args) } }] }, null);
    finish = 'tool_calls';
  }
  chunk({}, finish);
  res.write(`data: ${JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: 0, model, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`);
  res.write('data: [DONE]\n\n');
  res.end();
}

const geminiUsage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };

async function streamGemini(res: http.ServerResponse, plan: Plan) {
  sse(res);
  if (plan.kind === 'stall') return;
  const send = (parts: object[], finish?: string) =>
    res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: finish } : {}) }], usageMetadata: geminiUsage, modelVersion: 'fake-model' })}\n\n`);
  if (plan.kind === 'text') {
    const last = plan.chunks.length - 1;
    let i = 0;
    if (!(await paced(res, plan.chunks, plan.intervalMs, (c) => send([{ text: c }], i++ === last ? 'STOP' : undefined)))) return;
  } else {
    send([{ functionCall: { name: plan.name, args: plan.args } }], 'STOP');
  }
  res.end();
}

function geminiUnary(res: http.ServerResponse, plan: Plan, j: any) {
  // Non-streaming calls are gemini-cli's own checks; a JSON schema means it wants JSON back.
  const wantsJson = !!(j.generationConfig?.responseJsonSchema || j.generationConfig?.responseSchema);
  const t = wantsJson
    ? JSON.stringify({ reasoning: 'the model answered', next_speaker: 'user' })
    : plan.kind === 'text' ? plan.chunks.join('') : 'ok';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: t }] }, finishReason: 'STOP', index: 0 }], usageMetadata: geminiUsage }));
}
