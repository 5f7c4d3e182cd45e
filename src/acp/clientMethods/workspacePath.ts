// Where a path from the agent really leads, and whether that is inside the workspace folder.
// The check is made on real paths (symbolic links resolved) against the folder's real path: a
// link inside the folder that points elsewhere (ws/outside -> /etc) must not let the agent
// read or write there, while a link that ends inside the folder is fine wherever it starts.
// "Inside" compares path segments, not strings: `..hidden` is a file name, not a way out.
//
// What remains: a tool of the agent's could swap a directory for a link between this check and
// the read or write. The caller opens the final component without following links, and writes
// to the real path found here, so only a swap of a parent directory in that instant gets past.
import { promises as fsp, type Stats } from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';

/** JSON-RPC "Resource not found" (ACP's ErrorCode -32002). */
export const RESOURCE_NOT_FOUND = -32002;

/** Why a request was refused; sent as the error's `data.reason` so that agents and tests can tell. */
export type RefusalReason = 'not-absolute' | 'outside-workspace' | 'dangling-link' | 'wrong-session' | 'too-large' | 'not-a-file' | 'bad-range';

export function refuse(reason: RefusalReason, message: string, requested?: string): ResponseError<{ reason: RefusalReason; path?: string }> {
  return new ResponseError(ErrorCodes.InvalidParams, message, { reason, path: requested });
}

export interface Target {
  /** The real path of the file (for a new file: its nearest existing parent's real path, joined with the rest). */
  real: string;
  /** The folder's real path. */
  root: string;
  /** `real` relative to `root`, with `/` between segments (what the panel shows). */
  relative: string;
  /** False when the file does not exist yet (only for writes). */
  exists: boolean;
}

/** True when `child` (a real, normalised path) is `root` or below it. */
export function isInside(root: string, child: string): boolean {
  const relative = path.relative(root, child);
  if (relative === '') return true;
  if (path.isAbsolute(relative)) return false; // another drive on Windows
  return relative.split(path.sep)[0] !== '..';
}

/**
 * Resolve `requested` for reading: the file must exist, and its real path must be inside the
 * real path of `root`. Refusals are -32602 with a message that says why; a missing file -32002.
 */
export async function resolveForRead(root: string, requested: string): Promise<Target> {
  const { rootReal, resolved } = await start(root, requested);
  let real: string;
  try {
    real = await fsp.realpath(resolved);
  } catch (error) {
    if (isMissing(error)) throw new ResponseError(RESOURCE_NOT_FOUND, `file not found: ${requested}`, { path: requested });
    throw new ResponseError(ErrorCodes.InternalError, `cannot read ${requested}: ${(error as Error).message}`);
  }
  return target(rootReal, real, true, requested);
}

/**
 * Resolve `requested` for writing: an existing file's real path, or for a new one the real path
 * of its nearest existing parent joined with the names still to be created. A link whose target
 * does not exist is refused: writing through it would create that target, wherever it is.
 */
export async function resolveForWrite(root: string, requested: string): Promise<Target> {
  const { rootReal, resolved } = await start(root, requested);
  const { real, exists } = await realOrNearestParent(resolved, requested);
  return target(rootReal, real, exists, requested);
}

async function start(root: string, requested: string): Promise<{ rootReal: string; resolved: string }> {
  if (typeof requested !== 'string' || !path.isAbsolute(requested)) {
    throw refuse('not-absolute', `path must be absolute: ${String(requested)}`, String(requested));
  }
  let rootReal: string;
  try {
    rootReal = await fsp.realpath(root);
  } catch (error) {
    throw new ResponseError(ErrorCodes.InternalError, `the workspace folder is not available: ${(error as Error).message}`);
  }
  return { rootReal, resolved: path.resolve(requested) };
}

function target(rootReal: string, real: string, exists: boolean, requested: string): Target {
  if (!isInside(rootReal, real)) {
    const via = path.resolve(requested) === real ? '' : ` (it leads to ${real})`;
    throw refuse('outside-workspace', `path is outside the workspace folder ${rootReal}: ${requested}${via}`, requested);
  }
  return { real, root: rootReal, relative: path.relative(rootReal, real).split(path.sep).join('/'), exists };
}

async function realOrNearestParent(resolved: string, requested: string): Promise<{ real: string; exists: boolean }> {
  // A few tries, because the path can appear between two looks: opencode writes the file itself
  // while it asks Reins to write it, and a file created after realpath failed, seen by lstat,
  // was once refused as a dangling link. What appeared is looked at again, not refused.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return { real: await fsp.realpath(resolved), exists: true };
    } catch (error) {
      if (!isMissing(error)) throw new ResponseError(ErrorCodes.InternalError, `cannot write ${requested}: ${(error as Error).message}`);
    }
    // realpath failed with ENOENT: nothing is there, a link whose target is missing, or
    // something that was created a moment ago.
    const entry = await lstatIfAny(resolved);
    if (!entry) return nearestParent(resolved, requested);
    if (entry.isSymbolicLink()) {
      throw refuse('dangling-link', `path is a link to a file that does not exist, which may be outside the workspace folder: ${requested}`, requested);
    }
  }
  throw new ResponseError(ErrorCodes.InternalError, `cannot write ${requested}: it kept appearing and disappearing while its real path was looked up`);
}

async function nearestParent(resolved: string, requested: string): Promise<{ real: string; exists: boolean }> {
  const parent = path.dirname(resolved);
  if (parent === resolved) throw new ResponseError(ErrorCodes.InternalError, `cannot write ${requested}: no existing parent directory`);
  const above = await realOrNearestParent(parent, requested);
  return { real: path.join(above.real, path.basename(resolved)), exists: false };
}

async function lstatIfAny(p: string): Promise<Stats | undefined> {
  try {
    return await fsp.lstat(p);
  } catch {
    return undefined;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
