/**
 * The cost of each zone-data encoding beside DGGS-JSON's, in the same run: the raster zone data
 * of demo-elevation for a level-4 IVEA7H zone over the Alps (config/default.json, a booted
 * server, throwaway SQLite). The zone data is computed once through the app's ZoneDataService, so
 * the raster read is not measured; then the SAME ZoneData is encoded in every format through
 * `encodeZoneData` (the call the routes and jobs make), timed (median of RUNS) and sized. The
 * longest event-loop stall during the encoding is taken in separate runs with a 1 ms interval
 * probe (the probe's own callbacks would otherwise add to the timing): the service promises the
 * loop never waits more than ~200 ms. Two requests: one depth (every format), and several
 * depths for the formats whose `check` accepts them (PNG and JPEG-XL write one depth). For the
 * one-depth request the end-to-end HTTP time per format (`f=`) is measured too, the server's
 * decoded-tile cache warm. Ratios are format / DGGS-JSON.
 * Run: npm run bench encodings
 */
import { TOKENS } from '../src/app/tokens.js';
import type { ZoneDataService } from '../src/app/zone-data/zone-data-service.js';
import type { GridRegistry } from '../src/ports/grid-registry.js';
import type { ZoneData } from '../src/domain/zone-data.js';
import { F_VALUE } from '../src/formats/registry.js';
import { ZONE_DATA_ENCODINGS, encodeZoneData } from '../src/formats/zone-data/encodings.js';
import type { ZoneDataContext, ZoneDataEncoding } from '../src/formats/zone-data/encoding.js';
import { reportRow } from './summary-table.js';
import { medianMs } from './measure.js';
import { withDemoApp } from './demo-app.js';

const COLLECTION = 'demo-elevation';
const GRID = 'IVEA7H';
/** Level-4 zone around 10.5E 46N, well inside the raster (as bench/zone-data.bench.ts). */
const LON = 10.5, LAT = 46, LEVEL = 4;
/** One depth: 7^4, about 2,400 sub-zones. Several: depths 2-4, about 2,800 sub-zones in all. */
const ONE_DEPTH = '4';
const SEVERAL_DEPTHS = '2-4';
/** Encodings called directly (a few ms each: many runs steady the median). */
const RUNS = 31;
/** HTTP requests per format (each reads the raster window again, 50-150 ms). */
const HTTP_RUNS = 15;
/** Calls of every encoding before any is timed. */
const WARM_UP = 5;
/** Runs (after the timed ones) watched by the loop probe. */
const PROBE_RUNS = 3;
/** The service's promise: the loop never waits longer than about this. */
const LOOP_BOUND_MS = 200;

/**
 * The kinds of encoding, each with what we expect of it against DGGS-JSON (written once, from what
 * each kind does, not a pass/fail bound): formats that write the values as arrays or columns cost
 * a small multiple of DGGS-JSON at most; the geometry formats write every sub-zone's outline; the
 * rasterized ones draw every sub-zone onto a pixel grid, then compress it.
 */
const KINDS = [
  { name: 'values as arrays or columns', formats: ['json', 'dggs-ubjson', 'ubjson', 'parquet', 'netcdf', 'coveragejson', 'zarr'], expected: 'expected within a small multiple (<= ~5x) of DGGS-JSON; no pass/fail' },
  { name: 'with outlines', formats: ['geojson', 'geoparquet'], expected: 'expected ~5-15x: every outline written; no pass/fail' },
  { name: 'rasterized', formats: ['geotiff', 'png', 'jpegxl'], expected: 'expected ~5-15x: every pixel drawn and compressed; no pass/fail' },
];

/** One format for one request: the encoding called directly, and the GET that asks it (one-depth request). */
interface Case {
  encoding: ZoneDataEncoding;
  encode: () => Promise<Buffer>;
  get?: () => Promise<void>;
}

interface Reading {
  format: string;
  ms: number;
  bytes: number;
  stallMs: number;
  httpMs?: number;
  httpStallMs?: number;
}

