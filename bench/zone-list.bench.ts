/**
 * Zone lists over HTTP: a page of about 10,000 zones as JSON and GeoJSON, requests per
 * second on 1 and 2 threads (1 and 2 service processes, see http-throughput.ts), and each service's RSS
 * before, at the peak and 2 s after. The reference, measured in the same run, is the former route's work
 * for one request, in this process's CPU time: the level-by-level listing of the whole box (DGGAL's
 * descent) plus, for JSON, a description of every zone for the areas and, for GeoJSON, the former
 * encoding (every outline through the general clipping steps, features built as objects and
 * stringified). Then the level-8 request that once held the event loop for 20 to 46 s. `npm run bench zone-list`.
 */
import { descentZonesInBBox } from '../test/unit/dggrs/bbox-descent-reference.js';
import { createIvea7h } from '../src/domain/dggrs/grids/ivea-grids.js';
import { iveaProjection } from '../src/domain/dggrs/projections/ivea-projection.js';
import type { BBox } from '../src/domain/dggrs/dggrs.js';
import { outlineToRingsByClipping } from '../src/domain/geometry/rfc7946.js';
import { loadavg } from 'node:os';
import { reportRow } from './summary-table.js';
import { MiB, startServices, throughput } from './http-throughput.js';

const BOX: BBox = [0, 0, 19, 19];
const LEVEL = 6;
const SECONDS = 8;
/** Requests in flight per service process. */
const CONNECTIONS = 2;

const cpuMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

/** The former route's work for one request, ms of CPU: [JSON, GeoJSON refined-geometry=false]. */
function formerWork(pageSize: number): { listMs: number; describeMs: number; encodeMs: number; zones: number } {
  const grid = createIvea7h();
  let t0 = cpuMs();
  const all = descentZonesInBBox(iveaProjection, LEVEL, BOX);
  const listMs = cpuMs() - t0;
  const page = all.slice(0, pageSize);
  t0 = cpuMs();
  let area = 0;
  for (const z of page) area += grid.describeZone(z).areaMetersSquare;
  const describeMs = cpuMs() - t0;
  t0 = cpuMs();
  const features = page.map((z) => {
    const rings = outlineToRingsByClipping(grid.zoneOutline(z, false));
    const geometry = rings.length === 1 ? { type: 'Polygon', coordinates: [rings[0]] } : { type: 'MultiPolygon', coordinates: rings.map((r) => [r]) };
    return { type: 'Feature', id: z, geometry, properties: { zoneID: z, level: grid.zoneLevel(z) } };
  });
  const bytes = JSON.stringify({ type: 'FeatureCollection', features, numberReturned: page.length }).length;
  const encodeMs = cpuMs() - t0;
  if (area <= 0 || bytes <= 0) throw new Error('reference did no work');
  return { listMs, describeMs, encodeMs, zones: all.length };
}

export async function run(): Promise<void> {
  const list = `/dggs/IVEA7H/zones?zone-level=${LEVEL}&bbox=${BOX.join(',')}`;
  const rows = [
    { label: 'JSON', query: '', work: 'Zone list of ~10,000 zones, JSON', target: '>= 30 req/s, RSS back within 50 MB of idle' },
    { label: 'GeoJSON refined-geometry=false', query: '&f=geojson&refined-geometry=false', work: 'Zone list, GeoJSON, refined-geometry=false', target: '>= 10 req/s' },
    { label: 'GeoJSON refined-geometry=true', query: '&f=geojson', work: '', target: '' },
  ];
  let reference: ReturnType<typeof formerWork> | undefined;
  for (const threads of [1, 2]) {
    const services = await startServices(threads);
    try {
      const idle = services.map((s) => s.rss() ?? 0);
      const first = await fetch(services[0]!.base + list);
      const total = Number(first.headers.get('ogc-zones-total'));
      const pageSize = ((await first.json()) as { zones: string[] }).zones.length;
      if (!reference) {
        reference = formerWork(pageSize);
        console.log(`IVEA7H level ${LEVEL} bbox ${BOX.join(',')}: ${total} zones, pages of ${pageSize}; Node ${process.version}; load ${loadavg()[0]!.toFixed(1)}`);
        console.log(`reference, the former route's work per request (this process's CPU): listing all ${reference.zones} zones ${reference.listMs.toFixed(0)} ms; JSON: + describing ${pageSize} zones for their area ${reference.describeMs.toFixed(0)} ms; GeoJSON: + the former encoding ${reference.encodeMs.toFixed(0)} ms`);
      }
      console.log(`\n-- ${threads} thread${threads > 1 ? 's' : ''} (${threads} service process${threads > 1 ? 'es' : ''}, ${CONNECTIONS} connections each, ${SECONDS} s) --`);
      for (const r of rows) {
        const t = await throughput(services, [list + r.query], { seconds: SECONDS, connections: CONNECTIONS });
        const rss = t.rss.map((x, i) => `idle ${(idle[i]! / MiB).toFixed(0)}, peak +${((x.peak - idle[i]!) / MiB).toFixed(0)}, 2 s after ${signed((x.after - idle[i]!) / MiB)}`).join('; ');
        console.log(`${r.label.padEnd(32)} ${t.reqPerSec.toFixed(1).padStart(6)} req/s  latency ${t.latencyMs.toFixed(0).padStart(5)} ms  CPU ${t.cpuMsPerRequest.toFixed(1).padStart(6)} ms/req (${(1000 / t.cpuMsPerRequest).toFixed(1)} req/s per core)  errors ${t.errors + t.non2xx}  RSS MiB ${rss}`);
        if (!r.work) continue;
        const refMs = reference.listMs + (r.label === 'JSON' ? reference.describeMs : reference.encodeMs);
        const refRate = threads * (1000 / refMs);
        const after = Math.max(...t.rss.map((x, i) => x.after - idle[i]!));
        reportRow({
          work: r.work,
          threads,
          ours: `${t.reqPerSec.toFixed(1)} req/s (CPU ${t.cpuMsPerRequest.toFixed(0)} ms/req: ${(threads * 1000 / t.cpuMsPerRequest).toFixed(1)} req/s on ${threads} core${threads > 1 ? 's' : ''})${r.label === 'JSON' ? `, RSS 2 s after ${signed(after / MiB)} MiB against idle` : ''}`,
          reference: `former route's work: ${refMs.toFixed(0)} ms CPU/req, at most ${refRate.toFixed(2)} req/s`,
          ratio: `${(refMs / t.cpuMsPerRequest).toFixed(1)}x (CPU/req)`,
          target: r.target,
        });
      }
      if (threads === 1) {
        const heavy = '/dggs/IVEA7H/zones?zone-level=8&bbox=0,0,25,25&limit=1';
        const times: number[] = [];
        for (let i = 0; i < 3; i++) {
          const t = performance.now();
          const res = await fetch(services[0]!.base + heavy);
          await res.arrayBuffer();
          times.push(performance.now() - t);
          if (i === 0) console.log(`${heavy}: ${res.headers.get('ogc-zones-total')} zones`);
        }
        times.sort((a, b) => a - b);
        console.log(`  answered in ${times.map((x) => x.toFixed(0)).join(', ')} ms (median ${times[1]!.toFixed(0)})`);
      }
    } finally {
      for (const s of services) await s.stop();
    }
  }
}

/** A difference with its sign, in whole units. */
const signed = (v: number): string => `${v >= 0 ? '+' : '-'}${Math.abs(v).toFixed(0)}`;
