// What the renderer's main thread did during each stall the webview probe saw: ran (a long task,
// or many), waited on a run queue for a core, or neither (asleep, waiting for the GPU process or
// an IPC). The probe's timer lateness cannot tell these apart, and on a 2-core machine a stall is
// mostly waiting (session 9 found it by hand, BENCHMARKS.md): "no task over 50 ms" is about the
// first. From /proc/<pid>/task/<tid>/schedstat (Linux: ns on a CPU, ns runnable but not running),
// sampled every few ms for every renderer process's main thread (its tid is its pid).
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { nth } from '../support/helpers';

interface Sample {
  /** Wall-clock ms (performance.timeOrigin + now), the clock the frame's stalls are mapped to. */
  t: number;
  ranMs: number;
  waitedMs: number;
}

/** One stall, split. */
export interface StallShare {
  ms: number;
  ranMs: number;
  waitedMs: number;
}

export interface SchedSampler {
  /** Stops sampling; the samples of the renderer whose main thread ran the most (the workbench's and the webview's). */
  stop(): Sample[];
}

/** Every 10 ms: a fifth of the 50 ms target. At 5 ms, opening each file for every read cost the
 *  bench driver 0.5 CPU-s over a 10 s stream, CPU the measured renderer then waited for. */
export const SAMPLE_MS = 10;

export function sampleRenderers(): SchedSampler {
  // Each file opened once and read again from its start (pread): one system call per sample.
  const files = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && isRenderer(d))
    .flatMap((pid) => {
      try {
        return [{ fd: openSync(`/proc/${pid}/task/${pid}/schedstat`, 'r'), samples: [] as Sample[] }];
      } catch {
        return []; // gone meanwhile
      }
    });
  const buffer = Buffer.alloc(128);
  const take = (): void => {
    const t = performance.timeOrigin + performance.now();
    for (const file of files) {
      try {
        const [ran = Number.NaN, waited = Number.NaN] = buffer
          .toString('latin1', 0, readSync(file.fd, buffer, 0, buffer.length, 0))
          .split(' ')
          .map(Number);
        file.samples.push({ t, ranMs: ran / 1e6, waitedMs: waited / 1e6 });
      } catch {
        // the process ended: its samples so far stand
      }
    }
  };
  take();
  const timer = setInterval(take, SAMPLE_MS);
  let result: Sample[] | undefined;
  return {
    stop() {
      if (result) return result;
      clearInterval(timer);
      take();
      for (const file of files) closeSync(file.fd);
      const ran = (xs: Sample[]) => (xs.length ? nth(xs, xs.length - 1, 'xs').ranMs - nth(xs, 0, 'xs').ranMs : 0);
      result = files.map((f) => f.samples).sort((a, b) => ran(b) - ran(a))[0] ?? [];
      return result;
    },
  };
}

/** Each stall ([start, ms] in the frame's performance.now(), whose timeOrigin is `origin`), split by the samples. */
export function shareOf(samples: Sample[], origin: number, stalls: [number, number][]): StallShare[] {
  return stalls.map(([start, ms]) => {
    const from = origin + start;
    const to = from + ms;
    return {
      ms,
      ranMs: at(samples, to, 'ranMs') - at(samples, from, 'ranMs'),
      waitedMs: at(samples, to, 'waitedMs') - at(samples, from, 'waitedMs'),
    };
  });
}

/** The counter at time `t`, linear between the samples around it (sampling is every few ms). */
function at(samples: Sample[], t: number, key: 'ranMs' | 'waitedMs'): number {
  const i = samples.findIndex((s) => s.t >= t);
  if (i < 0) return samples[samples.length - 1]?.[key] ?? 0;
  const a = samples[i - 1];
  const b = nth(samples, i, 'the samples');
  if (a === undefined) return b[key];
  return a[key] + ((b[key] - a[key]) * (t - a.t)) / Math.max(1e-9, b.t - a.t);
}

function isRenderer(pid: string): boolean {
  try {
    return /chrom(e|ium).*--type=renderer/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
  } catch {
    return false; // gone meanwhile
  }
}
