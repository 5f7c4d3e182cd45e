// fs/read_text_file and fs/write_text_file: what the agent may read and write through the
// editor. Served only for the current session, only for files whose real path is inside the
// workspace folder (workspacePath.ts), and only up to a size limit each way. Writes need no
// approval, so each one is reported (path, bytes, created) for the panel to list. A file open
// in the editor is read and written there (OpenDocuments, attached by the vscode side), after
// the same path checks; any other file on disk.
import type { ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest, WriteTextFileResponse } from '@agentclientprotocol/sdk';
import { constants as C, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { readAllBounded, readLineRange, sliceLines, TooLarge } from './boundedRead';
import { hookedFileOptions, type FileLimits, type FileRequestHooks } from './fileHooks';
import { refuse, resolveForRead, resolveForWrite, RESOURCE_NOT_FOUND, type Target } from './workspacePath';

export type { FileLimits, FileWrite, OpenDocuments } from './fileHooks';

export interface FileAccess {
  readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse>;
  writeTextFile(params: WriteTextFileRequest): Promise<WriteTextFileResponse>;
}

const MB = 1024 * 1024;
const defaultFileLimits: FileLimits = { maxReadBytes: 16 * MB, maxWriteBytes: 16 * MB };
/** The settings that raise the limits, named in the errors so that the user knows what to change. */
const READ_LIMIT_SETTING = 'reins.maxFileReadMegabytes';
const WRITE_LIMIT_SETTING = 'reins.maxFileWriteMegabytes';

export interface FileAccessOptions extends Partial<FileRequestHooks> {
  /** The current session's id; requests naming another are refused (none yet: all are). */
  sessionId?: () => string | undefined;
  /** Where `limits`, `onWrite`, `beforeWrite` and `editor` are attached later, when not given here (the runtime; see fileHooks.ts). */
  hooksOwner?: object;
}

// Open the final path component without following a link: it was resolved a moment ago, and a
// link put there since must not redirect the read or write. Non-blocking, so that a FIFO put in
// its place cannot hang the request (opening one waits for the other end). 0 where the platform
// has no such flag.
export const OPEN_FLAGS = (C.O_NOFOLLOW ?? 0) | (C.O_NONBLOCK ?? 0);

/** Disk access, through the open documents when an `editor` is given or attached. */
export function diskFileAccess(root: string, given: FileAccessOptions = {}): FileAccess {
  const options = given.hooksOwner ? { ...hookedFileOptions(given.hooksOwner), ...given } : given;
  const limits = (): FileLimits => ({ ...defaultFileLimits, ...options.limits?.() });

  return {
    async readTextFile(params) {
      checkSession(options, params.sessionId, 'fs/read_text_file');
      const { first, count } = lineRange(params);
      const target = await resolveForRead(root, params.path);
      const max = limits().maxReadBytes;
      const openText = await options.editor?.()?.text(target.real);
      if (openText !== undefined) return { content: openRange(openText, first, count, max, params.path) };
      const handle = await open(target.real, C.O_RDONLY | OPEN_FLAGS, params.path, 'read');
      try {
        const stat = await handle.stat();
        if (!stat.isFile()) throw refuse('not-a-file', `not a regular file: ${params.path}`, params.path);
        if (stat.size <= max) {
          const text = await readAllBounded(handle, max);
          return { content: count === undefined && first === 0 ? text : sliceLines(text, first + 1, count) };
        }
        // Larger than the limit: a whole read is refused before reading anything; a line range
        // is served if the lines asked for fit (the file is streamed, never held).
        if (params.line || params.limit) return { content: await readLineRange(handle, first, count, max) };
        throw tooLarge('read', params.path, stat.size, max);
      } catch (error) {
        if (error instanceof TooLarge) throw tooLarge('read', params.path, undefined, max);
        throw asResponseError(error, params.path, 'read');
      } finally {
        await handle.close();
      }
    },

    async writeTextFile(params) {
      checkSession(options, params.sessionId, 'fs/write_text_file');
      if (typeof params.content !== 'string') throw new ResponseError(ErrorCodes.InvalidParams, 'fs/write_text_file needs content (a string)');
      const bytes = Buffer.byteLength(params.content, 'utf8');
      const max = limits().maxWriteBytes;
      if (bytes > max) throw tooLarge('write', params.path, bytes, max);
      const target = await resolveForWrite(root, params.path);
      await options.beforeWrite?.(target.real).catch(() => undefined);
      try {
        if (await options.editor?.()?.replace(target.real, params.content)) return reported(options, target, bytes);
        if (!target.exists) await fsp.mkdir(path.dirname(target.real), { recursive: true });
        const handle = await open(target.real, C.O_WRONLY | C.O_CREAT | C.O_TRUNC | OPEN_FLAGS, params.path, 'write');
        try {
          if (!(await handle.stat()).isFile()) throw refuse('not-a-file', `not a regular file: ${params.path}`, params.path);
          await handle.writeFile(params.content, 'utf8');
        } finally {
          await handle.close();
        }
      } catch (error) {
        throw asResponseError(error, params.path, 'write');
      }
      return reported(options, target, bytes);
    },
  };
}

function reported(options: FileAccessOptions, target: Target, bytes: number): WriteTextFileResponse {
  try {
    options.onWrite?.({ root: target.root, path: target.real, relative: target.relative, bytes, created: !target.exists });
  } catch {
    // Listing the write is a courtesy; the write itself succeeded.
  }
  return {};
}

/** The lines asked for of an open document's text, within the read limit (the text is in memory already). */
function openRange(text: string, first: number, count: number | undefined, max: number, requested: string): string {
  const content = count === undefined && first === 0 ? text : sliceLines(text, first + 1, count);
  const size = Buffer.byteLength(content, 'utf8');
  if (size > max) throw tooLarge('read', requested, size, max);
  return content;
}

function checkSession(options: FileAccessOptions, sessionId: unknown, method: string): void {
  if (!options.sessionId) return; // no session to compare with (unit tests of the paths alone)
  const current = options.sessionId();
  if (current === undefined || sessionId !== current) {
    throw refuse(
      'wrong-session',
      `${method} names session ${JSON.stringify(sessionId)}, which is not this client's current session${current ? ` (${current})` : ''}`,
    );
  }
}

/** The spec's optional `line` (1-based) and `limit`, validated; 0 or null mean "not given", as before. */
function lineRange(params: ReadTextFileRequest): { first: number; count: number | undefined } {
  const { line, limit } = params;
  for (const [name, value] of [
    ['line', line],
    ['limit', limit],
  ] as const) {
    if (value != null && (!Number.isInteger(value) || value < 0)) {
      throw refuse('bad-range', `fs/read_text_file: ${name} must be a whole number of at least 1, not ${JSON.stringify(value)}`, params.path);
    }
  }
  return { first: Math.max(0, (line || 1) - 1), count: limit || undefined };
}

async function open(file: string, flags: number, requested: string, what: 'read' | 'write'): Promise<FileHandle> {
  try {
    return await fsp.open(file, flags, 0o666);
  } catch (error) {
    throw asResponseError(error, requested, what);
  }
}

function tooLarge(what: 'read' | 'write', requested: string, size: number | undefined, max: number): ResponseError<unknown> {
  const setting = what === 'read' ? READ_LIMIT_SETTING : WRITE_LIMIT_SETTING;
  const actual = size === undefined ? 'more than that' : megabytes(size);
  const hint = what === 'read' ? '; ask for fewer lines (line, limit)' : '';
  return refuse('too-large', `${requested} is too large to ${what}: ${actual}, the limit is ${megabytes(max)} (setting ${setting})${hint}`, requested);
}

function megabytes(bytes: number): string {
  return `${(bytes / MB).toFixed(bytes < MB ? 3 : 1)} MB`;
}

function asResponseError(error: unknown, requested: string, what: 'read' | 'write'): ResponseError<unknown> {
  if (error instanceof ResponseError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') {
    // O_NOFOLLOW met a link that was not there when the path was checked.
    return refuse('outside-workspace', `path changed into a link while it was being opened: ${requested}`, requested);
  }
  if (code === 'EISDIR' || code === 'ENXIO') {
    // A directory, or a FIFO with no reader (opened for writing without waiting for one).
    return refuse('not-a-file', `not a regular file: ${requested}`, requested);
  }
  if (code === 'ENOENT' && what === 'read') return new ResponseError(RESOURCE_NOT_FOUND, `file not found: ${requested}`, { path: requested });
  return new ResponseError(ErrorCodes.InternalError, `cannot ${what} ${requested}: ${(error as Error).message}`);
}
