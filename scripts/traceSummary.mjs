#!/usr/bin/env node
// Summarises a Chrome trace (test/bench/trace.ts writes them): per thread, the time spent in each
// kind of event, counting only its own time (an event's duration less its children's), the
// largest first; then each task of the renderer's main thread over `long` ms, with the CPU time
// it got and where its time went. `node scripts/traceSummary.mjs <trace.json> [top=25] [long=50]`.
import { readFileSync } from 'node:fs';

const [file, topArg, longArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/traceSummary.mjs <trace.json> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const longMs = Number(longArg ?? 50);
const raw = JSON.parse(readFileSync(file, 'utf8'));
const events = Array.isArray(raw) ? raw : raw.traceEvents;
const threadNames = new Map();
for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threadNames.set(`${e.pid}:${e.tid}`, e.args.name);

// Complete events ('X') and begin/end pairs ('B'/'E'), per thread, nested by time.
const perThread = new Map();
const open = new Map();
for (const e of events) {
  const key = `${e.pid}:${e.tid}`;
  if (e.ph === 'X' && e.dur !== undefined)
    (perThread.get(key) ?? perThread.set(key, []).get(key)).push({ name: e.name, ts: e.ts, end: e.ts + e.dur, cpu: e.tdur });
  else if (e.ph === 'B') (open.get(key) ?? open.set(key, []).get(key)).push(e);
  else if (e.ph === 'E') {
    const b = open.get(key)?.pop();
    if (b) (perThread.get(key) ?? perThread.set(key, []).get(key)).push({ name: b.name, ts: b.ts, end: e.ts });
  }
}
for (const [key, list] of perThread) {
  list.sort((a, b) => a.ts - b.ts || b.end - a.end);
  const self = new Map();
  const stack = [];
  let busy = 0;
  for (const ev of list) {
    while (stack.length && stack[stack.length - 1].end <= ev.ts) stack.pop();
    const parent = stack[stack.length - 1];
    const dur = ev.end - ev.ts;
    if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - dur);
    else busy += dur;
    self.set(ev.name, (self.get(ev.name) ?? 0) + dur);
    stack.push(ev);
  }
  if (busy < 50_000) continue; // threads busy under 50 ms in all
  console.log(`\n${threadNames.get(key) ?? key}: ${(busy / 1000).toFixed(0)} ms at the top level`);
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${(us / 1000).toFixed(1).padStart(9)} ms  ${name}`);
  if (!/CrRendererMain/.test(threadNames.get(key) ?? '')) continue;
  // Long tasks: Chromium's RunTask events (DevTools' "Task"), with the CPU time the thread got
  // (a task far longer than its CPU time waited for a core) and the events inside by own time.
  // A task is a RunTask (older Chromium) or a ThreadControllerImpl::RunTask (newer, with a RunTask
  // inside it): each counted once, as its outermost event.
  const tasks = list.filter((e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.end - e.ts > longMs * 1000);
  for (const task of tasks.filter((t, i) => !tasks.slice(0, i).some((o) => o.ts <= t.ts && o.end >= t.end))) {
    const own = new Map();
    const nest = [];
    for (const ev of list.filter((e) => e !== task && e.ts >= task.ts && e.end <= task.end)) {
      while (nest.length && nest[nest.length - 1].end <= ev.ts) nest.pop();
      const parent = nest[nest.length - 1];
      if (parent) own.set(parent.name, (own.get(parent.name) ?? 0) - (ev.end - ev.ts));
      own.set(ev.name, (own.get(ev.name) ?? 0) + (ev.end - ev.ts));
      nest.push(ev);
    }
    const parts = [...own].sort((a, b) => b[1] - a[1]).slice(0, 5);
    const cpu = task.cpu === undefined ? '' : `, CPU ${(task.cpu / 1000).toFixed(0)} ms`;
    console.log(`  task of ${((task.end - task.ts) / 1000).toFixed(0)} ms${cpu}: ${parts.map(([n, us]) => `${n} ${(us / 1000).toFixed(1)}`).join(', ')}`);
  }
}
