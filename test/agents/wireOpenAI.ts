// OpenAI's two wire formats as the fake model speaks them: Responses (codex) and Chat
// Completions (opencode, pi's openai-completions provider). A reader turns a request into a
// Conversation; a writer streams a Plan as SSE.
import type * as http from 'node:http';
import { SIDE, paced, sse, textOf, type Conversation, type Plan } from './modelPlan';

export function readResponses(j: any): Conversation {
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

export function readChat(j: any): Conversation {
  const msgs: any[] = Array.isArray(j.messages) ? j.messages : [];
  const userTexts = msgs.filter((m) => m.role === 'user').map((m) => textOf(m.content));
  const system = msgs
    .filter((m) => m.role === 'system')
    .map((m) => textOf(m.content))
    .join('\n');
  const tools = (j.tools ?? []).map((t: any) => t.function?.name ?? t.name);
  return { userTexts, lastIsToolResult: msgs[msgs.length - 1]?.role === 'tool', tools, side: tools.length === 0 && SIDE.test(system) };
}

export async function streamResponses(res: http.ServerResponse, plan: Plan, id: number): Promise<void> {
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
    if (
      !(await paced(res, plan.chunks, plan.intervalMs, (c) =>
        ev('response.output_text.delta', { item_id: msgId, output_index: 0, content_index: 0, delta: c }),
      ))
    )
      return;
    item = {
      type: 'message',
      id: msgId,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: plan.chunks.join(''), annotations: [] }],
    };
  } else if (plan.freeform !== undefined && plan.name === 'apply_patch') {
    item = { type: 'custom_tool_call', id: `ctc_${id}`, status: 'completed', call_id: `call_${id}`, name: plan.name, input: plan.freeform };
  } else {
    item = { type: 'function_call', id: `fc_${id}`, status: 'completed', call_id: `call_${id}`, name: plan.name, arguments: JSON.stringify(plan.args) };
  }
  ev('response.output_item.done', { output_index: 0, item });
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  ev('response.completed', { response: { ...base, status: 'completed', output: [item], usage } });
  res.end();
}

export async function streamChat(res: http.ServerResponse, plan: Plan, id: number, model: string): Promise<void> {
  sse(res);
  if (plan.kind === 'stall') return;
  const chunk = (delta: object, finish: string | null) =>
    res.write(
      `data: ${JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  let finish = 'stop';
  if (plan.kind === 'text') {
    if (!(await paced(res, plan.chunks, plan.intervalMs, (c) => chunk({ role: 'assistant', content: c }, null)))) return;
  } else {
    chunk(
      {
        role: 'assistant',
        tool_calls: [{ index: 0, id: `call_${id}`, type: 'function', function: { name: plan.name, arguments: JSON.stringify(plan.args) } }],
      },
      null,
    );
    finish = 'tool_calls';
  }
  chunk({}, finish);
  res.write(
    `data: ${JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: 0, model, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
  );
  res.write('data: [DONE]\n\n');
  res.end();
}
