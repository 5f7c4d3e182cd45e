// A tool's text output in its card: the tail only, bounded whatever the output's size; an output
// resent whole on every update goes on as its delta (to the panel and to the log), so no update
// costs more than what it adds; the log holds every character. Pure, but for OutputFiles' files.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { Outbox } from '../../src/panel/outbox';
import { TerminalCards } from '../../src/runtime/terminalCards';
import { OutputFiles } from '../../src/runtime/outputLog';
import type { OutputLog } from '../../src/runtime/toolOutputs';
import { Transcript, type TranscriptOp } from '../../src/runtime/transcript';
import type { HostToWebview, TranscriptEntry } from '../../src/shared/messages';
import { appendTail, cutLabel, OUTPUT_TAIL_CHARS, outputDelta, outputTail } from '../../src/shared/toolOutput';
import { nth } from '../support/helpers';

type Tool = Extract<TranscriptEntry, { kind: 'tool' }>;
const u = (update: object): SessionNotification => ({ sessionId: 's', update }) as SessionNotification;
const text = (t: string) => [{ type: 'content', content: { type: 'text', text: t } }];

/** The log as a map of texts, with every call counted. */
class MemoryLog implements OutputLog {
  readonly texts = new Map<string, string>();
  replaced = 0;
  appended = 0;
  replace(id: string, t: string): void {
    this.replaced++;
    this.texts.set(id, t);
  }
  append(id: string, t: string): void {
    this.appended++;
    this.texts.set(id, (this.texts.get(id) ?? '') + t);
  }
}

