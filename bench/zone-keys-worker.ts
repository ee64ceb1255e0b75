/**
 * Worker of zone-keys.bench.ts: numeric IVEA7H zone keys of its share of the points, over and over
 * for the time given; posts back how many points it keyed and in how many ms.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { i7hZoneKeysFromPoints } from '../src/domain/dggrs/lattices/7h/i7h-zone-keys.js';
import { iveaProjection } from '../src/domain/dggrs/projections/ivea-projection.js';

const { lons, lats, level, ms } = workerData as { lons: Float64Array; lats: Float64Array; level: number; ms: number };
const out = new Float64Array(lons.length);
i7hZoneKeysFromPoints(iveaProjection, lons, lats, level, out); // warm-up
let points = 0;
const t0 = performance.now();
let t = t0;
while (t - t0 < ms) {
  i7hZoneKeysFromPoints(iveaProjection, lons, lats, level, out);
  points += lons.length;
  t = performance.now();
}
parentPort!.postMessage({ points, ms: t - t0 });
