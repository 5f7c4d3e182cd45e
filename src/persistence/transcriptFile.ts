// Where the kept transcript (savedTranscript.ts) lives between windows: a file of its own in the
// extension's workspace storage folder, written by the extension host, not a key of
// `workspaceState`. Each `workspaceState` update sends the extension's whole state, this
// transcript included (up to 1 MB of JSON), through the extension host's RPC into the workbench's
// renderer, which parses it and stores it on the thread the panel shares (in code-server the very
// thread): streaming at the end of a 100-turn transcript, 1.1–1.8 MB crossed the extension
// host's socket in 3 s, against 0.7 MB at the end of a 10-turn one (the long bench). A file costs
// the extension host the same JSON.stringify and nothing anywhere else.
//
// Written at once (the write is small next to the stringify it follows, and a write that finishes
// before the call returns cannot be cut off by the window closing), to a temporary file renamed
// over the old one, so that a crash leaves the old transcript or the new one, never half of one.
// No `vscode`: the folder is a path; the editor side chooses it (sessionKeeper.ts).
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import type { KeyValue } from './sessionStore';

/** What the keeper needs of a place to keep one folder's transcript. */
export interface KeptTranscript {
  /** What was kept (unchecked: savedTranscript.restorable checks it), or undefined. */
  read(): unknown;
  /** Keeps `value`, replacing what was kept; `undefined` keeps nothing. Throws, or rejects, if it cannot. */
  write(value: unknown): void | PromiseLike<void>;
}

/** A folder's transcript under `dir`: the folder's key hashed, so that any URI makes a file name. */
export function transcriptPath(dir: string, folderKey: string): string {
  return path.join(dir, 'transcripts', `${createHash('sha256').update(folderKey).digest('hex').slice(0, 32)}.json`);
}

/**
 * One folder's transcript in a file. `legacy`: the `workspaceState` key an earlier version kept it
 * under, read when there is no file yet and cleared once the file is written.
 */
export class TranscriptFile implements KeptTranscript {
  private legacyLeft: boolean;

  constructor(
    readonly file: string,
    private readonly legacy?: { kv: KeyValue; key: string },
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.legacyLeft = legacy?.kv.get(legacy.key) !== undefined;
  }

  read(): unknown {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.warn(`could not read the kept transcript ${this.file}: ${(error as Error).message}`);
      return this.legacyLeft ? this.legacy?.kv.get(this.legacy.key) : undefined;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      this.warn(`the kept transcript ${this.file} is not JSON (${(error as Error).message}); the conversation starts empty`);
      return undefined;
    }
  }

  write(value: unknown): void {
    if (value === undefined) rmSync(this.file, { force: true });
    else {
      mkdirSync(path.dirname(this.file), { recursive: true });
      const temporary = `${this.file}.${process.pid}.tmp`;
      try {
        writeFileSync(temporary, JSON.stringify(value));
        renameSync(temporary, this.file);
      } catch (error) {
        rmSync(temporary, { force: true });
        throw error;
      }
    }
    if (this.legacyLeft && this.legacy) {
      this.legacyLeft = false;
      void this.legacy.kv.update(this.legacy.key, undefined);
    }
  }
}

/** The transcript as a key of a KeyValue: where no storage folder on this machine's disk is given. */
export class TranscriptKey implements KeptTranscript {
  constructor(
    private readonly kv: KeyValue,
    private readonly key: string,
  ) {}

  read(): unknown {
    return this.kv.get(this.key);
  }

  write(value: unknown): PromiseLike<void> {
    return this.kv.update(this.key, value);
  }
}
