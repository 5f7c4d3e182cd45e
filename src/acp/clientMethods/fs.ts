// fs/read_text_file and fs/write_text_file: what the agent may read and write through the
// editor. Only absolute paths inside the session's workspace folder are served: an agent has
// no business writing elsewhere through us.
import type { ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest, WriteTextFileResponse } from '@agentclientprotocol/sdk';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';

export interface FileAccess {
  readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse>;
  writeTextFile(params: WriteTextFileRequest): Promise<WriteTextFileResponse>;
}

/** The resolved path when `requested` is absolute and inside `root`; otherwise a -32602 error. */
export function checkPath(root: string, requested: string): string {
  if (!path.isAbsolute(requested)) {
    throw new ResponseError(ErrorCodes.InvalidParams, `path must be absolute: ${requested}`);
  }
  const resolved = path.resolve(requested);
  const relative = path.relative(path.resolve(root), resolved);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new ResponseError(ErrorCodes.InvalidParams, `path is outside the workspace folder: ${requested}`);
  }
  return resolved;
}

/** Lines `line` (1-based) .. `line + limit - 1` of `text`, as the spec's optional range asks. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (!line && !limit) return text;
  const lines = text.split('\n');
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit ? start + limit : lines.length;
  return lines.slice(start, end).join('\n');
}

/** Plain disk access: what runs without an editor (the interop suite, the headless runtime). */
export function diskFileAccess(root: string, onWrite?: (file: string) => void): FileAccess {
  return {
    async readTextFile(params) {
      const file = checkPath(root, params.path);
      try {
        const text = await fsp.readFile(file, 'utf8');
        return { content: sliceLines(text, params.line, params.limit) };
      } catch (error) {
        throw new ResponseError(ErrorCodes.InternalError, `cannot read ${params.path}: ${(error as Error).message}`);
      }
    },
    async writeTextFile(params) {
      const file = checkPath(root, params.path);
      await fsp.mkdir(path.dirname(file), { recursive: true });
      await fsp.writeFile(file, params.content, 'utf8');
      onWrite?.(file);
      return {};
    },
  };
}
