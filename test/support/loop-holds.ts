/**
 * How long work held this process's event loop: a timer runs every `everyMs`, and each wait
 * between two of its runs counts as the smaller of its wall time and the CPU time this thread
 * spent meanwhile. A loop held by our own work waits while the thread runs (both grow together);
 * a loop kept waiting by a busy machine, the thread not even scheduled, does not count (the same
 * reading as the fuzzer's canary, scripts/fuzz/canary.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection, so that a measurement starts without the garbage earlier suites of
 * this process left: a major collection of it would otherwise land inside the measured work and
 * be counted as a hold of the code under test (seen: 220-250 ms in the whole suite, where the
 * same test alone holds the loop about 60 ms).
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const threadCpuMs = (): number => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

export async function loopHolds<T>(work: () => Promise<T>, everyMs = 2): Promise<{ result: T; tookMs: number; longestMs: number }> {
  collectGarbage();
  let wall = performance.now();
  let cpu = threadCpuMs();
  let longestMs = 0;
  const timer = setInterval(() => {
    const [w, c] = [performance.now(), threadCpuMs()];
    longestMs = Math.max(longestMs, Math.min(w - wall, c - cpu));
    [wall, cpu] = [w, c];
  }, everyMs);
  try {
    const start = performance.now();
    const result = await work();
    const tookMs = performance.now() - start;
    // The timer sees a wait only when it next runs: give it that turn before stopping it.
    await new Promise((r) => setTimeout(r, everyMs + 3));
    return { result, tookMs, longestMs };
  } finally {
    clearInterval(timer);
  }
}
