// The size limits, the write report and the editor's open documents of a runtime's FileAccess, attached to the runtime by
// whoever shows it (the folder conversation, when it wires a new runtime) instead of being passed
// to its constructor: the runtime builds its FileAccess in start() and looks them up at each
// request, so that a changed setting applies at once and a detached listener hears nothing.
import type { FileAccessOptions, FileLimits, FileWrite, OpenDocuments } from './fs';

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
export function hookedFileOptions(owner: object): Pick<FileAccessOptions, 'limits' | 'onWrite' | 'beforeWrite' | 'editor'> {
  return {
    beforeWrite: async (real) => attached.get(owner)?.beforeWrite?.(real),
    limits: () => attached.get(owner)?.limits?.() ?? {},
    onWrite: (write) => attached.get(owner)?.onWrite?.(write),
    editor: () => attached.get(owner)?.editor,
  };
}
