// The size limits, the write report and the editor's open documents of a runtime's FileAccess, attached to the runtime by
// whoever shows it (the folder conversation, when it wires a new runtime) instead of being passed
// to its constructor: the runtime builds its FileAccess in start() and looks them up at each
// request, so that a changed setting applies at once and a detached listener hears nothing.
// The hooks' vocabulary lives here, and fs.ts takes it from here: fs.ts consults the hooks, so
// nothing here may import fs.ts.

export interface FileLimits {
  /** Most bytes one fs/read_text_file answer may carry. */
  maxReadBytes: number;
  /** Most bytes one fs/write_text_file may write. */
  maxWriteBytes: number;
}

/** One file the agent wrote. */
export interface FileWrite {
  /** The folder's real path. */
  root: string;
  /** The real path written (where the bytes went, links resolved). */
  path: string;
  /** `path` relative to `root`, `/`-separated. */
  relative: string;
  bytes: number;
  /** The file did not exist before. */
  created: boolean;
}

/**
 * The editor's open documents, by real path (src/editor/openDocuments.ts in the extension; none in the
 * unit tests and the interop suite). Both are asked only after the path checks passed.
 */
export interface OpenDocuments {
  /** The current text of the document open at `real` (unsaved edits included); undefined when none is open. */
  text(real: string): Promise<string | undefined>;
  /** Replace the text of the document open at `real` (an undoable edit) and save it; false when none is open. */
  replace(real: string, content: string): Promise<boolean>;
}

/** What a FileAccess asks at each request (given in its options, or attached: see below). */
export interface FileRequestHooks {
  /** Read at each request, so that a changed setting applies at once. */
  limits: () => Partial<FileLimits>;
  /** Called after each successful write; what it throws is ignored. */
  onWrite: (write: FileWrite) => void;
  /** Awaited before each write, with the real path about to be written (the turn's checkpoint saves the file); what it throws is ignored. */
  beforeWrite: (real: string) => Promise<void>;
  /** Open documents served instead of the disk. */
  editor: () => OpenDocuments | undefined;
}

export interface FileHooks {
  limits?: () => Partial<FileLimits>;
  onWrite?: (write: FileWrite) => void;
  beforeWrite?: (real: string) => Promise<void>;
  editor?: OpenDocuments;
}

const attached = new WeakMap<object, FileHooks>();

/** Attach `hooks` to `owner` (a runtime); the returned disposable detaches them. */
export function attachFileHooks(owner: object, hooks: FileHooks): { dispose(): void } {
  attached.set(owner, hooks);
  return {
    dispose: () => {
      if (attached.get(owner) === hooks) attached.delete(owner);
    },
  };
}

/** The FileAccess options that consult what is attached to `owner` when a request comes. */
export function hookedFileOptions(owner: object): FileRequestHooks {
  return {
    beforeWrite: async (real) => attached.get(owner)?.beforeWrite?.(real),
    limits: () => attached.get(owner)?.limits?.() ?? {},
    onWrite: (write) => attached.get(owner)?.onWrite?.(write),
    editor: () => attached.get(owner)?.editor,
  };
}
