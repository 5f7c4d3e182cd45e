// The log files behind Open Full Output: each tool card's whole text output and each terminal's
// whole output, in a directory of this window's own (removed when the window's conversation
// ends), written as it comes, so that nothing the card leaves out is lost. Writes are synchronous
// appends of what is new (a delta, a terminal's read), never the whole output again, and a file
// is complete whenever it is opened. No `vscode`.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { OutputLog } from './toolOutputs';

export class OutputFiles implements OutputLog {
  private dir: string | undefined;
  /** Card or terminal → its file. */
  private readonly files = new Map<string, string>();
  /** Card → the terminals it shows. */
  private readonly terminalsOf = new Map<string, string[]>();
  private count = 0;
  /** The first write that failed (a full disk): said once, then the log is off. */
  private failed: Error | undefined;

  constructor(private readonly onError: (error: Error) => void = () => undefined) {}

  replace(id: string, text: string): void {
    this.write(`card:${id}`, text, false);
  }

  append(id: string, text: string): void {
    this.write(`card:${id}`, text, true);
  }

  /** Bytes a terminal printed (its whole output, as it came). */
  terminal(terminalId: string, data: Buffer | string): void {
    this.write(`terminal:${terminalId}`, data, true);
  }

  /** Card `id` shows terminal `terminalId`: its Open Full Output opens that terminal's log too. */
  linkTerminal(id: string, terminalId: string): void {
    const list = this.terminalsOf.get(id) ?? [];
    if (!list.includes(terminalId)) this.terminalsOf.set(id, [...list, terminalId]);
  }

  /** The files holding card `id`'s whole output: its text output, then its terminals'. */
  filesOf(id: string): string[] {
    const keys = [`card:${id}`, ...(this.terminalsOf.get(id) ?? []).map((t) => `terminal:${t}`)];
    return keys.map((k) => this.files.get(k)).filter((f): f is string => f !== undefined);
  }

  /** A new conversation: the old outputs are gone with its cards. */
  clear(): void {
    this.dispose();
    this.failed = undefined;
  }

  dispose(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.files.clear();
    this.terminalsOf.clear();
  }

  private write(key: string, data: Buffer | string, append: boolean): void {
    if (this.failed) return;
    try {
      this.dir ??= mkdtempSync(path.join(tmpdir(), 'reins-output-'));
      let file = this.files.get(key);
      if (file === undefined) this.files.set(key, (file = path.join(this.dir, `${key.split(':')[0]}-${++this.count}.log`)));
      if (append) appendFileSync(file, data);
      else writeFileSync(file, data);
    } catch (error) {
      this.failed = error as Error;
      this.onError(this.failed);
    }
  }
}
