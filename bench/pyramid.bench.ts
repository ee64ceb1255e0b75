/**
 * Zone pyramids at scale: lakes of 10 and 50 million points (two numeric fields, over lon 0..20,
 * lat 40..60, in latitude order so row groups are compact), each ingested into a pyramid of
 * IVEA7H levels 2-5 (all that the request below reads: a level-2 zone at depth 3 is level 5) on
 * two local ClickHouse shard servers (test/support/clickhouse-shards.ts), its parts run by two
 * worker processes sharing the pg-boss queue on the local PostgreSQL (bench/pyramid-part-worker.ts,
 * as `npm run worker` runs them).
 *
 * Printed, same run: the ingest's time and rows/s per lake, then zone data of the level-2 zone
 * holding (10, 50) at depth 3 (count, mean, min, max, stdDev of both fields) from the pyramid for
 * each lake, beside the same request on the lake on the fly and from stored zone columns (the lake
 * after `npm run ingest --levels 5`). The pyramid's figure should not grow with the rows (50M
 * within 1.2x of 10M) and stay under 50 ms; its answer is checked against the on-the-fly one.
 * Each figure is the median of five runs.
 *
 * Lakes are written once into the temp directory and reused (PYRAMID_BENCH_ROWS: the sizes,
 * comma-separated, default 10000000,50000000; PYRAMID_BENCH_DIR: the directory). PostgreSQL:
 * DGGS_TEST_POSTGRES_URL or 127.0.0.1:5432/test, as the tests.
 *
 * Run: npm run bench pyramid
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbLake } from '../src/adapters/lake/duckdb-lake.js';
import { ZoneBinningPool } from '../src/adapters/lake/zone-binning-pool.js';
import { writeZoneColumns } from '../src/adapters/lake/zone-columns-writer.js';
import { GRID_FACTORIES } from '../src/adapters/grids/catalog.js';
import { PgBossPyramidParts } from '../src/adapters/jobs/pg-boss-pyramid-parts.js';
import { configSchema } from '../src/app/config/config-schema.js';
import { EnabledGridRegistry } from '../src/app/grid-registry.js';
import { ConfigCollectionCatalog } from '../src/app/config/config-collection-catalog.js';
import { PyramidIngest } from '../src/app/pyramids/pyramid-ingest.js';
import { PyramidPartJob } from '../src/app/pyramids/pyramid-part-job.js';
import { LakeZoneDataSource } from '../src/app/zone-data/lake-zone-data-source.js';
import { PyramidZoneDataSource } from '../src/app/zone-data/pyramid-zone-data-source.js';
import type { Collection } from '../src/domain/collection.js';
import type { ZoneData, ZoneDataRequest } from '../src/domain/zone-data.js';
import { CLUSTER, startClickHouseShards } from '../test/support/clickhouse-shards.js';
import { startPostgres } from '../test/support/postgres.js';
import { clickHouseStore, type WorkerArgs } from './pyramid-part-worker.js';
import { reportRow } from './summary-table.js';

const FILES = 10;
const RUNS = 5;
const LEVELS = [2, 3, 4, 5];
const FIELDS = ['temperature', 'humidity'];

/**
 * Points on a 100,000 x 100,000 lattice over the box: each axis's WKB bytes are computed once
 * (100,000 rows) and joined, which writes rows several times faster than building every point from
 * text. Latitude grows with the row number: row groups hold thin bands.
 */
async function writeLake(dir: string, rows: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const geo = JSON.stringify({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: ['Point'], covering: { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } } } } });
  await c.run(`CREATE TABLE xs AS SELECT j, j / 100000.0 * 20 AS x, unhex(substring(hex(st_aswkb(CAST('POINT (' || (j / 100000.0 * 20) || ' 0)' AS GEOMETRY))), 11, 16)) AS xb FROM range(100000) t(j)`);
  await c.run(`CREATE TABLE ys AS SELECT j, 40 + j / 100000.0 * 20 AS y, unhex(substring(hex(st_aswkb(CAST('POINT (0 ' || (40 + j / 100000.0 * 20) || ')' AS GEOMETRY))), 27, 16)) AS yb FROM range(100000) t(j)`);
  const per = Math.ceil(rows / FILES);
  for (let f = 0; f < FILES; f++) {
    const from = f * per, to = Math.min(rows, from + per);
    await c.run(`COPY (
        WITH p AS (SELECT i, (i * 2654435761) % 100000 AS xi, (i * 100000) // ${rows} AS yi FROM range(${from}, ${to}) t(i))
        SELECT round(15 - 0.5 * (ys.y - 40) + (i % 97) / 10.0, 1) AS temperature, round(50 + (i % 501) / 10.0, 1) AS humidity,
          unhex('0101000000') || xs.xb || ys.yb AS geometry, {'xmin': xs.x, 'ymin': ys.y, 'xmax': xs.x, 'ymax': ys.y} AS bbox
        FROM p JOIN xs ON xs.j = p.xi JOIN ys ON ys.j = p.yi ORDER BY i)
      TO '${path.join(dir, `part-${String(f).padStart(2, '0')}.parquet`)}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 65536, KV_METADATA {geo: '${geo}'})`);
  }
  c.closeSync();
  db.closeSync();
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function timed(fn: () => Promise<ZoneData>): Promise<{ ms: number; out: ZoneData }> {
  let out: ZoneData | undefined;
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    out = await fn();
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), out: out! };
}

