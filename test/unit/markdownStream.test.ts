// The streaming Markdown split (media/webview/markdownStream.ts): whatever the chunking and
// whenever the frames come, the blocks rendered once plus the open block add up to what a
// render of the whole text gives; finished blocks are never rendered again; a long text is
// worked through a window per step; text nested past markdown-it's limit is kept, as text.
import * as assert from 'node:assert/strict';
import { MAX_NESTING, normalizeSource, renderMarkdown } from '../../media/webview/markdown';
import { MarkdownStream, offsetOfLine, OPEN_BLOCK_CHARS, WINDOW_CHARS } from '../../media/webview/markdownStream';
import { useHighlighter } from '../../media/webview/highlight';
import { highlightCode } from '../../media/webview/highlightLanguages';

const CORPUS = [
  '# Title\n\nSome *emphasis* and `code`, a [link](https://example.com "t") and https://bare.example/x.\n',
  'Setext heading\n==============\n\nParagraph that\ncontinues lazily.\n\n---\n\n> quote\ncontinued\n> > nested\n',
  '- one\n- two\n\n- three (now a loose list)\n  1. nested\n  2. more\n\n     indented para\n\nAfter the list.\n',
  '```ts\nconst x: number = 1;\n\nfunction f() { return x; }\n```\n\nText\n\n```\nunclosed fence at the end\n',
  '| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\npara\n\n    indented code\n\n    more code\n',
  '[ref]: https://ref.example/\n\nUses [the ref][ref] later.\n\n1) one\n2) two\n',
  'Windows line ends\r\nin the middle\r\n\r\n* and a list\r\n* here\r\n',
  'para\n- list interrupts\n- it\n\nx\n\n~~~python\nprint("hi")\n~~~\n',
];

/** A small deterministic PRNG (mulberry32): the same chunkings on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Applies steps as render/agent.ts does, to strings: finished HTML grows, the open part is replaced. */
class Screen {
  finished = '';
  open = '';
  plain = '';
  finishedRenders = 0;
  apply(stream: MarkdownStream, windowChars?: number): void {
    const step = stream.step(windowChars);
    if (step.finished) {
      this.finished += step.finished;
      this.finishedRenders++;
    }
    if (step.open !== undefined) this.open = step.open;
    if (step.plainText) this.plain += step.plainText;
  }
  drain(stream: MarkdownStream, windowChars?: number): void {
    for (let i = 0; stream.pending && i < 10_000; i++) this.apply(stream, windowChars);
  }
  get html(): string {
    return this.finished + this.open;
  }
}

function streamed(text: string, rand: () => number, windowChars?: number): Screen {
  const stream = new MarkdownStream();
  const screen = new Screen();
  let at = 0;
  while (at < text.length) {
    const size = 1 + Math.floor(rand() * 12);
    stream.append(text.slice(at, at + size));
    at += size;
    if (rand() < 0.4) screen.apply(stream, windowChars); // a frame came
  }
  stream.complete();
  screen.drain(stream, windowChars);
  return screen;
}

