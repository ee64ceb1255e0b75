/**
 * Lake zone data at scale: a 10-million-row GeoParquet lake (points with a bbox covering, two
 * numeric fields, 10 files), zone data of one zone beside a bare DuckDB scan that reads the same
 * rows (the prefilter box) and aggregates the same columns in SQL, on 1 and 2 threads (DuckDB's
 * threads for both, and as many zone-binning workers).
 *
 * Rows: zone data on the fly (IVEA7H and H3, both by numeric keys and clearances), and from stored zone-key
 * columns (the same lake after `npm run ingest`, IVEA7H). Each figure is the median of three
 * runs, taken in turn with the bare scan's so both see the same machine; CPU is the process's
 * (main thread, workers and DuckDB's threads). The stored-key answer is checked against the
 * on-the-fly one; once per thread count, the IVEA7H request also runs binned on the event loop's
 * thread and row by row (the path before the fast ones), for scale.
 *
 * The lakes are written once into the temp directory and reused (LAKE_BENCH_ROWS sets the row
 * count, LAKE_BENCH_DIR the directory).
 *
 * Run: npm run bench lake
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbLake } from '../src/adapters/lake/duckdb-lake.js';
import { LakeZoneDataSource } from '../src/app/zone-data/lake-zone-data-source.js';
import { ZoneBinningPool } from '../src/adapters/lake/zone-binning-pool.js';
import { writeZoneColumns } from '../src/adapters/lake/zone-columns-writer.js';
import { configSchema } from '../src/app/config/config-schema.js';
import { GRID_FACTORIES } from '../src/adapters/grids/catalog.js';
import { subZonesBox } from '../src/domain/aggregation/sub-zones-box.js';
import { runToEnd, type Dggrs } from '../src/domain/dggrs/dggrs.js';
import type { Collection } from '../src/domain/collection.js';
import type { ZoneData } from '../src/domain/zone-data.js';
import type { LakeReader } from '../src/ports/lake-reader.js';
import { reportRow } from './summary-table.js';

const FILES = 10;
const RUNS = 3;

async function writeLake(dir: string, rows: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const geo = JSON.stringify({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: ['Point'], covering: { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } } } } });
  const per = Math.ceil(rows / FILES);
  for (let f = 0; f < FILES; f++) {
    const from = f * per, to = Math.min(rows, from + per);
    // Points over lon 0..20, lat 40..60, in spatially sorted runs so row groups are compact.
    await c.run(`COPY (
        WITH p AS (SELECT i, 0 + ((i * 2654435761) % 1000003) / 1000003.0 * 20 AS x, 40 + ((i * 40503) % 999983) / 999983.0 * 20 AS y FROM range(${from}, ${to}) t(i))
        SELECT round(15 - 0.5 * (y - 40) + (i % 97) / 10.0, 1) AS temperature, round(50 + (i % 501) / 10.0, 1) AS humidity,
          st_aswkb(CAST('POINT (' || x || ' ' || y || ')' AS GEOMETRY)) AS geometry, {'xmin': x, 'ymin': y, 'xmax': x, 'ymax': y} AS bbox
        FROM p ORDER BY floor(y * 2), x)
      TO '${path.join(dir, `part-${String(f).padStart(2, '0')}.parquet`)}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 65536, KV_METADATA {geo: '${geo}'})`);
  }
  c.closeSync();
  db.closeSync();
}

interface Case {
  label: string;
  grid: Dggrs;
  zoneId: string;
  depth: number;
  collection: Collection;
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function measure<T>(fn: () => Promise<T>): Promise<{ ms: number; cpu: number; out: T }> {
  const c0 = cpuMs(), t0 = performance.now();
  const out = await fn();
  return { ms: performance.now() - t0, cpu: cpuMs() - c0, out };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

export async function run(): Promise<void> {
  const rows = Number(process.env.LAKE_BENCH_ROWS ?? 10_000_000);
  const root = process.env.LAKE_BENCH_DIR ?? path.join(tmpdir(), `dggs-lake-bench-${rows}`);
  const ivea = GRID_FACTORIES.IVEA7H!(), h3 = GRID_FACTORIES.H3!();
  const level = 2, depth = 3;
  const iveaZone = ivea.zoneFromPoint(10, 50, level);
  const plain: Collection = { id: 'bench', title: 'bench', backing: { kind: 'parquet-lake', geometryColumn: 'geometry' } };
  const stored: Collection = { id: 'bench-zones', title: 'bench with zone keys', backing: { kind: 'parquet-lake', geometryColumn: 'geometry' } };

  const ready = path.join(root, '.complete');
  if (!existsSync(ready)) {
    rmSync(root, { recursive: true, force: true });
    const t0 = performance.now();
    await writeLake(path.join(root, 'bench', 'data'), rows);
    console.log(`generated ${rows.toLocaleString('en')} rows in ${FILES} files in ${((performance.now() - t0) / 1000).toFixed(1)} s (${root})`);
    cpSync(path.join(root, 'bench'), path.join(root, 'bench-zones'), { recursive: true });
    const t1 = performance.now();
    await writeZoneColumns({ root, collectionId: 'bench-zones', geometryColumn: 'geometry', grid: ivea, levels: [level + depth] });
    console.log(`ingest (IVEA7H level ${level + depth}) in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    writeFileSync(ready, '');
  } else console.log(`reusing the ${rows.toLocaleString('en')}-row lakes in ${root}`);

  const cases: Case[] = [
    { label: `IVEA7H ${iveaZone} (level ${level}), depth ${depth}, on the fly`, grid: ivea, zoneId: iveaZone, depth, collection: plain },
    { label: `IVEA7H ${iveaZone} (level ${level}), depth ${depth}, stored zone keys`, grid: ivea, zoneId: iveaZone, depth, collection: stored },
    { label: `H3 ${h3.zoneFromPoint(10, 50, 1)} (level 1), depth 3, on the fly`, grid: h3, zoneId: h3.zoneFromPoint(10, 50, 1), depth: 3, collection: plain },
  ];
  const limits = configSchema.parse({}).limits;
  const gridsModule = new URL('../src/adapters/grids/catalog.js', import.meta.url).href;

  for (const threads of [1, 2]) {
    console.log(`\n-- ${threads} thread${threads > 1 ? 's' : ''} (DuckDB threads=${threads}; zone-binning workers: ${threads}) --`);
    const lake = new DuckDbLake(root, undefined, { threads });
    const pool = new ZoneBinningPool(threads, gridsModule);
    const source = new LakeZoneDataSource(lake, limits, pool);
    const db = await DuckDBInstance.create(':memory:', { threads: String(threads) });
    const c = await db.connect();
    await c.run('SET enable_geoparquet_conversion = false'); // WKB BLOB, as the lake reads it
    const answers = new Map<string, ZoneData>();
    for (const k of cases) {
      await lake.describe(k.collection); // the footer cache, warm as in a running service
      const [w, s, e, n] = runToEnd(subZonesBox(k.grid, k.zoneId, [k.depth]));
      const glob = path.join(root, k.collection.id, 'data', '*.parquet');
      const bare = async () =>
        (
          await c.runAndReadAll(
            `SELECT count(*) AS n, sum(octet_length(geometry)) AS bytes, min(temperature), max(temperature), avg(temperature), stddev_pop(temperature), min(humidity), max(humidity), avg(humidity), stddev_pop(humidity)
             FROM read_parquet('${glob}') WHERE bbox.xmax >= ${w} AND bbox.xmin <= ${e} AND bbox.ymax >= ${s} AND bbox.ymin <= ${n}`,
          )
        ).getRowObjectsJS()[0]!;
      const zoneData = () => source.zoneData(k.collection, { grid: k.grid, zoneId: k.zoneId, depths: [k.depth], fields: ['temperature', 'humidity'], options: { stats: ['count', 'mean', 'min', 'max', 'stdDev'] } });
      await bare(); // the OS cache, warm for both
      await zoneData();
      const b: { ms: number; cpu: number }[] = [], z: { ms: number; cpu: number }[] = [];
      let read = 0, binned = 0;
      for (let i = 0; i < RUNS; i++) {
        const m = await measure(bare);
        read = Number(m.out.n);
        b.push(m);
        const zd = await measure(zoneData);
        z.push(zd);
        answers.set(k.label, zd.out);
        binned = (zd.out.depths[0]!.values.temperature_count as number[]).reduce((a, x) => a + x, 0);
      }
      const [bm, zm] = [median(b.map((x) => x.ms)), median(z.map((x) => x.ms))];
      console.log(`${k.label}: ${zd0(answers.get(k.label)!)} sub-zones; ${read.toLocaleString('en')} rows read (prefilter box), ${binned.toLocaleString('en')} binned`);
      console.log(`  bare DuckDB scan of the same rows and columns: ${bm.toFixed(0)} ms (cpu ${median(b.map((x) => x.cpu)).toFixed(0)} ms)`);
      console.log(`  zone data: ${zm.toFixed(0)} ms (cpu ${median(z.map((x) => x.cpu)).toFixed(0)} ms)  ratio ${(zm / bm).toFixed(2)}x`);
      if (k.grid === ivea) {
        const withKeys = k.collection === stored;
        reportRow({
          work: `Lake zone data, ${(rows / 1e6).toFixed(0)}M rows, vs bare DuckDB scan (${withKeys ? 'stored zone columns' : 'on the fly'})`,
          threads, ours: `${zm.toFixed(0)} ms`, reference: `${bm.toFixed(0)} ms bare scan`, ratio: `${(zm / bm).toFixed(2)}x`,
          target: withKeys ? '<= 1.3x' : '<= 3x',
        });
      } else {
        reportRow({ work: `Lake zone data, ${(rows / 1e6).toFixed(0)}M rows, vs bare DuckDB scan (H3, on the fly)`, threads, ours: `${zm.toFixed(0)} ms`, reference: `${bm.toFixed(0)} ms bare scan`, ratio: `${(zm / bm).toFixed(2)}x`, target: '<= 2x' });
      }
    }
    const [fly, keys] = [answers.get(cases[0]!.label)!, answers.get(cases[1]!.label)!];
    console.log(`  stored zone keys vs on the fly: ${sameAnswer(fly, keys)}`);
    // For scale, once each: the same IVEA7H request binned on the event loop's thread, and row by
    // row (what readers without the fast paths do, and what the lake did before them).
    const k = cases[0]!;
    const req = { grid: k.grid, zoneId: k.zoneId, depths: [k.depth], fields: ['temperature', 'humidity'], options: { stats: ['count', 'mean', 'min', 'max', 'stdDev'] } };
    for (const [label, other] of [
      ['binned on the event loop thread (lake.aggregationThreads 0)', new LakeZoneDataSource(lake, limits)],
      ['row by row (LakeReader.scan)', new LakeZoneDataSource(rowsOnly(lake), limits)],
    ] as const) {
      const m = await measure(() => other.zoneData(k.collection, req));
      const same = JSON.stringify(m.out.depths) === JSON.stringify(fly.depths) ? 'identical' : 'DIFFERENT';
      console.log(`  ${label}: ${m.ms.toFixed(0)} ms (cpu ${m.cpu.toFixed(0)} ms), one run; ${same} to the on-the-fly answer`);
    }
    c.closeSync();
    db.closeSync();
    await lake.close();
    await pool.close();
  }
}

const zd0 = (d: ZoneData): number => d.depths[0]!.zones.length;

/** The lake through the port's required methods only. */
const rowsOnly = (lake: DuckDbLake): LakeReader => ({
  describe: (c) => lake.describe(c),
  fields: (c) => lake.fields(c),
  page: (c, r) => lake.page(c, r),
  pageAsParquet: (c, r, g) => lake.pageAsParquet(c, r, g),
  scan: (c, r, f) => lake.scan(c, r, f),
  close: () => Promise.resolve(),
});

/** Counts, min and max identical; mean and stdDev within 1e-12 relative (the engine sums in its own order). */
function sameAnswer(a: ZoneData, b: ZoneData): string {
  let worst = 0;
  for (const [name, va] of Object.entries(a.depths[0]!.values)) {
    const vb = b.depths[0]!.values[name]!;
    for (let i = 0; i < va.length; i++) {
      const [x, y] = [va[i], vb[i]];
      if (x === y) continue;
      if (typeof x !== 'number' || typeof y !== 'number' || !/_(mean|stdDev)$/.test(name)) return `DIFFERENT at ${name}[${i}]: ${x} vs ${y}`;
      worst = Math.max(worst, Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y)));
    }
  }
  return `identical counts, min and max; mean and stdDev within ${worst.toExponential(1)} relative`;
}
