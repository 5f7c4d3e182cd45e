// A prompt with files → session/prompt content blocks, per promptCapabilities
// (src/acp/promptContent.ts), and `reins.sendPrompt`'s argument.
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parsePromptArgument, promptBlocks } from '../../src/acp/promptContent';

describe('prompt content: files as links, embedded text or images, per capability', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'reins-prompt-'));
  const text = path.join(dir, 'notes.md');
  const binary = path.join(dir, 'data.bin');
  const image = path.join(dir, 'pic.png');
  const big = path.join(dir, 'big.txt');
  writeFileSync(text, '# notes\nhello\n');
  writeFileSync(binary, Buffer.from([0, 1, 2, 255]));
  writeFileSync(image, Buffer.from([137, 80, 78, 71]));
  writeFileSync(big, 'x'.repeat(2000));
  const uri = (p: string) => pathToFileURL(p).href;

  it('links every file when the agent takes only the baseline (text and resource_link)', async () => {
    const { blocks, problems } = await promptBlocks({ text: 'look', files: [uri(text), image] }, {});
    assert.deepEqual(problems, []);
    // Sabotage (fileBlock() embedding without looking at embeddedContext), this printed:
    //   "Expected values to be strictly deep-equal: … + resource: {" where the link was expected.
    assert.deepEqual(blocks, [
      { type: 'text', text: 'look' },
      { type: 'resource_link', uri: uri(text), name: 'notes.md', size: 14 },
      { type: 'resource_link', uri: uri(image), name: 'pic.png', size: 4, mimeType: 'image/png' },
    ]);
  });

  it('embeds text files with embeddedContext, and sends images with image; binary and too large stay links', async () => {
    const { blocks } = await promptBlocks(
      { text: 't', files: [uri(text), uri(binary), uri(image), uri(big)] },
      { embeddedContext: true, image: true },
      { maxEmbedBytes: 1000, maxImageBytes: 1000 },
    );
    assert.deepEqual(blocks.slice(1), [
      { type: 'resource', resource: { uri: uri(text), text: '# notes\nhello\n' } },
      { type: 'resource_link', uri: uri(binary), name: 'data.bin', size: 4 },
      { type: 'image', mimeType: 'image/png', data: Buffer.from([137, 80, 78, 71]).toString('base64'), uri: uri(image) },
      { type: 'resource_link', uri: uri(big), name: 'big.txt', size: 2000 },
    ]);
  });

  it('refuses a missing file and a URI that is not a file’s', async () => {
    const { problems } = await promptBlocks(
      { text: 't', files: [uri(path.join(dir, 'gone.txt')), 'untitled:Untitled-1', 'relative/x.ts'] },
      { embeddedContext: true },
    );
    assert.deepEqual(problems, [
      `no such file: ${path.join(dir, 'gone.txt')}`,
      'not a file URI or absolute path: untitled:Untitled-1',
      'not a file URI or absolute path: relative/x.ts',
    ]);
  });

  it('parses sendPrompt’s argument: a string, or { text, files? }', () => {
    assert.deepEqual(parsePromptArgument('hi'), { text: 'hi' });
    assert.equal(parsePromptArgument(undefined), undefined);
    assert.deepEqual(parsePromptArgument({ text: 'hi', files: ['file:///a'] }), { text: 'hi', files: ['file:///a'] });
    assert.ok('error' in (parsePromptArgument({ files: [] }) as object));
    assert.ok('error' in (parsePromptArgument({ text: 'x', files: [1] }) as object));
  });
});
