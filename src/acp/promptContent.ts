// A prompt with attached files → the content blocks of `session/prompt`, as far as the agent's
// `promptCapabilities` allow (content.mdx; initialization.mdx, "Prompt capabilities"):
//   - every agent takes `text` and `resource_link` blocks: a file is at least a link;
//   - with `embeddedContext`, a text file's content goes inside a `resource` block (the spec's
//     preferred way to give context: the agent need not be able to read the file itself);
//   - with `image`, an image file goes as a base64 `image` block.
// Too large, binary, or not allowed: a link. A file that cannot be found refuses the prompt
// (the caller hands the text back) rather than sending a link to nothing.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ContentBlock, PromptCapabilities } from '@agentclientprotocol/sdk';

/** What `reins.sendPrompt` takes besides a plain string. */
export interface PromptInput {
  text: string;
  /** File URIs (`file:///…`) or absolute paths. */
  files?: string[];
}

export interface PromptLimits {
  /** Largest text file embedded whole; larger ones are linked. */
  maxEmbedBytes: number;
  /** Largest image sent inline; larger ones are linked. */
  maxImageBytes: number;
}

const DEFAULT_PROMPT_LIMITS: PromptLimits = { maxEmbedBytes: 1024 * 1024, maxImageBytes: 5 * 1024 * 1024 };

/** The image types ACP agents (and the models behind them) take. */
const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };

/** `reins.sendPrompt`'s first argument: a string, or `{ text, files? }`. */
export function parsePromptArgument(arg: unknown): PromptInput | { error: string } | undefined {
  if (arg === undefined || arg === null) return undefined;
  if (typeof arg === 'string') return { text: arg };
  if (typeof arg !== 'object' || Array.isArray(arg)) return { error: 'the prompt must be a string or { text, files? }' };
  const { text, files } = arg as { text?: unknown; files?: unknown };
  if (typeof text !== 'string') return { error: 'the prompt object needs a "text" string' };
  if (files === undefined) return { text };
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'string')) return { error: '"files" must be a list of file URIs' };
  return { text, files };
}

/**
 * The blocks for `input`: its text first, then one block per file. `problems` non-empty means
 * the prompt must not be sent (a file that is not there, a URI that is not a file's).
 */
export async function promptBlocks(
  input: PromptInput,
  caps: PromptCapabilities | null | undefined,
  limits: PromptLimits = DEFAULT_PROMPT_LIMITS,
): Promise<{ blocks: ContentBlock[]; problems: string[] }> {
  const blocks: ContentBlock[] = [{ type: 'text', text: input.text }];
  const problems: string[] = [];
  for (const given of input.files ?? []) {
    const file = toPath(given);
    if (!file) {
      problems.push(`not a file URI or absolute path: ${given}`);
      continue;
    }
    try {
      blocks.push(await fileBlock(file, caps, limits));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push(code === 'ENOENT' ? `no such file: ${file}` : `cannot read ${file}: ${(error as Error).message}`);
    }
  }
  return { blocks, problems };
}

function toPath(given: string): string | undefined {
  if (given.startsWith('file:')) {
    try {
      return fileURLToPath(given);
    } catch {
      return undefined;
    }
  }
  return path.isAbsolute(given) ? path.normalize(given) : undefined;
}

async function fileBlock(file: string, caps: PromptCapabilities | null | undefined, limits: PromptLimits): Promise<ContentBlock> {
  const stat = await fsp.stat(file);
  const uri = pathToFileURL(file).href;
  const name = path.basename(file) || file;
  const imageType = IMAGE_TYPES[path.extname(file).toLowerCase()];
  const link: ContentBlock = { type: 'resource_link', uri, name, ...(stat.isFile() && { size: stat.size }), ...(imageType ? { mimeType: imageType } : {}) };
  if (!stat.isFile()) return link; // a folder: the agent may list it itself
  if (imageType) {
    if (caps?.image !== true || stat.size > limits.maxImageBytes) return link;
    const data = await readAtMost(file, limits.maxImageBytes);
    return data ? { type: 'image', mimeType: imageType, data: data.toString('base64'), uri } : link;
  }
  if (caps?.embeddedContext !== true || stat.size > limits.maxEmbedBytes) return link;
  const bytes = await readAtMost(file, limits.maxEmbedBytes);
  const text = bytes && asText(bytes);
  return text === undefined ? link : { type: 'resource', resource: { uri, text } };
}

/** The file's bytes, or undefined when it grew past `max` since it was looked at. */
async function readAtMost(file: string, max: number): Promise<Buffer | undefined> {
  const handle = await fsp.open(file, 'r');
  try {
    const buffer = Buffer.alloc(max + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > max) return undefined;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** UTF-8 text without NUL bytes, else undefined (a binary file is linked, not embedded). */
function asText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
