// A tool call's card shows the live output of the terminal it embeds (`content` of type
// terminal), whichever comes first (the output or the embedding), keeps it after a tool_call
// rebuilds the card, and never cuts the agent's streamed text in two.
import * as assert from 'node:assert/strict';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { showTerminalOutput, TerminalCards } from '../../src/runtime/terminalCards';
import { Transcript } from '../../src/runtime/transcript';
import type { TranscriptEntry } from '../../src/shared/messages';

const update = (u: unknown): SessionNotification => ({ sessionId: 's', update: u as SessionNotification['update'] });
const toolCall = (content: unknown[] = []) =>
  update({ sessionUpdate: 'tool_call', toolCallId: 'tc1', title: 'Run tests', kind: 'execute', status: 'in_progress', content });
const embed = (terminalId: string) => update({ sessionUpdate: 'tool_call_update', toolCallId: 'tc1', content: [{ type: 'terminal', terminalId }] });
const tool = (t: Transcript) => t.get('tc1') as Extract<TranscriptEntry, { kind: 'tool' }>;

describe('terminal output in the tool call card', () => {
  let transcript: Transcript;
  let cards: TerminalCards;
  /** What the transcript and the cards see, in the order the folder conversation wires them. */
  const apply = (n: SessionNotification) => {
    transcript.apply(n);
    cards.noteUpdate(n);
  };

  beforeEach(() => {
    transcript = new Transcript();
    cards = new TerminalCards(transcript);
  });

  it('output that comes before the embedding is shown once the card embeds the terminal', () => {
    apply(toolCall());
    cards.output({ terminalId: 'term-1', text: 'building…\n', truncated: false });
    assert.equal(tool(transcript).terminal, undefined, 'not embedded yet');
    apply(embed('term-1'));
    assert.deepEqual(tool(transcript).terminal, { text: 'building…\n', truncated: false });
  });

  it('grows with the output, says how it exited, and survives a tool_call that rebuilds the card', () => {
    apply(toolCall([{ type: 'terminal', terminalId: 'term-2' }]));
    cards.output({ terminalId: 'term-2', text: 'a\n', truncated: false });
    cards.output({ terminalId: 'term-2', text: 'a\nb\n', truncated: true, exitStatus: { exitCode: 1, signal: null } });
    assert.deepEqual(tool(transcript).terminal, { text: 'a\nb\n', truncated: true, exited: 'exit code 1' });
    apply(update({ sessionUpdate: 'tool_call_update', toolCallId: 'tc1', status: 'failed' }));
    assert.equal(tool(transcript).status, 'failed');
    assert.equal(tool(transcript).terminal?.text, 'a\nb\n', 'an update keeps it');
    apply(toolCall());
    assert.equal(tool(transcript).terminal?.text, 'a\nb\n', 'a tool_call rebuilds the card: shown again');
  });

  // Sabotage (refresh upserting without keepStreaming), this test printed:
  // AssertionError: the agent's text goes on in one entry: 2 agent entries.
  it("live output of a card does not cut the agent's streamed text in two", () => {
    apply(toolCall([{ type: 'terminal', terminalId: 'term-3' }]));
    apply(update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Running the tests, ' } }));
    cards.output({ terminalId: 'term-3', text: 'ok\n', truncated: false });
    apply(update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'please wait.' } }));
    const agents = transcript.entries.filter((e) => e.kind === 'agent');
    assert.equal(agents.length, 1, `the agent's text goes on in one entry: ${agents.length} agent entries`);
  });

  it("says how much it left out: the bytes before each terminal's tail, summed; a change in that alone is shown", () => {
    apply(toolCall([{ type: 'terminal', terminalId: 'term-5' }]));
    apply(embed('term-6'));
    cards.output({ terminalId: 'term-5', text: 'tail 5', truncated: true, omittedBytes: 48_000_000 });
    cards.output({ terminalId: 'term-6', text: 'tail 6', truncated: false });
    assert.deepEqual(tool(transcript).terminal, { text: 'tail 5\ntail 6', truncated: true, omittedBytes: 48_000_000 });
    cards.output({ terminalId: 'term-6', text: 'tail 6', truncated: true, omittedBytes: 200 });
    // Sabotage (the unchanged-output check not comparing omittedBytes), this printed: 48000000 !== 48000200
    assert.equal(tool(transcript).terminal?.omittedBytes, 48_000_200);
  });

  it('an unchanged output is not sent to the panel again', () => {
    apply(toolCall([{ type: 'terminal', terminalId: 'term-4' }]));
    let upserts = 0;
    transcript.onOp((op) => op.type === 'upsert' && upserts++);
    cards.output({ terminalId: 'term-4', text: 'same', truncated: false });
    cards.output({ terminalId: 'term-4', text: 'same', truncated: false });
    assert.equal(upserts, 1);
  });

  // Sabotage (one AgentTerminals for every session, as before): "+ '$ make\nold session\nnew session\n'
  // - '$ make\nnew session\n'": the new session's card went on from the old terminal's output.
  it("ACP v2: an agent's terminal id named again in a new session starts from nothing", () => {
    type Listener = (n: SessionNotification) => void;
    const listeners: Listener[] = [];
    const source = {
      session: { onUpdate: (l: Listener) => (listeners.push(l), { dispose: () => undefined }) },
      onTerminalOutput: () => ({ dispose: () => undefined }),
    };
    const wired = showTerminalOutput(source, transcript);
    const send = (sessionId: string, u: unknown) => {
      const n = { sessionId, update: u as SessionNotification['update'] };
      transcript.apply(n);
      for (const l of listeners) l(n);
    };
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const run = (sessionId: string, text: string) => {
      send(sessionId, {
        sessionUpdate: 'tool_call',
        toolCallId: 'tc1',
        title: 'make',
        kind: 'execute',
        status: 'in_progress',
        content: [{ type: 'terminal', terminalId: 't1' }],
      });
      send(sessionId, { sessionUpdate: 'terminal_update', terminalId: 't1', command: 'make' });
      send(sessionId, { sessionUpdate: 'terminal_output_chunk', terminalId: 't1', data: b64(text) });
    };
    run('old', 'old session\n');
    assert.equal(tool(transcript).terminal?.text, '$ make\nold session\n');
    transcript.clear(); // New Session: the panel starts empty
    run('new', 'new session\n');
    assert.equal(tool(transcript).terminal?.text, '$ make\nnew session\n');
    wired.dispose();
  });
});
