// A checkpoint of a folder, taken before each prompt, so that a turn's changes can be shown and
// taken back (Undo This Turn's Changes). In a git checkout it is a snapshot of the whole working
// tree under the folder (gitCheckpoint.ts); elsewhere, the files the agent writes through
// fs/write_text_file, each saved before its first write (fileCheckpoint.ts). No `vscode` here.

/** One file that differs from the checkpoint. */
export interface FileChange {
  /** Absolute path of the file. */
  path: string;
  /** `path` relative to the folder, `/`-separated (for people). */
  relative: string;
  /** `added`: not in the checkpoint (undo deletes it); `deleted`: gone since (undo writes it back). */
  status: 'added' | 'modified' | 'deleted';
}

export interface Checkpoint {
  /** `git`: the whole working tree (files git ignores excepted); `files`: only what the agent wrote through fs/write_text_file. */
  readonly kind: 'git' | 'files';
  /** The folder it covers (the path the session runs in). */
  readonly folder: string;
  readonly takenAt: number;
  /** For `git`: the commit object that holds the snapshot (reachable from no ref, branch or stash). */
  readonly commit?: string;
  /** The files that differ from the checkpoint now. */
  changes(): Promise<FileChange[]>;
  /** The checkpoint's content of a changed file (undefined for `added`). */
  original(change: FileChange): Promise<Buffer | undefined>;
  /** Put `changes` back as they were at the checkpoint: deleted and modified files written, added ones removed. */
  restore(changes: readonly FileChange[]): Promise<void>;
  /** A file the agent is about to write through fs/write_text_file (only `files` keeps anything). */
  beforeWrite(real: string): Promise<void>;
}