/** The longest the event loop waited while `work` ran (a 1 ms interval probe; includes the probe's own 1 ms). */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now(), longest = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  try {
    for (let i = 0; i < PROBE_RUNS; i++) await work();
    // The stretch from the last tick to the end of the work counts too.
    longest = Math.max(longest, performance.now() - last);
  } finally {
    clearInterval(probe);
  }
  return longest;
}

const fmt = (n: number, d = 1) => n.toFixed(d);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function printTable(title: string, rows: Reading[], http: boolean): void {
  const base = rows.find((r) => r.format === 'dggs-json')!;
  console.log(`\n${title}`);
  const head = ['format', 'encode ms', 'x', 'bytes', 'x', 'loop max ms', ...(http ? ['http ms', 'x', 'http loop max ms'] : [])];
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map(() => '---').join('|')}|`);
  for (const r of rows) {
    const cells = [r.format, fmt(r.ms, 2), `${fmt(r.ms / base.ms, 2)}x`, String(r.bytes), `${fmt(r.bytes / base.bytes, 2)}x`, fmt(r.stallMs)];
    if (http) cells.push(r.httpMs !== undefined ? fmt(r.httpMs, 2) : '-', r.httpMs !== undefined ? `${fmt(r.httpMs / base.httpMs!, 2)}x` : '-', r.httpStallMs !== undefined ? fmt(r.httpStallMs) : '-');
    console.log(`| ${cells.join(' | ')} |`);
  }
}

export async function run(): Promise<void> {
  await withDemoApp(async (app, origin, config) => {
    const grid = app.container.get<GridRegistry>(TOKENS.GridRegistry).require(GRID);
    const service = app.container.get<ZoneDataService>(TOKENS.ZoneDataService);
    const zone = grid.zoneFromPoint(LON, LAT, LEVEL);
    const encodings = ZONE_DATA_ENCODINGS.filter((e): e is ZoneDataEncoding => 'encode' in e);
    const limits = { maxRasterCells: config.limits.maxRasterCells };
    console.log(`${COLLECTION}, zone ${zone} (level ${LEVEL}) of ${GRID}; the same ZoneData encoded in each format, median of ${RUNS} runs (HTTP: ${HTTP_RUNS}); loop max: longest event-loop wait over ${PROBE_RUNS} more runs (1 ms probe)`);

    // Every case first, then one warm-up pass over all of them: measured first and cold, DGGS-JSON
    // (the reference) would pay the JIT's and the route's warm-up alone (7.7 ms against 2.9 ms for
    // more sub-zones in one run before this pass).
    const requests = [];
    for (const zoneDepth of [ONE_DEPTH, SEVERAL_DEPTHS]) {
      const single = zoneDepth === ONE_DEPTH;
      const data: ZoneData = await service.collectionZoneData(COLLECTION, { dggrsId: GRID, zoneId: zone, zoneDepth });
      const columns = Object.keys(data.depths[0]!.values).length;
      const plan = { grid, zoneId: zone, depths: data.depths.map((d) => d.depth), columns, limits };
      const cases: Case[] = [];
      for (const encoding of encodings) {
        const profile = encoding.profiles?.[0];
        // What the route would refuse before any value is computed (PNG or JPEG-XL with several depths).
        try {
          encoding.check?.({ ...plan, profile });
        } catch (e) {
          if (!single) continue;
          throw e;
        }
        const ctx: ZoneDataContext = {
          grid,
          links: [{ href: `http://127.0.0.1/collections/${COLLECTION}/dggs/${GRID}/zones/${zone}/data`, rel: 'self', type: 'application/json' }],
          refined: false,
          ...(profile !== undefined ? { profile } : {}),
        };
        const url = `${origin}/collections/${COLLECTION}/dggs/${GRID}/zones/${encodeURIComponent(zone)}/data?zone-depth=${zoneDepth}&f=${encodeURIComponent(F_VALUE[encoding.format])}`;
        // Uncompressed, as the body size above: the HTTP layer would otherwise gzip the text formats.
        const get = async () => {
          const res = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
          if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        };
        cases.push({ encoding, encode: () => encodeZoneData(encoding, data, ctx), ...(single ? { get } : {}) });
      }
      requests.push({ zoneDepth, data, columns, cases });
    }
    for (const { cases } of requests) {
      for (const c of cases) {
        for (let i = 0; i < WARM_UP; i++) await c.encode();
        if (c.get) for (let i = 0; i < 2; i++) await c.get();
      }
    }

    const results: Record<string, Reading[]> = {};
    for (const { zoneDepth, data, columns, cases } of requests) {
      const rows: Reading[] = [];
      for (const c of cases) {
        let bytes = 0;
        const ms = await medianMs(RUNS, async () => {
          bytes = (await c.encode()).length;
        });
        const stallMs = await longestStall(c.encode);
        const reading: Reading = { format: c.encoding.format, ms, bytes, stallMs };
        if (c.get) {
          reading.httpMs = await medianMs(HTTP_RUNS, c.get);
          reading.httpStallMs = await longestStall(c.get);
        }
        rows.push(reading);
      }
      results[zoneDepth] = rows;
      const subZones = data.depths.reduce((n, d) => n + d.zones.length, 0);
      const single = zoneDepth === ONE_DEPTH;
      printTable(`zone-depth=${zoneDepth}: ${subZones} sub-zones in ${data.depths.length} depth(s), ${columns} field(s)${single ? '; http: GET f=<format>, uncompressed, tile cache warm' : `; formats refusing several depths left out`}`, rows, single);
    }

    // Summary rows, one-depth request: the slowest of each kind of encoding beside DGGS-JSON, then HTTP and the loop.
    const one = results[ONE_DEPTH]!;
    const base = one.find((r) => r.format === 'dggs-json')!;
    const subZones = grid.subZoneCount(zone, Number(ONE_DEPTH));
    for (const kind of KINDS) {
      const members = one.filter((r) => kind.formats.includes(r.format));
      const slowest = members.reduce((a, b) => (b.ms > a.ms ? b : a));
      reportRow({
        work: `Zone data of ${COLLECTION} (${GRID} ${zone}, depth ${ONE_DEPTH}, ${subZones} sub-zones), the same ZoneData encoded: ${kind.name} (${members.map((m) => m.format).join(', ')}), slowest vs DGGS-JSON`,
        threads: 1,
        ours: `${slowest.format} ${fmt(slowest.ms, 2)} ms, ${kb(slowest.bytes)}`,
        reference: `DGGS-JSON ${fmt(base.ms, 2)} ms, ${kb(base.bytes)}`,
        ratio: `${fmt(slowest.ms / base.ms, 2)}x`,
        target: kind.expected,
      });
    }
    const others = one.filter((r) => r !== base);
    const httpSlowest = others.reduce((a, b) => (b.httpMs! > a.httpMs! ? b : a));
    reportRow({
      work: `The same over HTTP (read + encode + send, f=<format>), slowest format`,
      threads: 1,
      ours: `${httpSlowest.format} ${fmt(httpSlowest.httpMs!, 2)} ms`,
      reference: `DGGS-JSON ${fmt(base.httpMs!, 2)} ms`,
      ratio: `${fmt(httpSlowest.httpMs! / base.httpMs!, 2)}x`,
      target: 'the encoding cost above on top of the same read; expectation, no pass/fail',
    });
    const all = Object.values(results).flat();
    const worst = all.reduce((a, b) => (Math.max(b.stallMs, b.httpStallMs ?? 0) > Math.max(a.stallMs, a.httpStallMs ?? 0) ? b : a));
    const worstMs = Math.max(worst.stallMs, worst.httpStallMs ?? 0);
    reportRow({
      work: 'Longest event-loop wait while encoding (any format, both requests, direct and over HTTP)',
      threads: 1,
      ours: `${fmt(worstMs)} ms (${worst.format})`,
      reference: `DGGS-JSON ${fmt(Math.max(base.stallMs, base.httpStallMs ?? 0))} ms`,
      ratio: `${fmt(worstMs / Math.max(base.stallMs, base.httpStallMs ?? 0), 2)}x`,
      target: `<= ~${LOOP_BOUND_MS} ms: ${worstMs <= LOOP_BOUND_MS ? 'met' : '**not met**'}`,
    });
  });
}