describe('tool output: the tail in the card', () => {
  it("the card's cut line says how much it left out: characters of a text, bytes of a terminal", () => {
    assert.deepEqual(
      [cutLabel(553_616, 'text'), cutLabel(999, 'text'), cutLabel(48_213_000, 'terminal'), cutLabel(1, 'terminal'), cutLabel(undefined, 'terminal')],
      ['… 553.6 KB before this', '… 999 characters before this', '… 48.2 MB of earlier output', '… 1 byte of earlier output', '… earlier output'],
    );
  });

  it('outputTail keeps the end, never half a surrogate pair; appendTail stays bounded', () => {
    assert.equal(outputTail('abc', 5), 'abc');
    assert.equal(outputTail('abcdef', 3), 'def');
    assert.equal(outputTail('a😀b', 2), 'b', 'the low half of 😀 would start the tail: it is dropped with its pair');
    assert.equal(appendTail('abc', 'de', 4), 'bcde');
    assert.equal(appendTail('abc', 'x'.repeat(10), 4), 'xxxx');
    assert.equal(outputDelta('ab', 'abcd'), 'cd');
    assert.equal(outputDelta('ab', 'ab'), '');
    assert.equal(outputDelta('ab', 'xbcd'), undefined);
    assert.equal(outputDelta('abc', 'ab'), undefined);
  });

  it('an output resent whole on 200 updates: one upsert, then only what each adds, the card bounded, the log whole', () => {
    const log = new MemoryLog();
    const t = new Transcript(Date.now, log);
    const ops: TranscriptOp[] = [];
    t.onOp((op) => ops.push(op));
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Run', kind: 'execute', status: 'in_progress' }));
    let whole = '';
    for (let i = 0; i < 200; i++) {
      whole += `line ${i} ${'x'.repeat(1000)}\n`;
      t.apply(u({ sessionUpdate: 'tool_call_update', toolCallId: 'c', content: text(whole) }));
    }
    const upserts = ops.filter((o) => o.type === 'upsert');
    const outputs = ops.filter((o): o is Extract<TranscriptOp, { type: 'output' }> => o.type === 'output');
    // Sabotage (toolUpdate's delta path removed: every update an upsert), this printed:
    //   AssertionError: the tool_call and the first output; the other 199 updates are deltas (201 !== 2)
    assert.equal(upserts.length, 2, 'the tool_call and the first output; the other 199 updates are deltas');
    assert.equal(outputs.length, 199);
    // Each delta is what its update added, never the output again.
    for (const o of outputs) assert.ok(o.text.length <= 1010, `a delta of ${o.text.length} characters`);
    const entry = t.get('c') as Tool;
    // Sabotage (outputTail returning the text whole), this printed:
    //   AssertionError: the card holds 201890 characters
    assert.ok(entry.detail!.length <= OUTPUT_TAIL_CHARS, `the card holds ${entry.detail!.length} characters`);
    assert.equal(entry.detail, whole.slice(-entry.detail!.length));
    assert.equal(entry.outputChars, whole.length);
    assert.equal(nth(outputs, 198, 'the last output').total, whole.length);
    // Sabotage (ToolOutputs.take logging every update whole with replace), this printed:
    //   AssertionError: Expected values to be strictly equal: 200 !== 1
    assert.equal(log.replaced, 1);
    assert.equal(log.appended, 199);
    assert.equal(log.texts.get('c'), whole, 'the log holds every character');
  });

  it('a 570 KB single line: the card holds its last 16 K characters, the log all of it', () => {
    const log = new MemoryLog();
    const t = new Transcript(Date.now, log);
    const line = 'a'.repeat(570_000) + 'END';
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'l', title: 'Read', status: 'completed', content: text(line) }));
    const entry = t.get('l') as Tool;
    assert.equal(entry.detail!.length, OUTPUT_TAIL_CHARS);
    assert.ok(entry.detail!.endsWith('END'));
    assert.equal(entry.outputChars, line.length);
    assert.equal(log.texts.get('l'), line);
  });

  it('output that changes rather than grows replaces it, and a status change is an upsert with the tail', () => {
    const log = new MemoryLog();
    const t = new Transcript(Date.now, log);
    const ops: TranscriptOp[] = [];
    t.onOp((op) => ops.push(op));
    t.apply(u({ sessionUpdate: 'tool_call', toolCallId: 'r', title: 'Run', status: 'in_progress', content: text('first') }));
    t.apply(u({ sessionUpdate: 'tool_call_update', toolCallId: 'r', content: text('second') }));
    assert.equal(log.texts.get('r'), 'second');
    t.apply(u({ sessionUpdate: 'tool_call_update', toolCallId: 'r', status: 'completed', content: text('second and more') }));
    const last = ops[ops.length - 1]!;
    assert.equal(last.type, 'upsert', 'the status changed: the card again, not a delta');
    assert.equal((t.get('r') as Tool).detail, 'second and more');
    assert.equal((t.get('r') as Tool).outputChars, undefined, 'all of it is in the card: nothing to open');
  });

  it("the outbox joins one card's outputs into one message, still bounded", () => {
    const delivered: HostToWebview[] = [];
    let flush: (() => void) | undefined;
    const outbox = new Outbox(
      (m) => delivered.push(m),
      (f) => ((flush = f), () => undefined),
      (f) => ((flush = f), () => undefined),
    );
    for (let i = 0; i < 100; i++) outbox.post({ type: 'output', id: 'c', text: 'y'.repeat(1000), total: (i + 1) * 1000 });
    flush!();
    assert.equal(delivered.length, 1);
    const m = nth(delivered, 0, 'the message');
    // Sabotage (the outbox's output branch removed: a message each, 100 of them in a batch), this printed:
    //   AssertionError: Expected values to be strictly equal: + 'batch' - 'output'
    assert.equal(m.type, 'output');
    if (m.type !== 'output') return;
    assert.equal(m.text.length, OUTPUT_TAIL_CHARS);
    assert.equal(m.total, 100_000);
  });

  it('OutputFiles: a file per card and per terminal, appended as it comes, gone on dispose', () => {
    const files = new OutputFiles();
    files.replace('c', 'one\n');
    files.append('c', 'two\n');
    files.terminal('term-1', Buffer.from('out\n'));
    files.terminal('term-1', 'more\n');
    files.linkTerminal('c', 'term-1');
    const [card, terminal] = files.filesOf('c');
    assert.equal(readFileSync(card!, 'utf8'), 'one\ntwo\n');
    assert.equal(readFileSync(terminal!, 'utf8'), 'out\nmore\n');
    files.replace('c', 'again');
    assert.equal(readFileSync(card!, 'utf8'), 'again');
    assert.deepEqual(files.filesOf('unknown'), []);
    files.dispose();
    assert.equal(existsSync(card!), false);
  });

  it("a card that embeds a terminal names it to the log: the card's Open Full Output opens the terminal's whole output", () => {
    const files = new OutputFiles();
    const t = new Transcript(Date.now, files);
    const cards = new TerminalCards({
      cardId: (sessionId, toolCallId) => t.cardId(sessionId, toolCallId),
      get: (id) => t.get(id),
      upsert: (entry, keep) => t.upsert(entry, keep),
      terminalShown: (id, terminalId) => t.terminalShown(id, terminalId),
    });
    files.terminal('term-9', 'everything it printed\n');
    const call = u({
      sessionUpdate: 'tool_call',
      toolCallId: 'run',
      title: 'Run',
      status: 'in_progress',
      content: [{ type: 'terminal', terminalId: 'term-9' }],
    });
    t.apply(call);
    cards.noteUpdate(call);
    // Sabotage (noteUpdate not calling terminalShown), this printed:
    //   AssertionError: the card's files has no element 0 (length 0)
    assert.equal(readFileSync(nth(files.filesOf('run'), 0, "the card's files"), 'utf8'), 'everything it printed\n');
    files.dispose();
  });
});
