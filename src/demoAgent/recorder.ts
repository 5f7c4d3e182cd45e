// The record: one JSON line per message received ("in"), message sent ("out") or notable
// event ("event"), appended synchronously so that a test reading the file right after an
// exchange sees it. Times are wall-clock milliseconds with sub-millisecond precision.
import { openSync, writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export type RecordEntry = { t: number; dir: 'in' | 'out'; msg: unknown } | { t: number; dir: 'event'; event: string; [field: string]: unknown };

export function now(): number {
  return performance.timeOrigin + performance.now();
}

export class Recorder {
  /**
   * Opened once: `appendFileSync` opens and closes the file for every line. Over the streaming
   * benchmark's flood (50,000 lines) that took 0.46 CPU-s against 0.16-0.19 for one open file
   * (2 December), CPU that the panel being measured waits for on a 2-core machine.
   */
  private fd: number | undefined;

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
      this.fd ??= openSync(this.file, 'a');
      writeSync(this.fd, JSON.stringify(entry) + '\n');
    } catch (err) {
      // A record that cannot be written must not change the agent's behaviour on the wire.
      process.stderr.write(`reins-scripted-agent: cannot write record ${this.file}: ${String(err)}\n`);
      this.file = undefined;
    }
  }
}
