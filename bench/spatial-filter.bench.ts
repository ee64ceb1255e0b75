/**
 * Issue 20 F3: a raster zone list filtered by S_INTERSECTS with a zig-zag polygon of 50 to 700
 * vertices over demo-elevation (5-16°E, 44-48°N), at levels 6 and 7: each request's wall time and
 * the service's main-thread CPU. The reference, in the same run, is the former method (the
 * exhaustive relation, O(n^2) a zone) on the first zones of the same list, in this process's CPU,
 * scaled to the whole list. `npm run bench spatial-filter`.
 */
import { loadavg } from 'node:os';
import { startServerProcess } from '../scripts/fuzz/server-process.js';
import { createIvea7h } from '../src/domain/dggrs/grids/ivea-grids.js';
import type { Geometry, Position } from '../src/domain/geometry/geojson.js';
import { exhaustiveRelation } from '../src/domain/geometry/relate.js';
import { outlineToGeoJson } from '../src/domain/geometry/rfc7946.js';

const VERTICES = [50, 100, 200, 700];
const LEVELS = [6, 7];
/** Zones the former method is timed on, per case. */
const SAMPLE = 30;

/** A base edge along 44°N, then n - 3 teeth between 45°N and 48°N back from 16°E to 5°E. */
function zigzag(n: number): Position[] {
  const k = n - 3;
  const ring: Position[] = [[5, 44], [16, 44]];
  for (let i = 0; i < k; i++) ring.push([Math.round((16 - (11 * i) / (k - 1)) * 1000) / 1000, i % 2 === 0 ? 48 : 45]);
  return [...ring, ring[0]!];
}

const cpuMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

export async function run(): Promise<void> {
  const grid = createIvea7h();
  const srv = await startServerProcess();
  try {
    console.log(`IVEA7H, demo-elevation; Node ${process.version}; load ${loadavg()[0]!.toFixed(1)}`);
    for (const level of LEVELS) {
      const list = `/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=${level}&limit=10000`;
      const zones = ((await (await fetch(srv.base + list)).json()) as { zones: string[] }).zones;
      for (const n of VERTICES) {
        const ring = zigzag(n);
        const filter = `S_INTERSECTS(geometry, POLYGON((${ring.map(([x, y]) => `${x} ${y}`).join(',')})))`;
        const cpu0 = srv.mainThreadCpuMs()!;
        const t0 = performance.now();
        const res = await fetch(`${srv.base}${list}&filter=${encodeURIComponent(filter)}`);
        const kept = res.status === 200 ? ((await res.json()) as { zones: string[] }).zones.length : `status ${res.status}`;
        const wall = performance.now() - t0;
        await new Promise((r) => setTimeout(r, 50));
        const cpu = srv.mainThreadCpuMs()! - cpu0;
        const literal: Geometry = { type: 'Polygon', coordinates: [ring] };
        const sample = zones.slice(0, SAMPLE);
        const r0 = cpuMs();
        for (const z of sample) exhaustiveRelation('intersects', outlineToGeoJson(grid.zoneOutline(z, false)), literal);
        const former = ((cpuMs() - r0) / sample.length) * zones.length;
        console.log(
          `level ${level}, ${String(n).padStart(3)} vertices, ${zones.length} zones: ${(wall / 1000).toFixed(2).padStart(6)} s wall, service CPU ${(cpu / 1000).toFixed(2).padStart(6)} s, kept ${kept}; former method ~${(former / 1000).toFixed(1)} s of CPU (${SAMPLE} zones timed)`,
        );
      }
    }
  } finally {
    await srv.stop();
  }
}
