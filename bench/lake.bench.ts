/**
 * Lake zone data at scale: writes a 10-million-row GeoParquet lake (points with a bbox
 * covering, two numeric fields, 10 files) into a temp dir, then times the parquet-lake zone-data
 * aggregation (prefilter, stream, zone-from-point per row, per-zone statistics) beside a bare
 * DuckDB scan that reads the same columns of the same rows and aggregates them in SQL.
 * The ratio is the price of binning rows into zones in JS.
 *
 * Run: npm run bench lake   (LAKE_BENCH_ROWS overrides the row count)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbLake } from '../src/adapters/lake/duckdb-lake.js';
import { LakeZoneDataSource, prefilterBox } from '../src/adapters/lake/lake-zone-data-source.js';
import { GRID_FACTORIES } from '../src/app/grid-factories.js';
import type { Collection } from '../src/domain/collection.js';

const FILES = 10;

async function writeLake(root: string, rows: number): Promise<void> {
  const dir = path.join(root, 'bench', 'data');
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
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await fn();
  return [performance.now() - t0, out];
}

export async function run(): Promise<void> {
  const rows = Number(process.env.LAKE_BENCH_ROWS ?? 10_000_000);
  const root = mkdtempSync(path.join(tmpdir(), 'lake-bench-'));
  try {
    const [genMs] = await time(() => writeLake(root, rows));
    console.log(`generated ${rows.toLocaleString()} rows in ${FILES} files in ${(genMs / 1000).toFixed(1)} s`);

    const grid = GRID_FACTORIES.H3!();
    const zoneId = grid.zoneFromPoint(10, 50, 1);
    const depth = 3;
    const collection: Collection = { id: 'bench', title: 'bench', backing: { kind: 'parquet-lake', geometryColumn: 'geometry' } };
    const lake = new DuckDbLake(root);
    const source = new LakeZoneDataSource(lake);
    await lake.describe(collection); // warm the footer cache, as a running service would have

    const [w, s, e, n] = prefilterBox(grid, zoneId, [depth]);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run('SET enable_geoparquet_conversion = false'); // WKB BLOB, as the lake reads it
    const glob = path.join(root, 'bench', 'data', '*.parquet');
    const bare = async () =>
      (
        await c.runAndReadAll(
          `SELECT count(*) AS n, sum(octet_length(geometry)) AS bytes, min(temperature), max(temperature), avg(temperature), stddev_pop(temperature), min(humidity), max(humidity), avg(humidity), stddev_pop(humidity)
           FROM read_parquet('${glob}') WHERE bbox.xmax >= ${w} AND bbox.xmin <= ${e} AND bbox.ymax >= ${s} AND bbox.ymin <= ${n}`,
        )
      ).getRowObjectsJS()[0]!;
    await bare(); // warm the OS cache for both
    const [bareMs, bareOut] = await time(bare);
    const [zdMs, zd] = await time(() =>
      source.zoneData(collection, { grid, zoneId, depths: [depth], fields: ['temperature', 'humidity'], options: { stats: ['count', 'mean', 'min', 'max', 'stdDev'] } }),
    );
    c.closeSync();
    await lake.close();
    const binned = (zd.depths[0]!.values.temperature_count as number[]).reduce((a, b) => a + b, 0);
    console.log(`zone ${zoneId} (H3 level 1), depth ${depth}: ${zd.depths[0]!.zones.length} sub-zones; prefilter box ${[w, s, e, n].map((x) => x.toFixed(2)).join(',')}`);
    console.log(`rows read after the bbox prefilter: ${Number(bareOut.n).toLocaleString()}; rows binned into sub-zones: ${binned.toLocaleString()}`);
    console.log(`bare DuckDB scan+aggregate of the same columns: ${bareMs.toFixed(0)} ms`);
    console.log(`lake zone data (stream + zone-from-point + stats): ${zdMs.toFixed(0)} ms  (${((Number(bareOut.n) / zdMs) * 1000 / 1e6).toFixed(2)} M rows/s)`);
    console.log(`ratio zone data / bare scan: ${(zdMs / bareMs).toFixed(1)}x`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
