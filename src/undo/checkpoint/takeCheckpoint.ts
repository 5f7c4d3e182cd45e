// Which checkpoint a folder gets: a git snapshot in a git checkout, else the files saved as the agent
// writes them. No `vscode` here.
import { FileCheckpoint } from './fileCheckpoint';
import { GitCheckpoint } from './gitCheckpoint';
import type { Checkpoint } from './checkpoint';

/** The checkpoint of `folder` now: a git snapshot when the folder is in a git checkout, else files saved as the agent writes them. */
export async function takeCheckpoint(folder: string, onNote: (message: string) => void = () => undefined): Promise<Checkpoint> {
  const git = await GitCheckpoint.take(folder, onNote);
  return git ?? new FileCheckpoint(folder, onNote);
}
