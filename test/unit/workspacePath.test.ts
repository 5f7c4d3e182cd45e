// The path checks under every fs/* request (src/acp/clientMethods/workspacePath.ts), asked
// directly: what is inside, what each refusal says and carries, new files and dangling links.
// Written for the gaps the mutation run (npm run test:mutation) found: fsAccess.test.ts goes
// through the whole file access and left these answers unchecked.
import * as assert from 'node:assert/strict';
import { promises as fsp, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ErrorCodes, ResponseError } from 'vscode-jsonrpc/node';
import { isInside, RESOURCE_NOT_FOUND, resolveForRead, resolveForWrite } from '../../src/acp/clientMethods/workspacePath';

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'reins-wspath-')));
const root = path.join(base, 'ws');
const outside = path.join(base, 'outside.txt');
mkdirSync(path.join(root, 'src'), { recursive: true });
writeFileSync(path.join(root, 'src', 'a.ts'), 'a');
writeFileSync(outside, 'secret');
symlinkSync(outside, path.join(root, 'escape'));
symlinkSync(path.join(base, 'nowhere.txt'), path.join(root, 'dangling'));

async function refusal(p: Promise<unknown>): Promise<ResponseError<{ reason?: string; path?: string }>> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof ResponseError, String(error));
    return error as ResponseError<{ reason?: string; path?: string }>;
  }
  assert.fail('expected a refusal');
}

describe('workspace path checks', () => {
  it('isInside: the folder itself and what is below it; not its parent, a sibling with the same prefix, or ..', () => {
    assert.equal(isInside('/w/ws', '/w/ws'), true);
    assert.equal(isInside('/w/ws', '/w/ws/a/b'), true);
    assert.equal(isInside('/w/ws', '/w/ws/..hidden'), true, '..hidden is a name, not a way out');
    assert.equal(isInside('/w/ws', '/w'), false);
    assert.equal(isInside('/w/ws', '/w/ws2/a'), false);
    assert.equal(isInside('/w/ws', '/w/other'), false);
  });

  it('read: a file inside gives its real path, root and /-separated relative path', async () => {
    const t = await resolveForRead(root, path.join(root, 'src', '..', 'src', 'a.ts'));
    assert.deepEqual(t, { real: path.join(root, 'src', 'a.ts'), root, relative: 'src/a.ts', exists: true });
  });

  it('read: a relative path is refused as not absolute, naming it', async () => {
    const e = await refusal(resolveForRead(root, 'src/a.ts'));
    assert.equal(e.code, ErrorCodes.InvalidParams);
    assert.equal(e.data?.reason, 'not-absolute');
    assert.match(e.message, /path must be absolute: src\/a\.ts/);
  });

  it('read: a missing file (or a file used as a folder) is -32002 with the path', async () => {
    for (const p of [path.join(root, 'nope.ts'), path.join(root, 'src', 'a.ts', 'x')]) {
      const e = await refusal(resolveForRead(root, p));
      assert.equal(e.code, RESOURCE_NOT_FOUND, p);
      assert.equal(e.data?.path, p);
      assert.match(e.message, /file not found/);
    }
  });

  it('read: outside the folder is refused; through a link the message says where it leads', async () => {
    const direct = await refusal(resolveForRead(root, outside));
    assert.equal(direct.data?.reason, 'outside-workspace');
    assert.doesNotMatch(direct.message, /it leads to/);
    const viaLink = await refusal(resolveForRead(root, path.join(root, 'escape')));
    assert.equal(viaLink.data?.reason, 'outside-workspace');
    assert.match(viaLink.message, new RegExp(`\\(it leads to ${outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
  });

  it('write: a new file in new folders is inside, not existing yet; a dangling link is refused', async () => {
    const t = await resolveForWrite(root, path.join(root, 'new', 'deep', 'b.ts'));
    assert.deepEqual(t, { real: path.join(root, 'new', 'deep', 'b.ts'), root, relative: 'new/deep/b.ts', exists: false });
    const existing = await resolveForWrite(root, path.join(root, 'src', 'a.ts'));
    assert.equal(existing.exists, true);
    const e = await refusal(resolveForWrite(root, path.join(root, 'dangling')));
    assert.equal(e.data?.reason, 'dangling-link');
    assert.match(e.message, /link to a file that does not exist/);
  });

  it('write: a file that appears between the two looks is written to, not refused as a dangling link', async () => {
    // opencode writes the file itself while it asks Reins to write it (CI saw this as a refused
    // write): realpath finds nothing, then lstat finds the file just created. The race is made
    // certain here by creating the file right after the first realpath fails.
    // Sabotage (an entry seen by lstat refused whatever it is, as before) printed:
    // "path is a link to a file that does not exist, which may be outside the workspace folder: …/raced.txt".
    const raced = path.join(root, 'raced.txt');
    const realpath = fsp.realpath;
    let calls = 0;
    fsp.realpath = (async (p: string) => {
      try {
        return await realpath(p);
      } finally {
        if (p === raced && calls++ === 0) writeFileSync(raced, 'written by the agent itself');
      }
    }) as typeof fsp.realpath;
    try {
      const t = await resolveForWrite(root, raced);
      assert.deepEqual(t, { real: raced, root, relative: 'raced.txt', exists: true });
      assert.equal(calls, 2, 'realpath asked again after the file appeared');
    } finally {
      fsp.realpath = realpath;
    }
  });

  it('a workspace folder that is gone is an internal error, not a refusal', async () => {
    const e = await refusal(resolveForRead(path.join(base, 'gone'), path.join(base, 'gone', 'a')));
    assert.equal(e.code, ErrorCodes.InternalError);
    assert.match(e.message, /the workspace folder is not available/);
  });
});
