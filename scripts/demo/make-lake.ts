/**
 * Deterministic demo lake: 2,000 synthetic weather stations over Europe (lon -10..30,
 * lat 35..60) with January 2024 observations, every 8 hours per station (phase per station),
 * about 186,000 rows in one GeoParquet file per week:
 *   <root>/demo-stations/data/week=NN/observations.parquet
 * Columns: station_id, name, temperature, humidity, wind_speed, datetime (TIMESTAMP, UTC),
 * geometry (WKB point) and bbox (GeoParquet 1.1 covering struct, so bbox queries prune row
 * groups). Rows are ordered by a Z-order of the station position within each file, which keeps
 * row groups spatially compact.
 *
 * Idempotent: a manifest (`_demo-lake.json`, skipped by the lake reader) records the generator
 * version; when it matches, nothing is written. Files are written to a temporary directory and
 * moved in place, so a reader never sees a half-written lake.
 *
 * Run: sh scripts/node.sh --import tsx scripts/demo/make-lake.ts [root] [--remake]
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DOUBLE, DuckDBInstance, INTEGER, LIST, listValue, VARCHAR } from '@duckdb/node-api';
import { mulberry32 as prng } from '../lib/prng.js';

export const DEMO_COLLECTION = 'demo-stations';
const VERSION = 'demo-stations/1';
const STATIONS = 2000;
const HOURS = 31 * 24;
const EVERY_HOURS = 8;

const PLACES = ['Alder', 'Birch', 'Cedar', 'Dune', 'Elm', 'Fjord', 'Glen', 'Heath', 'Isle', 'Juniper', 'Kestrel', 'Linden', 'Moor', 'Nook', 'Oak', 'Pine'];
const SUFFIXES = ['Hill', 'Field', 'Bay', 'Ridge', 'Valley', 'Point', 'Marsh', 'Cross'];

/** Interleaves the bits of two 16-bit cell indexes (Z-order), for spatially compact row groups. */
function zOrder(lon: number, lat: number): number {
  const x = Math.floor(((lon + 10) / 40) * 65535);
  const y = Math.floor(((lat - 35) / 25) * 65535);
  let z = 0;
  for (let i = 15; i >= 0; i--) z = z * 4 + ((((y >> i) & 1) << 1) | ((x >> i) & 1));
  return z;
}

const GEO = JSON.stringify({
  version: '1.1.0',
  primary_column: 'geometry',
  columns: {
    geometry: {
      encoding: 'WKB',
      geometry_types: ['Point'],
      crs: null, // omitted would also mean OGC:CRS84; null would mean unknown, so write it out below
      bbox: [-10, 35, 30, 60],
      covering: { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } },
    },
  },
}).replace('"crs":null,', ''); // no `crs` key: GeoParquet's default, OGC:CRS84

const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/**
 * Writes the demo lake under `root` unless one of this generator's version is there; with
 * `remake`, writes it anyway, which restores files rewritten since (by `npm run ingest`) to the
 * generator's bytes. Returns true when it wrote.
 */
export async function ensureDemoLake(root: string, { remake = false }: { remake?: boolean } = {}): Promise<boolean> {
  const target = path.resolve(root, DEMO_COLLECTION);
  const manifest = path.join(target, 'data', '_demo-lake.json');
  if (!remake && existsSync(manifest)) {
    const m = JSON.parse(await fs.readFile(manifest, 'utf8')) as { version?: string };
    if (m.version === VERSION) return false;
  }
  await fs.mkdir(path.resolve(root), { recursive: true });
  const staging = await fs.mkdtemp(path.join(path.resolve(root), `.${DEMO_COLLECTION}-`));
  try {
    // mkdtemp makes it owner-only; renamed into place it is the collection's folder, which the
    // service's own user reads (the image's `node`, not the root that built it).
    await fs.chmod(staging, 0o755);
    await writeLake(path.join(staging, 'data'));
    await fs.writeFile(path.join(staging, 'data', '_demo-lake.json'), JSON.stringify({ version: VERSION, stations: STATIONS, everyHours: EVERY_HOURS }, null, 2) + '\n');
    await fs.rm(target, { recursive: true, force: true });
    await fs.rename(staging, target);
  } catch (e) {
    await fs.rm(staging, { recursive: true, force: true });
    throw e;
  }
  return true;
}

