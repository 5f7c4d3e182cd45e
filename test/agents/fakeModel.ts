// A local imitation of the model APIs that real ACP agents call, so the interop suite runs
// offline with no key. It speaks just enough of four wire formats:
//   OpenAI Responses          POST /v1/responses                      (codex)     wireOpenAI.ts
//   OpenAI Chat Completions   POST /v1/chat/completions               (opencode)  wireOpenAI.ts
//   Gemini                    POST /v1beta/models/M:streamGenerateContent?alt=sse,
//                             :generateContent, :countTokens          (gemini-cli) wireGemini.ts
//   Anthropic Messages        POST /v1/messages, /v1/messages/count_tokens (claude) wireAnthropic.ts
// The reply is chosen by a keyword in the latest user message (modelPlan.ts). When the latest
// item of the conversation is a tool result, the reply is the text "done", so a tool turn ends.
// Every request is logged (path, keyword, tools offered) to `logFile` for debugging.
import * as http from 'node:http';
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { pickKeyword, planFor, text, type Keyword, type Plan, type PlanOptions } from './modelPlan';
import { readChat, readResponses, streamChat, streamResponses } from './wireOpenAI';
import { geminiUnary, readGemini, streamGemini } from './wireGemini';
import { anthropicUnary, countTokens, readAnthropic, streamAnthropic } from './wireAnthropic';

export { GUARDED_LONG_COMMAND, DONE_ANSWER, EDIT_CONTENT, LONG_COMMAND, PLAIN_ANSWER } from './modelPlan';

interface FakeModelRequest {
  at: number;
  path: string;
  keyword: Keyword;
  tools: string[];
  side: boolean;
  /** `tag=X` from the latest user message, if any (tells which prompt the request serves). */
  tag?: string;
  /** The model asked for (the body's `model`; Gemini: the path's `models/M`). */
  model?: string;
  /** When the reply ended, and whether the client went away before it was complete. */
  endedAt?: number;
  aborted?: boolean;
}
export interface FakeModel {
  url: string; // http://127.0.0.1:PORT
  port: number;
  requests: FakeModelRequest[];
  /** Number tool calls from the start again (call_1, …), as a model that counts per conversation: a restarted agent then reuses the ids it gave before. */
  restartIds(): void;
  close(): Promise<void>;
}

export interface FakeModelOptions extends PlanOptions {
  logFile?: string;
  /** Also write each request body to the log (large; for finding out what an agent sends). */
  logBodies?: boolean;
}

type Api = 'responses' | 'chat' | 'gemini' | 'anthropic';

function apiOf(path: string): Api | undefined {
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.includes(':')) return 'gemini';
  return undefined;
}

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
    if (path.endsWith(':countTokens') || path.endsWith('/messages/count_tokens')) {
      if (path.endsWith('/count_tokens')) return countTokens(res, raw);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: Math.ceil(raw.length / 4) }));
      return;
    }
    const api = apiOf(path);
    if (!api) {
      log(`404 ${req.method} ${path}`);
      res.writeHead(404).end();
      return;
    }
    const read = { responses: readResponses, chat: readChat, gemini: readGemini, anthropic: readAnthropic }[api];
    const conv = read(json);
    const keyword: Keyword = conv.lastIsToolResult ? 'TOOLRESULT' : pickKeyword(conv.userTexts);
    const tag = [...(conv.userTexts[conv.userTexts.length - 1] ?? '').matchAll(/\btag=(\w+)/g)].pop()?.[1];
    const asked = api === 'gemini' ? /\/models\/([^/:]+):/.exec(path)?.[1] : typeof json.model === 'string' ? json.model : undefined;
    const entry: FakeModelRequest = { at: Date.now(), path, keyword, tools: conv.tools, side: conv.side, tag, model: asked };
    requests.push(entry);
    log(`${path} model=${asked} keyword=${keyword}${tag ? ` tag=${tag}` : ''} side=${conv.side} tools=[${conv.tools.join(',')}]`);
    if (opts.logBodies) log(`BODY ${raw}`);

    // Side requests (title generation, next-speaker checks, …) get a short neutral answer, so
    // they neither trigger tools nor stall.
    const plan: Plan = conv.side ? text('ok', 0) : planFor(keyword, conv.userTexts, conv.tools, opts);
    open.add(res);
    res.on('close', () => {
      open.delete(res);
      entry.endedAt = Date.now();
      entry.aborted = !res.writableEnded;
    });
    const id = ++seq;
    const model = String(json.model ?? 'fake-model');
    switch (api) {
      case 'responses':
        return void streamResponses(res, plan, id);
      case 'chat':
        return void streamChat(res, plan, id, model);
      case 'anthropic':
        return json.stream ? void streamAnthropic(res, plan, id, model) : anthropicUnary(res, plan, id, model);
      case 'gemini':
        return path.includes(':streamGenerateContent') ? void streamGemini(res, plan) : geminiUnary(res, plan, json);
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  log(`listening on ${port}`);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    restartIds: () => {
      seq = 0;
    },
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
