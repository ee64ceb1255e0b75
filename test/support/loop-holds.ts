/**
 * How long work held this process's event loop: a timer runs every `everyMs`, and each wait
 * between two of its runs counts as the smaller of its wall time and the CPU time this thread
 * spent meanwhile. A loop held by our own work waits while the thread runs (both grow together);
 * a loop kept waiting by a busy machine, the thread not even scheduled, does not count (the same
 * reading as the fuzzer's canary, scripts/fuzz/canary.ts).
 *
 * Garbage-collection pauses within a wait are taken out of it: they belong to the heap of the
 * process, which in a test run holds what every earlier suite left (a whole-suite run measured
 * 109-250 ms holds where the same tests alone held the loop 60 ms or less), not to how the work
 * under test is sliced. What the service's memory costs is measured by the memory tests and the
 * load bench, not here.
 */
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

const threadCpuMs = (): number => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

/** Milliseconds of the collections in `pauses` that fall within [start, end]. */
function pausedWithin(pauses: readonly PerformanceEntry[], start: number, end: number): number {
  let ms = 0;
  for (const p of pauses) ms += Math.max(0, Math.min(end, p.startTime + p.duration) - Math.max(start, p.startTime));
  return ms;
}

/**
 * How many times mocha re-runs a loop-hold test that failed (`this.retries(HOLD_RERUNS)`). A reading
 * is one sample of a shared machine: on a slow CI virtual machine one wait of 177 ms (CPU time, GC
 * taken out) showed up in a scan whose other waits were about 20 ms, as it does on this machine alone,
 * and did not come back. Work that is not sliced holds the loop on every run, so a re-run cannot hide it.
 */
export const HOLD_RERUNS = 2;

export async function loopHolds<T>(work: () => Promise<T>, everyMs = 2): Promise<{ result: T; tookMs: number; longestMs: number }> {
  const pauses: PerformanceEntry[] = [];
  const collections = new PerformanceObserver((list) => pauses.push(...list.getEntries()));
  collections.observe({ entryTypes: ['gc'] });
  const waits: { start: number; end: number; cpuMs: number }[] = [];
  let wall = performance.now();
  let cpu = threadCpuMs();
  const timer = setInterval(() => {
    const [w, c] = [performance.now(), threadCpuMs()];
    waits.push({ start: wall, end: w, cpuMs: c - cpu });
    [wall, cpu] = [w, c];
  }, everyMs);
  try {
    const start = performance.now();
    const result = await work();
    const tookMs = performance.now() - start;
    // The timer sees a wait only when it next runs: give it that turn before stopping it.
    await new Promise((r) => setTimeout(r, everyMs + 3));
    clearInterval(timer);
    // Collections are reported after they end: one more turn, and those still queued.
    await nextTurn();
    pauses.push(...collections.takeRecords());
    let longestMs = 0;
    for (const w of waits) {
      const gc = pausedWithin(pauses, w.start, w.end);
      longestMs = Math.max(longestMs, Math.min(w.end - w.start - gc, w.cpuMs - gc));
    }
    return { result, tookMs, longestMs };
  } finally {
    clearInterval(timer);
    collections.disconnect();
  }
}