describe('webview markdown stream', () => {
  it('adds up to a render of the whole text, for any chunking and any frame timing', () => {
    // Sabotage: committing the open block too (cut at text.length instead of the last block's
    // start) printed "AssertionError: document 0, seed 0", the heading split as "<p>Title</p>".
    const rand = random(7);
    CORPUS.forEach((doc, i) => {
      for (let seed = 0; seed < 12; seed++) {
        assert.equal(streamed(doc, rand).html, renderMarkdown(doc), `document ${i}, seed ${seed}`);
      }
    });
    const all = CORPUS.join('\n');
    for (let seed = 0; seed < 12; seed++) assert.equal(streamed(all, rand, 64).html, renderMarkdown(all), `all, seed ${seed}`);
  });

  it('renders a finished block once, and leaves only the last block open', () => {
    const stream = new MarkdownStream();
    const screen = new Screen();
    stream.append('First paragraph.\n\nSecond');
    screen.apply(stream);
    assert.equal(screen.finished, '<p>First paragraph.</p>\n');
    assert.equal(screen.open, '<p>Second</p>\n');
    stream.append(' grows.');
    screen.apply(stream);
    assert.equal(screen.finished, '<p>First paragraph.</p>\n', 'the finished block is not sent again');
    assert.equal(screen.open, '<p>Second grows.</p>\n');
  });

  it('highlights code only once its block is finished', () => {
    // highlight.js is the webview's second bundle (highlight.ts): here it is given at once.
    useHighlighter(highlightCode);
    const stream = new MarkdownStream();
    const screen = new Screen();
    stream.append('```js\nconst a = 1;\n```\n');
    screen.apply(stream);
    assert.doesNotMatch(screen.open, /hljs-keyword/, 'still open: plain');
    stream.append('\nAfter.');
    screen.apply(stream);
    assert.match(screen.finished, /<span class="hljs-keyword">const<\/span>/);
  });

  it('works through a long text a window at a time', () => {
    const doc = Array.from({ length: 2000 }, (_, i) => `Paragraph ${i} with some words in it.\n`).join('\n');
    const stream = new MarkdownStream();
    stream.replace(doc);
    stream.complete();
    const screen = new Screen();
    let steps = 0;
    while (stream.pending) {
      screen.apply(stream);
      steps++;
    }
    assert.ok(steps >= Math.floor(doc.length / WINDOW_CHARS), `${steps} steps for ${doc.length} chars`);
    assert.equal(screen.html, renderMarkdown(doc));
  });

  it('re-renders a huge open block only now and then, and fully once complete', () => {
    const stream = new MarkdownStream();
    const screen = new Screen();
    const line = 'x'.repeat(99) + '\n';
    stream.append('```\n' + line.repeat((3 * OPEN_BLOCK_CHARS) / 100));
    screen.apply(stream);
    const rendered: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      stream.append(line);
      const before = screen.open;
      screen.apply(stream);
      rendered.push(screen.open !== before);
    }
    assert.ok(rendered.filter(Boolean).length <= 2, `rendered in ${rendered.filter(Boolean).length} of 6 steps`);
    stream.complete();
    screen.drain(stream);
    assert.equal(screen.html, renderMarkdown(stream.text));
  });

  it('shows text nested past the limit as text instead of dropping the rest', () => {
    // Sabotage: without the tokenize wrapper in markdown.ts (no tooDeepLine) this printed
    // "AssertionError: The input did not match the regular expression /<pre class="md-plain">…/"
    // (the render in one go); before that assertion existed, the streamed one printed
    // "AssertionError: the rest of the answer is shown". markdown-it had dropped it.
    const depth = MAX_NESTING / 2 + 5;
    const deep = Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
    const doc = `Before.\n\n${deep}\n\nAfter the deep list: the end of the answer.\n`;
    const oneGo = renderMarkdown(doc); // thoughts: the same fallback, in one go
    assert.match(oneGo, /<pre class="md-plain">[^]*After the deep list: the end of the answer\.[^]*<\/pre>/);
    const screen = streamed(doc, random(3));
    assert.match(screen.finished, /<p>Before.<\/p>/);
    assert.match(screen.plain, /After the deep list: the end of the answer\./, 'the rest of the answer is shown');
    assert.match(screen.html + screen.plain, /level 0/);
    assert.match(screen.plain, new RegExp(`level ${depth - 1}`));
  });

  it('starts over when an upsert changes earlier text, and goes on when it only grew', () => {
    const stream = new MarkdownStream();
    assert.equal(stream.replace('Hello'), true);
    assert.equal(stream.replace('Hello, world'), true);
    assert.equal(stream.replace('Goodbye'), false);
    assert.equal(stream.text, 'Goodbye');
  });

  // The source is kept as the part rendered for good and the rest (so that a step reads only the
  // rest). Sabotage (takeTail() dropping what it moves instead of adding it to the rendered
  // part), this printed: "AssertionError: the text, after steps" with
  // 'Some *emphasis* and `code`, …' where '# Title\n\nSome *emphasis* …' was expected.
  it('keeps the whole text across steps, upserts and the drop to plain text', () => {
    const rand = random(7);
    for (const text of [...CORPUS, CORPUS.join('\n'), '>'.repeat(MAX_NESTING + 5) + ' deep\n\nthen more\n']) {
      const stream = new MarkdownStream();
      let at = 0;
      while (at < text.length) {
        const size = 1 + Math.floor(rand() * 40);
        stream.append(text.slice(at, at + size));
        at += size;
        if (rand() < 0.5) while (stream.pending) stream.step(64);
        assert.equal(stream.text, normalizeSource(text.slice(0, at)), 'the text, after steps');
      }
      const grown = `${stream.text}\n\nand an upsert's more`;
      assert.equal(stream.replace(grown), true);
      while (stream.pending) stream.step(64);
      assert.equal(stream.text, grown);
    }
  });

  // agent.ts shows an answer of white space only as empty; it asked `text.trim() === ''` after
  // every frame, which copied the whole answer each time.
  it('knows an answer of white space only', () => {
    const stream = new MarkdownStream();
    assert.equal(stream.blank, true);
    stream.append(' \n\t');
    stream.step();
    assert.equal(stream.blank, true);
    stream.append('x');
    assert.equal(stream.blank, false);
    stream.append('\n\n');
    assert.equal(stream.blank, false);
    stream.replace('  ');
    assert.equal(stream.blank, true);
    stream.replace('  then text');
    assert.equal(stream.blank, false);
  });

  it('keeps a CRLF split across chunks as one line end', () => {
    const stream = new MarkdownStream();
    stream.append('a\r');
    stream.append('\nb');
    assert.equal(stream.text, 'a\nb');
  });

  it('finds line offsets', () => {
    assert.equal(offsetOfLine('a\nbb\nccc', 0), 0);
    assert.equal(offsetOfLine('a\nbb\nccc', 2), 5);
    assert.equal(offsetOfLine('a\nbb\nccc', 9), 8);
  });
});
