// The kept transcript's file (src/persistence/transcriptFile.ts): what is written is read back,
// replaced whole (never half written), an earlier version's workspaceState key read once and
// cleared, and a file that cannot be read or written said so.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MemoryKeyValue } from '../../src/persistence/sessionStore';
import { TranscriptFile, TranscriptKey, transcriptPath } from '../../src/persistence/transcriptFile';

const saved = (n: number) => ({ version: 1, entries: [{ kind: 'user', id: `u${n}`, text: `prompt ${n}` }], dropped: 0 });

describe('the kept transcript in a file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'reins-kept-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("one file per folder, named by the folder's key whatever characters it has", () => {
    const a = transcriptPath(dir, 'file:///home/me/project');
    assert.equal(a, transcriptPath(dir, 'file:///home/me/project'));
    assert.notEqual(a, transcriptPath(dir, 'file:///home/me/other'));
    assert.match(path.basename(transcriptPath(dir, 'vscode-remote://ssh+host/a b?c#d')), /^[0-9a-f]{32}\.json$/);
  });

  it('reads back what it wrote, replaced whole, leaving no temporary file', () => {
    const file = new TranscriptFile(transcriptPath(dir, 'k'));
    assert.equal(file.read(), undefined);
    file.write(saved(1));
    file.write(saved(2));
    assert.deepEqual(file.read(), saved(2));
    assert.deepEqual(readdirSync(path.dirname(file.file)), [path.basename(file.file)]);
    file.write(undefined);
    assert.equal(existsSync(file.file), false);
    assert.equal(file.read(), undefined);
  });

  // Sabotage (the key not cleared after the first write): "Expected values to be strictly equal:
  // + actual - expected  + { dropped: 0, entries: [ { id: 'u0', kind: 'user', text: 'prompt 0' } ] …".
  it("reads an earlier version's workspaceState key until the file is written, then clears the key", async () => {
    const kv = new MemoryKeyValue();
    await kv.update('reins.transcript:k', saved(0));
    const file = new TranscriptFile(transcriptPath(dir, 'k'), { kv, key: 'reins.transcript:k' });
    assert.deepEqual(file.read(), saved(0));
    file.write(saved(1));
    assert.equal(kv.get('reins.transcript:k'), undefined);
    assert.deepEqual(new TranscriptFile(file.file, { kv, key: 'reins.transcript:k' }).read(), saved(1));
  });

  it('a file that is there wins over the key', async () => {
    const kv = new MemoryKeyValue();
    new TranscriptFile(transcriptPath(dir, 'k')).write(saved(1));
    await kv.update('reins.transcript:k', saved(0));
    assert.deepEqual(new TranscriptFile(transcriptPath(dir, 'k'), { kv, key: 'reins.transcript:k' }).read(), saved(1));
  });

  it('a file that is not JSON: nothing restored, and said', () => {
    const warnings: string[] = [];
    const file = new TranscriptFile(transcriptPath(dir, 'k'), undefined, (m) => warnings.push(m));
    mkdirSync(path.dirname(file.file), { recursive: true });
    writeFileSync(file.file, '{"version":1,"entr');
    assert.equal(file.read(), undefined);
    assert.match(warnings.join('\n'), /is not JSON/);
  });

  it('a write that fails throws and leaves the kept file as it was', () => {
    const file = new TranscriptFile(transcriptPath(dir, 'k'));
    file.write(saved(1));
    // A directory where the temporary file would go: writeFileSync fails (EISDIR).
    mkdirSync(`${file.file}.${process.pid}.tmp`);
    assert.throws(() => file.write(saved(2)), /EISDIR/);
    assert.deepEqual(file.read(), saved(1));
  });

  it('without a storage folder: the workspaceState key as before', async () => {
    const kv = new MemoryKeyValue();
    const key = new TranscriptKey(kv, 'reins.transcript:k');
    await key.write(saved(1));
    assert.deepEqual(key.read(), saved(1));
  });
});
