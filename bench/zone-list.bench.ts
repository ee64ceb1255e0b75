/**
 * Zone lists over HTTP (issue 16's rows): a page of about 10,000 zones as JSON and GeoJSON, requests per
 * second, main-thread CPU per request, RSS at the peak and after; the level-8 request of issue 9. The
 * reference, measured in the same run, is what the route did per request before counting replaced
 * listing: the level-by-level listing of the whole box (DGGAL's descent) and a description of every zone
 * for the areas. `npm run bench zone-list`.
 */
import { startTestServer } from '../test/support/test-server.js';
import { descentZonesInBBox } from '../test/unit/dggrs/bbox-descent-reference.js';
import { createIvea7h } from '../src/domain/dggrs/ivea7h.js';
import { iveaProjection } from '../src/domain/dggrs/ivea-projection.js';
import type { BBox } from '../src/domain/dggrs/dggrs.js';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

const BOX: BBox = [0, 0, 19, 19];
const LEVEL = 6;
const SECONDS = 5;
const MiB = 2 ** 20;

/** A full garbage collection, so "after" figures show what is kept, not what is not collected yet. */
const gc: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

const cpuMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

export async function run(): Promise<void> {
  const s = await startTestServer();
  try {
    gc();
    const idle = process.memoryUsage().rss;
    const list = `/dggs/IVEA7H/zones?zone-level=${LEVEL}&bbox=${BOX.join(',')}`;
    const first = await s.get(list);
    const total = first.headers.get('ogc-zones-total');
    const zones = ((await first.json()) as { zones: string[] }).zones.length;
    console.log(`IVEA7H level ${LEVEL} bbox ${BOX.join(',')}: ${total} zones, pages of ${zones}; Node ${process.version}; load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);

    for (const [label, query] of [
      ['JSON', ''],
      ['GeoJSON refined-geometry=false', '&f=geojson&refined-geometry=false'],
      ['GeoJSON refined-geometry=true', '&f=geojson'],
    ] as const) {
      await (await s.get(list + query)).arrayBuffer();
      let peak = process.memoryUsage().rss;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      const c0 = cpuMs();
      const t = performance.now();
      let n = 0, bytes = 0;
      while (performance.now() - t < SECONDS * 1000) {
        bytes = (await (await s.get(list + query)).arrayBuffer()).byteLength;
        n++;
      }
      const wall = performance.now() - t;
      const cpu = cpuMs() - c0;
      clearInterval(sampler);
      await new Promise((r) => setTimeout(r, 2000));
      gc();
      const after = process.memoryUsage();
      console.log(`${label.padEnd(32)} ${(n / (wall / 1000)).toFixed(1).padStart(6)} req/s  ${(cpu / n).toFixed(0).padStart(5)} ms CPU/req  ${(bytes / MiB).toFixed(1)} MiB/resp  RSS idle ${(idle / MiB).toFixed(0)} MiB, peak +${((peak - idle) / MiB).toFixed(0)}, 2 s after +${((after.rss - idle) / MiB).toFixed(0)} MiB (JS heap ${(after.heapUsed / MiB).toFixed(0)} MiB)`);
    }

    // Reference: the former route's own work for one request (whole listing, then every zone described).
    const grid = createIvea7h();
    let t0 = cpuMs();
    const all = descentZonesInBBox(iveaProjection, LEVEL, BOX);
    const listMs = cpuMs() - t0;
    t0 = cpuMs();
    let area = 0;
    for (const z of all.slice(0, zones)) area += grid.describeZone(z).areaMetersSquare;
    const describeMs = cpuMs() - t0;
    console.log(`reference, the former route's work per request: listing all ${all.length} zones ${listMs.toFixed(0)} ms CPU + describing ${zones} for their area ${describeMs.toFixed(0)} ms CPU (${area.toExponential(3)} m²): at most ${(1000 / (listMs + describeMs)).toFixed(2)} req/s`);

    const heavy = '/dggs/IVEA7H/zones?zone-level=8&bbox=0,0,25,25&limit=1';
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const r = await s.get(heavy);
      await r.arrayBuffer();
      times.push(performance.now() - t);
      if (i === 0) console.log(`${heavy}: ${r.headers.get('ogc-zones-total')} zones`);
    }
    times.sort((a, b) => a - b);
    console.log(`  answered in ${times.map((x) => x.toFixed(0)).join(', ')} ms (median ${times[1]!.toFixed(0)})`);
  } finally {
    await s.close();
  }
}
