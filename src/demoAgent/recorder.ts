// The record: one JSON line per message received ("in"), message sent ("out") or notable
// event ("event"), appended synchronously so that a test reading the file right after an
// exchange sees it. Times are wall-clock milliseconds with sub-millisecond precision.
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export type RecordEntry = { t: number; dir: 'in' | 'out'; msg: unknown } | { t: number; dir: 'event'; event: string; [field: string]: unknown };

export function now(): number {
  return performance.timeOrigin + performance.now();
}

export class Recorder {
  constructor(private file: string | undefined) {}

  in(msg: unknown): void {
    this.append({ t: now(), dir: 'in', msg });
  }

  out(msg: unknown): void {
    this.append({ t: now(), dir: 'out', msg });
  }

  event(event: string, fields: Record<string, unknown> = {}): void {
    this.append({ t: now(), dir: 'event', event, ...fields });
  }

  private append(entry: RecordEntry): void {
    if (!this.file) return;
    try {
      appendFileSync(this.file, JSON.stringify(entry) + '\n');
    } catch (err) {
      // A record that cannot be written must not change the agent's behaviour on the wire.
      process.stderr.write(`reins-scripted-agent: cannot write record ${this.file}: ${String(err)}\n`);
      this.file = undefined;
    }
  }
}
