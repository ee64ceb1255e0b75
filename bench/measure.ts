/** Small measuring helpers shared by the in-process benches. */
import { mulberry32 } from '../scripts/lib/prng.js';

/** Runs fn repeatedly for at least `ms` (after one warm-up call) and returns operations (as counted by fn) per second. */
export function rate(ms: number, fn: () => number): number {
  fn();
  let ops = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    ops += fn();
    t = performance.now();
  }
  return (ops * 1000) / (t - t0);
}

/** `n` reproducible random points, uniform on the sphere, as longitude and latitude arrays (degrees). */
export function randomPoints(n: number, seed: number): { lons: Float64Array; lats: Float64Array } {
  const rand = mulberry32(seed);
  const lons = new Float64Array(n), lats = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    lons[i] = rand() * 360 - 180;
    lats[i] = (Math.asin(2 * rand() - 1) * 180) / Math.PI;
  }
  return { lons, lats };
}

/** Median time of `runs` calls of fn (ms), after one warm-up call (header reads, caches, JIT). */
export async function medianMs(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