/** Counts, min and max identical; mean and stdDev within 1e-9 relative (sums in another order). */
function sameAnswer(a: ZoneData, b: ZoneData): string {
  let worst = 0;
  for (const [name, va] of Object.entries(a.depths[0]!.values)) {
    const vb = b.depths[0]!.values[name];
    if (!vb) return `DIFFERENT: ${name} missing`;
    for (let i = 0; i < va.length; i++) {
      const [x, y] = [va[i], vb[i]];
      if (x === y) continue;
      if (typeof x !== 'number' || typeof y !== 'number' || !/_(mean|stdDev)$/.test(name)) return `DIFFERENT at ${name}[${i}]: ${x} vs ${y}`;
      worst = Math.max(worst, Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y)));
    }
  }
  return worst <= 1e-9 ? `identical (mean/stdDev within ${worst.toExponential(1)})` : `DIFFERENT (mean/stdDev off by ${worst.toExponential(1)})`;
}

export async function run(): Promise<void> {
  const sizes = (process.env.PYRAMID_BENCH_ROWS ?? '10000000,50000000').split(',').map(Number);
  const base = process.env.PYRAMID_BENCH_DIR ?? tmpdir();
  const grid = GRID_FACTORIES.IVEA7H!();
  const zoneId = grid.zoneFromPoint(10, 50, 2);
  const request: ZoneDataRequest = { grid, zoneId, depths: [3], fields: FIELDS, options: { stats: ['count', 'mean', 'min', 'max', 'stdDev'] } } as ZoneDataRequest;
  const shards = await startClickHouseShards();
  const pg = await startPostgres();
  const clickhouse = { shards: shards.urls(), cluster: CLUSTER, database: 'dggs_bench', username: shards.username, password: shards.password, timeoutMs: 30_000, maxConnections: 8, retryAfterSeconds: 5 };
  const store = clickHouseStore(clickhouse);
  const limits = configSchema.parse({}).limits;
  const pyramid = new PyramidZoneDataSource(store, limits.maxSubZones);
  const workers = Math.max(2, availableParallelism());
  const pool = new ZoneBinningPool(2, new URL('../src/adapters/grids/catalog.js', import.meta.url).href);
  const children: ChildProcess[] = [];
  const figures: { rows: number; ms: number }[] = [];
  try {
    for (const rows of sizes) {
      const root = path.join(base, `dggs-pyramid-bench-${rows}`);
      const ready = path.join(root, '.complete');
      if (!existsSync(ready)) {
        rmSync(root, { recursive: true, force: true });
        let t0 = performance.now();
        await writeLake(path.join(root, 'bench', 'data'), rows);
        console.log(`generated ${rows.toLocaleString('en')} rows in ${FILES} files in ${((performance.now() - t0) / 1000).toFixed(1)} s (${root})`);
        cpSync(path.join(root, 'bench'), path.join(root, 'bench-zones'), { recursive: true });
        t0 = performance.now();
        await writeZoneColumns({ root, collectionId: 'bench-zones', geometryColumn: 'geometry', grid, levels: [5] });
        console.log(`stored zone columns (IVEA7H level 5) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        writeFileSync(ready, '');
      } else console.log(`reusing the ${rows.toLocaleString('en')}-row lakes in ${root}`);

      const lakeOf = (id: string): Collection => ({ id, title: id, backing: { kind: 'parquet-lake', geometryColumn: 'geometry' } });
      const table = `bench_${rows}`;
      const pyramidCollection: Collection = { id: 'bench-pyramid', title: 'bench pyramid', backing: { kind: 'clickhouse-pyramid', table, source: 'bench', grid: 'IVEA7H', levels: LEVELS } };
      const collections = [lakeOf('bench'), lakeOf('bench-zones'), pyramidCollection];

      // The ingest: parts on the pg-boss queue, run by worker processes (one DuckDB thread each).
      const args: WorkerArgs = { lakeRoot: root, collections, clickhouse, pg: { url: pg.url, schema: pg.schema }, duckdbThreads: 1 };
      for (let i = 0; i < workers; i++) {
        const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'pyramid-part-worker.ts'), JSON.stringify(args)], { stdio: ['ignore', 'ignore', 'inherit'] });
        children.push(child);
      }
      const lake = new DuckDbLake(root, undefined, { threads: 2 });
      const queue = new PgBossPyramidParts({ url: pg.url, schema: pg.schema, maxAttempts: 2, retryDelaySeconds: 1, heartbeatSeconds: 30, superviseSeconds: 5, pollSeconds: 0.5 });
      const grids = new EnabledGridRegistry([grid], 'IVEA7H');
      const catalog = new ConfigCollectionCatalog(collections);
      const ingest = new PyramidIngest(lake, grids, catalog, store, queue, new PyramidPartJob(lake, grids, catalog, store, { maxPartCells: 4_000_000 }), { maxPartRows: 50_000_000, pollMs: 1000, partsPerWorker: 4 });
      const t0 = performance.now();
      const layout = await ingest.ingest({ collectionId: 'bench-pyramid', workers: 0, log: (line) => console.log(`  ${line}`) });
      const seconds = (performance.now() - t0) / 1000;
      await queue.close();
      for (const child of children.splice(0)) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      console.log(`ingest of ${layout.rows.toLocaleString('en')} rows into ${table} (levels ${LEVELS.join(',')}, ${workers} worker processes): ${seconds.toFixed(1)} s, ${Math.round(layout.rows / seconds).toLocaleString('en')} rows/s`);
      reportRow({ work: `Pyramid ingest, ${(rows / 1e6).toFixed(0)}M rows, levels 2-5`, threads: workers, ours: `${seconds.toFixed(1)} s`, reference: `${Math.round(layout.rows / seconds).toLocaleString('en')} rows/s`, ratio: '-', target: '-' });

      const lakeSource = new LakeZoneDataSource(lake, limits, pool);
      await lakeSource.zoneData(lakeOf('bench'), request); // warm: footers, OS cache
      await lakeSource.zoneData(lakeOf('bench-zones'), request);
      await pyramid.zoneData(pyramidCollection, request);
      const fly = await timed(() => lakeSource.zoneData(lakeOf('bench'), request));
      const stored = await timed(() => lakeSource.zoneData(lakeOf('bench-zones'), request));
      const fromPyramid = await timed(() => pyramid.zoneData(pyramidCollection, request));
      figures.push({ rows, ms: fromPyramid.ms });
      console.log(`zone data of ${zoneId} (level 2) at depth 3, ${(rows / 1e6).toFixed(0)}M rows (${fromPyramid.out.depths[0]!.zones.length} sub-zones):`);
      console.log(`  pyramid:             ${fromPyramid.ms.toFixed(1)} ms; ${sameAnswer(fly.out, fromPyramid.out)} to the on-the-fly answer`);
      console.log(`  stored zone columns: ${stored.ms.toFixed(1)} ms`);
      console.log(`  lake on the fly:     ${fly.ms.toFixed(1)} ms`);
      reportRow({ work: `Zone data level 2 depth 3, ${(rows / 1e6).toFixed(0)}M rows: pyramid vs stored zone columns`, threads: 2, ours: `${fromPyramid.ms.toFixed(1)} ms`, reference: `${stored.ms.toFixed(1)} ms stored columns, ${fly.ms.toFixed(0)} ms on the fly`, ratio: `${(fromPyramid.ms / stored.ms).toFixed(2)}x`, target: '< 50 ms' });
      await lake.close();
    }
    if (figures.length >= 2) {
      const [small, big] = [figures[0]!, figures[figures.length - 1]!];
      const ratio = big.ms / small.ms;
      console.log(`pyramid zone data, ${(big.rows / 1e6).toFixed(0)}M vs ${(small.rows / 1e6).toFixed(0)}M rows: ${big.ms.toFixed(1)} ms vs ${small.ms.toFixed(1)} ms, ratio ${ratio.toFixed(2)}x (target <= 1.2x, < 50 ms)`);
      reportRow({ work: `Pyramid zone data, ${(big.rows / 1e6).toFixed(0)}M vs ${(small.rows / 1e6).toFixed(0)}M rows`, threads: 2, ours: `${big.ms.toFixed(1)} ms`, reference: `${small.ms.toFixed(1)} ms`, ratio: `${ratio.toFixed(2)}x`, target: '<= 1.2x, < 50 ms' });
    }
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await pool.close();
    await store.close();
    await shards.stop();
    await pg.stop();
  }
}
