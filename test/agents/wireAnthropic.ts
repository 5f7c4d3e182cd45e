// The Anthropic Messages API as the fake model speaks it (claude-agent-acp's Claude Code):
// POST /v1/messages, streamed (message_start; content_block_start / _delta / _stop per text or
// tool_use block; message_delta with the stop reason and usage; message_stop) or, with
// `stream: false`, one JSON message; POST /v1/messages/count_tokens.
import type * as http from 'node:http';
import { paced, sse, textOf, type Conversation, type Plan } from './modelPlan';

export function readAnthropic(j: any): Conversation {
  const msgs: any[] = Array.isArray(j.messages) ? j.messages : [];
  // A user message's content is a string or blocks: text (the prompt and Claude Code's
  // <system-reminder>s) and tool_result.
  const blocks = (m: any): any[] => (Array.isArray(m?.content) ? m.content : []);
  const userTexts = msgs
    .filter((m) => m.role === 'user')
    .map((m) => textOf(typeof m.content === 'string' ? m.content : blocks(m).filter((b) => b.type === 'text')));
  const last = msgs[msgs.length - 1];
  const tools = (j.tools ?? []).map((t: any) => t.name);
  // After an interrupted tool, Claude Code puts the next prompt into the same user message as
  // the tool_result ("[Request interrupted by user for tool use]", then the prompt): a real
  // model answers the prompt, so only a tool result with no new text of the user's is one.
  const newText = blocks(last).filter((b) => b.type === 'text' && !/^(<system-reminder>|\[Request interrupted)/.test(b.text ?? ''));
  return {
    userTexts,
    lastIsToolResult: last?.role === 'user' && blocks(last).some((b) => b.type === 'tool_result') && newText.length === 0,
    tools,
    // Claude Code's turns always offer tools; its own requests (a title, a quota check, a
    // topic check) offer none, and must neither call tools nor stall.
    side: tools.length === 0,
  };
}

export function countTokens(res: http.ServerResponse, raw: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
}

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

export async function streamAnthropic(res: http.ServerResponse, plan: Plan, id: number, model: string): Promise<void> {
  sse(res);
  if (plan.kind === 'stall') return;
  const ev = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev('message_start', {
    message: {
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  let stopReason = 'end_turn';
  if (plan.kind === 'text') {
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    const ok = await paced(res, plan.chunks, plan.intervalMs, (c) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: c } }));
    if (!ok) return;
  } else {
    ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${id}`, name: plan.name, input: {} } });
    ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(plan.args) } });
    stopReason = 'tool_use';
  }
  ev('content_block_stop', { index: 0 });
  ev('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  ev('message_stop', {});
  res.end();
}

export function anthropicUnary(res: http.ServerResponse, plan: Plan, id: number, model: string): void {
  const content =
    plan.kind === 'tool'
      ? [{ type: 'tool_use', id: `toolu_${id}`, name: plan.name, input: plan.args }]
      : [{ type: 'text', text: plan.kind === 'text' ? plan.chunks.join('') : 'ok' }];
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: plan.kind === 'tool' ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage,
    }),
  );
}
