// The checkpoint outside git: each file the agent writes through fs/write_text_file, saved
// before its first write (its bytes and mode, or that it did not exist). What the agent changes
// by other means (its own tools, terminal commands) is not in it; the confirmation says so.
import { realpathSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { Checkpoint, FileChange } from './checkpoint';
import { isInside, removeEmptyParents } from './paths';

type Saved = { existed: false } | { existed: true; content: Buffer; mode: number };

export class FileCheckpoint implements Checkpoint {
  readonly kind = 'files';
  readonly takenAt = Date.now();
  private readonly saved = new Map<string, Saved>();
  private readonly real: string;

  constructor(
    readonly folder: string,
    private readonly onNote: (message: string) => void,
  ) {
    this.real = realpathSync(folder);
  }

  async beforeWrite(real: string): Promise<void> {
    if (this.saved.has(real) || !isInside(this.real, real)) return;
    try {
      const stat = await fsp.lstat(real);
      if (!stat.isFile()) return; // fs.ts refuses to write anything else
      this.saved.set(real, { existed: true, content: await fsp.readFile(real), mode: stat.mode & 0o7777 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.saved.set(real, { existed: false });
      else this.onNote(`checkpoint: could not save ${real} before the agent's write: ${(error as Error).message}`);
    }
  }

  async changes(): Promise<FileChange[]> {
    const found: FileChange[] = [];
    for (const [file, saved] of this.saved) {
      const now = await fsp.readFile(file).catch(() => undefined);
      const status: FileChange['status'] | undefined = !saved.existed
        ? now === undefined
          ? undefined
          : 'added'
        : now === undefined
          ? 'deleted'
          : now.equals(saved.content)
            ? undefined
            : 'modified';
      if (status) found.push({ path: file, relative: path.relative(this.real, file).split(path.sep).join('/'), status });
    }
    return found;
  }

  original(change: FileChange): Promise<Buffer | undefined> {
    const saved = this.saved.get(change.path);
    return Promise.resolve(saved?.existed ? saved.content : undefined);
  }

  async restore(changes: readonly FileChange[]): Promise<void> {
    for (const change of changes) {
      const saved = this.saved.get(change.path);
      if (!saved) throw new Error(`not in the checkpoint: ${change.path}`);
      if (!saved.existed) {
        await fsp.rm(change.path, { force: true });
        await removeEmptyParents(change.path, this.real);
        continue;
      }
      await fsp.mkdir(path.dirname(change.path), { recursive: true });
      await fsp.writeFile(change.path, saved.content);
      await fsp.chmod(change.path, saved.mode);
    }
  }
}
