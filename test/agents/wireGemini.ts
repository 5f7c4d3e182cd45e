// The Gemini API as the fake model speaks it (gemini-cli): :streamGenerateContent?alt=sse for
// turns, :generateContent for gemini-cli's own checks.
import type * as http from 'node:http';
import { SIDE, paced, sse, type Conversation, type Plan } from './modelPlan';

export function readGemini(j: any): Conversation {
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

const geminiUsage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };

export async function streamGemini(res: http.ServerResponse, plan: Plan): Promise<void> {
  sse(res);
  if (plan.kind === 'stall') return;
  const send = (parts: object[], finish?: string) =>
    res.write(
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: finish } : {}) }], usageMetadata: geminiUsage, modelVersion: 'fake-model' })}\n\n`,
    );
  if (plan.kind === 'text') {
    const last = plan.chunks.length - 1;
    let i = 0;
    if (!(await paced(res, plan.chunks, plan.intervalMs, (c) => send([{ text: c }], i++ === last ? 'STOP' : undefined)))) return;
  } else {
    send([{ functionCall: { name: plan.name, args: plan.args } }], 'STOP');
  }
  res.end();
}

export function geminiUnary(res: http.ServerResponse, plan: Plan, j: any): void {
  // Non-streaming calls are gemini-cli's own checks; a JSON schema means it wants JSON back.
  const wantsJson = !!(j.generationConfig?.responseJsonSchema || j.generationConfig?.responseSchema);
  const t = wantsJson ? JSON.stringify({ reasoning: 'the model answered', next_speaker: 'user' }) : plan.kind === 'text' ? plan.chunks.join('') : 'ok';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: t }] }, finishReason: 'STOP', index: 0 }], usageMetadata: geminiUsage }));
}
