// The transcript's entries in order, by id and by place, with the settled ones of a long
// conversation out of memory: a four-hour session is 50 MB of text, all of it held by the
// extension host while the panel shows a page. An entry that is settled (the transcript says
// which: not streaming, not a running tool's card), more than SETTLED_BEHIND behind the end and at
// least SPILL_MIN_CHARS long as JSON is written to the entry file (entryFiles.ts) and held as a
// stub of its id, kind and place there; asked for, it is read back whole. Replaced, it is in
// memory again until it is settled there. Without an entry file nothing leaves memory. No `vscode`.
import type { TranscriptEntry } from '../shared/messages';
import type { EntryFiles, Spot } from './entryFiles';

/** The newest entries stay in memory: what streams, what is updated and the panel's first page. */
const SETTLED_BEHIND = 200;
/** Shorter entries stay: their stub would save little. */
const SPILL_MIN_CHARS = 400;

/** What stays in memory of an entry on disk. */
class Stub {
  constructor(
    readonly id: string,
    readonly spot: Spot,
  ) {}
}

type Held = TranscriptEntry | Stub;

const isStub = (h: Held): h is Stub => h instanceof Stub;

export class EntryList {
  private readonly list: Held[] = [];
  private readonly byId = new Map<string, Held>();
  /** Position in `list` by id. */
  private readonly at = new Map<string, number>();
  /** Entries before this place were looked at for spilling once they were SETTLED_BEHIND behind. */
  private looked = 0;

  constructor(
    private readonly settled: (entry: TranscriptEntry) => boolean,
    private readonly files?: EntryFiles,
  ) {}

  get length(): number {
    return this.list.length;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): TranscriptEntry | undefined {
    const held = this.byId.get(id);
    return held === undefined ? undefined : this.whole(held);
  }

  indexOf(id: string): number {
    return this.at.get(id) ?? -1;
  }

  /** Entries `from` (inclusive) to `to` (exclusive), whole. */
  slice(from: number, to?: number): TranscriptEntry[] {
    return this.list.slice(from, to).map((h) => this.whole(h));
  }

  /** The entries held in memory, oldest first (a spilled one is settled: a running tool's card never is). */
  *inMemory(): Iterable<TranscriptEntry> {
    for (const h of this.list) if (!isStub(h)) yield h;
  }

  /** How many entries are on disk now. */
  get spilled(): number {
    let n = 0;
    for (const h of this.list) if (isStub(h)) n++;
    return n;
  }

  /** Stores `entry` (frozen by the caller) in place of the one with its id, or new at `at` (default: the end). */
  put(entry: TranscriptEntry, at = this.list.length): void {
    const index = this.at.get(entry.id);
    if (index !== undefined) {
      this.list[index] = entry;
      this.byId.set(entry.id, entry);
      if (index < this.looked) this.spill(index);
      return;
    }
    this.byId.set(entry.id, entry);
    if (at >= this.list.length) {
      this.at.set(entry.id, this.list.length);
      this.list.push(entry);
    } else {
      // Inserted before the end (a late entry): the entries after it move one place on.
      this.list.splice(at, 0, entry);
      for (let i = at; i < this.list.length; i++) this.at.set(this.list[i]!.id, i);
      if (at < this.looked) {
        this.looked++;
        this.spill(at);
      }
    }
    // The entry at `i` is `length - 1 - i` behind the end.
    while (this.looked < this.list.length - 1 - SETTLED_BEHIND) this.spill(this.looked++);
  }

  clear(): void {
    this.list.length = 0;
    this.byId.clear();
    this.at.clear();
    this.looked = 0;
    this.files?.clear();
  }

  /** The entry at `index` to the file, if it is settled and long enough to be worth it. */
  private spill(index: number): void {
    const held = this.list[index]!;
    if (!this.files || isStub(held) || !this.settled(held)) return;
    const json = JSON.stringify(held);
    if (json.length < SPILL_MIN_CHARS) return;
    const spot = this.files.write(json);
    if (spot === undefined) return;
    const stub = new Stub(held.id, spot);
    this.list[index] = stub;
    this.byId.set(held.id, stub);
  }

  private whole(held: Held): TranscriptEntry {
    if (!isStub(held)) return held;
    try {
      // Frozen as every entry the transcript holds: read back, it is as it was stored.
      return Object.freeze(JSON.parse(this.files!.read(held.spot))) as TranscriptEntry;
    } catch (error) {
      // The file gone (its owner disposed it first) must not take the panel or a save with it.
      return { kind: 'notice', id: held.id, level: 'warning', text: `This part of the conversation could not be read back: ${(error as Error).message}` };
    }
  }
}