async function writeLake(dataDir: string): Promise<void> {
  const rnd = prng(20240101);
  const ids: string[] = [], names: string[] = [], lons: number[] = [], lats: number[] = [], elev: number[] = [], phase: number[] = [], order: number[] = [];
  for (let i = 0; i < STATIONS; i++) {
    const lon = Math.round((-10 + rnd() * 40) * 1e5) / 1e5;
    const lat = Math.round((35 + rnd() * 25) * 1e5) / 1e5;
    ids.push(`ST${String(i + 1).padStart(4, '0')}`);
    names.push(`${PLACES[Math.floor(rnd() * PLACES.length)]} ${SUFFIXES[Math.floor(rnd() * SUFFIXES.length)]} ${i + 1}`);
    lons.push(lon);
    lats.push(lat);
    elev.push(Math.round(rnd() * 1500));
    phase.push(Math.floor(rnd() * EVERY_HOURS));
    order.push(zOrder(lon, lat));
  }
  // Z-order rank (fits INTEGER) instead of the raw 32-bit key.
  const rank = order.map((z, i) => [z, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  rank.forEach(([, i], r) => (order[i] = r));
  const db = await DuckDBInstance.create(':memory:', { threads: '1' }); // one thread: byte-identical files on every run
  const c = await db.connect();
  try {
    await c.run(
      `CREATE TEMP TABLE stations AS SELECT unnest($1) AS station_id, unnest($2) AS name, unnest($3) AS lon, unnest($4) AS lat,
         unnest($5) AS elevation, unnest($6) AS phase, unnest($7) AS z`,
      [listValue(ids), listValue(names), listValue(lons), listValue(lats), listValue(elev), listValue(phase), listValue(order)],
      [LIST(VARCHAR), LIST(VARCHAR), LIST(DOUBLE), LIST(DOUBLE), LIST(DOUBLE), LIST(INTEGER), LIST(INTEGER)],
    );
    // Weather as smooth functions of place and time plus integer-hash noise (no engine RNG, so
    // the values are the same with any DuckDB version).
    await c.run(`CREATE TEMP TABLE obs AS
      WITH base AS (
        SELECT s.*, h, ((s.z * 7919 + h * 104729) % 2003) / 2003.0 - 0.5 AS n1, ((s.z * 104723 + h * 7907) % 1999) / 1999.0 AS n2
        FROM stations s, range(0, ${HOURS}) t(h)
        WHERE (h + s.phase) % ${EVERY_HOURS} = 0
      )
      SELECT station_id, name,
        round(14 - 0.55 * (lat - 35) - 0.0065 * elevation + 4 * sin((h % 24 - 9) * pi() / 12) + 3 * n1, 1) AS temperature,
        round(least(100, greatest(15, 70 + 15 * cos((h % 24) * pi() / 12) + 20 * n1)), 1) AS humidity,
        round(2 + 9 * n2 * n2 + 0.08 * (lat - 35), 1) AS wind_speed,
        TIMESTAMP '2024-01-01 00:00:00' + to_hours(h::BIGINT) AS datetime,
        st_aswkb(CAST('POINT (' || lon || ' ' || lat || ')' AS GEOMETRY)) AS geometry,
        {'xmin': lon, 'ymin': lat, 'xmax': lon, 'ymax': lat} AS bbox,
        least(h // 168, 4) + 1 AS week, z, h
      FROM base`);
    for (let week = 1; week <= 5; week++) {
      const dir = path.join(dataDir, `week=${String(week).padStart(2, '0')}`);
      await fs.mkdir(dir, { recursive: true });
      const file = path.join(dir, 'observations.parquet');
      await c.run(
        `COPY (SELECT station_id, name, temperature, humidity, wind_speed, datetime, geometry, bbox FROM obs WHERE week = ${week} ORDER BY z, h)
         TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 8192, KV_METADATA {geo: ${sqlString(GEO)}})`,
      );
    }
  } finally {
    c.closeSync();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'data/demo/lake';
  const started = Date.now();
  const wrote = await ensureDemoLake(root, { remake: process.argv.includes('--remake') });
  console.log(wrote ? `demo lake written to ${path.resolve(root, DEMO_COLLECTION)} in ${Date.now() - started} ms` : 'demo lake is up to date');
}
