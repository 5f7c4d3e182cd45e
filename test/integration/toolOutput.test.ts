// A tool's output in the real extension host: a 570 KB single line and an output resent whole on
// every update leave the card holding the output's end only, with the whole length said (the
// card's Open Full Output); the log files behind it are checked in test/unit/toolOutput.test.ts.
import * as assert from 'node:assert/strict';
import type { TranscriptEntry } from '../../src/shared/messages';
import { OUTPUT_TAIL_CHARS } from '../../src/shared/toolOutput';
import { addAgent, api, resetReins, send, useAgent } from './support';

type ToolEntry = Extract<TranscriptEntry, { kind: 'tool' }>;
const card = async (id: string) => (await api()).state()!.transcript.find((e): e is ToolEntry => e.kind === 'tool' && e.id === id);
const text = (t: string) => [{ type: 'content', content: { type: 'text', text: t } }];

describe('tool output: bounded in the card', function () {
  this.timeout(60_000);
  afterEach(resetReins);

  // Sabotage (outputTail returning the text whole), this test printed, in code-server:
  //   AssertionError [ERR_ASSERTION]: the card holds 570003 characters
  it('a 570 KB line and an output resent whole 50 times: the card keeps the end, and says how much there is', async () => {
    const line = 'm'.repeat(570_000) + 'END';
    let whole = '';
    const resent = [];
    for (let i = 0; i < 50; i++) {
      whole += `line ${i} ${'x'.repeat(2000)}\n`;
      resent.push({ update: { sessionUpdate: 'tool_call_update', toolCallId: 'repeat', content: text(whole) } });
    }
    const agent = await addAgent({
      prompts: [
        {
          steps: [
            {
              update: {
                sessionUpdate: 'tool_call',
                toolCallId: 'minified',
                title: 'Read bundle.min.js',
                kind: 'read',
                status: 'completed',
                content: text(line),
              },
            },
            { tool: { id: 'repeat', title: 'npm test', kind: 'execute', status: 'in_progress' } },
            ...resent,
            { toolUpdate: { id: 'repeat', status: 'completed' } },
            { text: 'done' },
          ],
        },
      ],
    });
    await useAgent(agent);
    assert.deepEqual(await send('go'), { status: 'completed', stopReason: 'end_turn' });
    const minified = (await card('minified'))!;
    assert.ok(minified.detail!.length <= OUTPUT_TAIL_CHARS, `the card holds ${minified.detail!.length} characters`);
    assert.ok(minified.detail!.endsWith('END'));
    assert.equal(minified.outputChars, line.length);
    const repeat = (await card('repeat'))!;
    assert.equal(repeat.status, 'completed');
    assert.equal(repeat.detail, whole.slice(-repeat.detail!.length));
    assert.equal(repeat.outputChars, whole.length);
  });
});
