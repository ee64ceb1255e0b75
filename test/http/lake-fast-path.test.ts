/**
 * The lake's fast zone-data paths answer what the row-by-row path answers, on a generated lake:
 * points only (read from the bbox covering) and mixed geometries (points in both byte orders,
 * EWKB and Z points, empty points, NULLs, lines, polygons, multipoints; read from WKB slices),
 * numeric fields of every kind (NULL, NaN, Infinity, integers beyond 2^53, DECIMAL, FLOAT),
 * filters (including one the database leaves to the exact test), datetime, several grids,
 * depths and a polar zone.
 *
 * - plain columns binned on this thread, and on worker threads: identical to the last bit;
 * - stored zone keys (`writeZoneColumns`, as `npm run ingest` runs it): counts, valid, min, max
 *   and median identical, mean and stdDev within 1e-12 relative (DuckDB sums in its own order).
 */
import { expect } from 'chai';
import { cpSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DuckDbLake } from '../../src/adapters/lake/duckdb-lake.js';
import { LakeZoneDataSource } from '../../src/app/zone-data/lake-zone-data-source.js';
import { ZoneBinningPool } from '../../src/adapters/lake/zone-binning-pool.js';
import { writeZoneColumns } from '../../src/adapters/lake/zone-columns-writer.js';
import { zoneKeyColumnName } from '../../src/adapters/lake/zone-key-columns.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import type { Collection } from '../../src/domain/collection.js';
import { parseCql2Text } from '../../src/domain/cql2/index.js';
import type { Dggrs } from '../../src/domain/dggrs/dggrs.js';
import type { ZoneData, ZoneDataRequest } from '../../src/domain/zone-data.js';
import type { LakeReader } from '../../src/ports/lake-reader.js';
import { mulberry32 } from '../../scripts/lib/prng.js';
import { startTestServer } from '../support/test-server.js';
import { httpStatus } from '../support/http-status.js';
import { HOLD_RERUNS, loopHolds } from '../support/loop-holds.js';

const STATS = ['count', 'valid', 'min', 'max', 'mean', 'stdDev', 'median'];
const FIELDS = ['temperature', 'pressure', 'big', 'dec', 'f'];
const ROWS = 6000;

/** WKB writers for the odd cases. */
function point(x: number, y: number, little = true): Uint8Array {
  const v = new DataView(new ArrayBuffer(21));
  v.setUint8(0, little ? 1 : 0);
  v.setUint32(1, 1, little);
  v.setFloat64(5, x, little);
  v.setFloat64(13, y, little);
  return new Uint8Array(v.buffer);
}
function ewkbPoint(x: number, y: number): Uint8Array {
  const v = new DataView(new ArrayBuffer(25));
  v.setUint8(0, 1);
  v.setUint32(1, 0x20000001, true);
  v.setUint32(5, 4326, true);
  v.setFloat64(9, x, true);
  v.setFloat64(17, y, true);
  return new Uint8Array(v.buffer);
}
function pointZ(x: number, y: number, z: number): Uint8Array {
  const v = new DataView(new ArrayBuffer(29));
  v.setUint8(0, 1);
  v.setUint32(1, 1001, true);
  [x, y, z].forEach((c, i) => v.setFloat64(5 + 8 * i, c, true));
  return new Uint8Array(v.buffer);
}
function lineOrRing(type: 2 | 3, pts: [number, number][]): Uint8Array {
  const head = type === 3 ? 13 : 9;
  const v = new DataView(new ArrayBuffer(head + 16 * pts.length));
  v.setUint8(0, 1);
  v.setUint32(1, type, true);
  if (type === 3) v.setUint32(5, 1, true);
  v.setUint32(head - 4, pts.length, true);
  pts.forEach(([x, y], i) => {
    v.setFloat64(head + 16 * i, x, true);
    v.setFloat64(head + 16 * i + 8, y, true);
  });
  return new Uint8Array(v.buffer);
}
function multiPoint(pts: [number, number][]): Uint8Array {
  const out = new Uint8Array(9 + 21 * pts.length);
  const v = new DataView(out.buffer);
  v.setUint8(0, 1);
  v.setUint32(1, 4, true);
  v.setUint32(5, pts.length, true);
  pts.forEach(([x, y], i) => out.set(point(x, y), 9 + 21 * i));
  return out;
}

interface Row {
  id: number;
  geometry: Uint8Array | null;
  /** Covering of a point-only row: the point (NaN for an empty one), null for NULL. */
  box: [number, number, number, number] | null;
}

/** Rows near (10, 50) and a few near the north pole; `mixed` adds every other kind of geometry. */
function rows(mixed: boolean): Row[] {
  const rand = mulberry32(mixed ? 7 : 3);
  const out: Row[] = [];
  for (let id = 0; id < ROWS; id++) {
    const polar = id % 20 === 0;
    const x = polar ? -180 + rand() * 360 : 5 + rand() * 10;
    const y = polar ? 89 + rand() : 45 + rand() * 10;
    let geometry: Uint8Array | null = point(x, y);
    if (id % 139 === 0) geometry = null;
    else if (id % 149 === 0) geometry = point(NaN, NaN);
    else if (id % 113 === 0) geometry = point(x, y, false);
    else if (id % 127 === 0) geometry = pointZ(x, y, 100);
    else if (mixed && id % 97 === 0) geometry = lineOrRing(3, [[x, y], [x + 0.2, y], [x + 0.2, y + 0.1], [x, y + 0.1], [x, y]]);
    else if (mixed && id % 89 === 0) geometry = lineOrRing(2, [[x, y], [x + 0.3, y + 0.05], [x + 0.1, y - 0.2]]);
    else if (mixed && id % 83 === 0) geometry = multiPoint([[x, y], [x + 0.01, y + 0.02], [x, y + 0.03]]);
    else if (mixed && id % 79 === 0) geometry = ewkbPoint(x, y);
    const isPoint = geometry === null || geometry.byteLength === 21 || geometry.byteLength === 29;
    out.push({ id, geometry, box: geometry === null ? null : isPoint ? (id % 149 === 0 ? [NaN, NaN, NaN, NaN] : [x, y, x, y]) : null });
  }
  return out;
}

/** Writes `id`, the geometry and the field columns (computed from id) into two files of `dir`. */
async function writeLake(c: DuckDBConnection, dir: string, mixed: boolean): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const all = rows(mixed);
  await c.run('CREATE OR REPLACE TABLE geoms (id INTEGER, geometry BLOB, xmin DOUBLE, ymin DOUBLE, xmax DOUBLE, ymax DOUBLE)');
  const a = await c.createAppender('geoms');
  for (const r of all) {
    a.appendInteger(r.id);
    if (r.geometry) a.appendBlob(r.geometry);
    else a.appendNull();
    for (let k = 0; k < 4; k++) {
      if (r.box) a.appendDouble(r.box[k]!);
      else a.appendNull();
    }
    a.endRow();
  }
  a.closeSync();
  const fields = `CASE WHEN id % 50 = 0 THEN NULL WHEN id % 71 = 0 THEN 'NaN'::DOUBLE WHEN id % 73 = 0 THEN 'Infinity'::DOUBLE ELSE round(((id * 7919) % 4001) / 100.0 - 10, 2) END AS temperature,
    ((id * 104729) % 997)::INTEGER AS pressure,
    CASE WHEN id % 61 = 0 THEN (1::BIGINT << 60) + id ELSE id * 1000 END::BIGINT AS big,
    (((id * 31) % 1000) / 7.0)::DECIMAL(9, 3) AS dec,
    (id / 3.0)::FLOAT AS f,
    TIMESTAMP '2024-01-01 00:00:00' + to_hours((id % 240)::BIGINT) AS datetime`;
  // Points only: a DOUBLE covering and `Point` in the metadata (the covering route). Mixed: one
  // file with a covering of no declared types, one without (the WKB route).
  const covering = { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } };
  const geo = (types: string[], cover: boolean) => JSON.stringify({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: types, ...(cover ? { covering } : {}) } } });
  const half = ROWS / 2;
  for (const [name, where, types, cover] of [
    ['a.parquet', `id < ${half}`, mixed ? [] : ['Point', 'Point Z'], true],
    ['b.parquet', `id >= ${half}`, mixed ? [] : ['Point', 'Point Z'], !mixed],
  ] as const) {
    const bbox = cover ? `, CASE WHEN xmin IS NULL THEN NULL ELSE {'xmin': xmin, 'ymin': ymin, 'xmax': xmax, 'ymax': ymax} END AS bbox` : '';
    await c.run(`COPY (SELECT id, ${fields}, geometry${bbox} FROM geoms WHERE ${where} ORDER BY id) TO '${path.join(dir, name)}' (FORMAT parquet, ROW_GROUP_SIZE 700, KV_METADATA {geo: '${geo([...types], cover)}'})`);
  }
}

/** The lake through the port's required methods only: the row-by-row path. */
const rowsOnly = (lake: DuckDbLake): LakeReader => ({
  describe: (c) => lake.describe(c),
  fields: (c) => lake.fields(c),
  page: (c, r) => lake.page(c, r),
  pageAsParquet: (c, r, g) => lake.pageAsParquet(c, r, g),
  scan: (c, r, f) => lake.scan(c, r, f),
  close: () => Promise.resolve(),
});

const collection = (id: string): Collection => ({ id, title: id, backing: { kind: 'parquet-lake', geometryColumn: 'geometry', datetimeColumn: 'datetime' } });

/** What a zone-data answer says about the rows (its source link names the collection read). */
const answer = (d: ZoneData) => ({ fields: d.fields, depths: d.depths });

/** Stored-key answers: counts, extremes and medians identical, sums within the engine's rounding. */
function expectClose(got: ZoneData, want: ZoneData, what: string): void {
  expect(got.depths.map((d) => d.zones), what).to.deep.equal(want.depths.map((d) => d.zones));
  got.depths.forEach((d, k) => {
    for (const [name, values] of Object.entries(want.depths[k]!.values)) {
      const g = d.values[name]!;
      values.forEach((w, i) => {
        const at = `${what}: ${name} of ${d.zones[i]}`;
        if (w === null || !/_(mean|stdDev)$/.test(name)) return expect(g[i], at).to.equal(w);
        expect(g[i], at).to.be.a('number');
        expect(Math.abs((g[i] as number) - w), at).to.be.at.most(1e-12 * Math.max(1, Math.abs(w)));
      });
    }
  });
}

describe('lake zone data: fast paths answer as the row-by-row path', function () {
  this.timeout(300_000);
  const root = mkdtempSync(path.join(tmpdir(), 'lake-fast-'));
  const lake = new DuckDbLake(root);
  const pool = new ZoneBinningPool(2, new URL('../../src/adapters/grids/catalog.js', import.meta.url).href);
  const limits = { maxMedianValues: 1_000_000 };
  const reference = new LakeZoneDataSource(rowsOnly(lake), limits);
  // Counts which path each answer took, so a silent fallback to the rows fails the test.
  const calls = { scanPoints: 0, zoneKeyStats: 0, sessions: 0 };
  const counted = new Proxy(lake, {
    get(target, key) {
      const v = Reflect.get(target, key, target) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (key === 'scanPoints' || key === 'zoneKeyStats') calls[key]++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const session = pool.session.bind(pool);
  pool.session = async (...args) => {
    const s = await session(...args);
    if (s) calls.sessions++;
    return s;
  };
  const here = new LakeZoneDataSource(counted, limits);
  const workers = new LakeZoneDataSource(counted, limits, pool);

  before(async () => {
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(`SET TimeZone = 'UTC'`);
    await c.run('SET enable_geoparquet_conversion = false');
    for (const mixed of [false, true]) {
      const id = mixed ? 'mixed' : 'points';
      await writeLake(c, path.join(root, id, 'data'), mixed);
      cpSync(path.join(root, id), path.join(root, `${id}-zones`), { recursive: true });
      await writeZoneColumns({ root, collectionId: `${id}-zones`, geometryColumn: 'geometry', grid: GRID_FACTORIES.IVEA7H!(), levels: [1, 2, 3, 4, 5, 6, 7] });
    }
    c.closeSync();
    db.closeSync();
  });
  after(async () => {
    await lake.close();
    await pool.close();
  });

  const grids: Record<string, Dggrs> = Object.fromEntries(['IVEA7H', 'H3', 'ISEA3H'].map((id) => [id, GRID_FACTORIES[id]!()]));
  const request = (gridId: string, lon: number, lat: number, level: number, depths: number[], extra: Partial<ZoneDataRequest> = {}): ZoneDataRequest => {
    const grid = grids[gridId]!;
    return { grid, zoneId: grid.zoneFromPoint(lon, lat, level), depths, fields: FIELDS, options: { stats: STATS }, ...extra };
  };
  const cases: [string, ZoneDataRequest][] = [
    ['IVEA7H level 2, depths 1 and 3', request('IVEA7H', 10, 50, 2, [1, 3])],
    ['IVEA7H level 3, depth 2, filter', request('IVEA7H', 10, 50, 3, [2], { filter: parseCql2Text('pressure > 300 AND (temperature < 15 OR temperature IS NULL)') })],
    ['IVEA7H level 3, depth 2, datetime', request('IVEA7H', 10, 50, 3, [2], { datetime: { start: Date.UTC(2024, 0, 3), end: Date.UTC(2024, 0, 7, 12), text: '2024-01-03T00:00:00Z/2024-01-07T12:00:00Z' } })],
    ['IVEA7H level 3, depth 2, a filter left to the exact test', request('IVEA7H', 10, 50, 3, [2], { filter: parseCql2Text('S_INTERSECTS(geometry, POLYGON((5 45, 15 45, 10 55, 5 45)))') })],
    ['IVEA7H polar zone, level 1, depth 1', request('IVEA7H', 0, 89.9, 1, [1])],
    ['H3 level 3, depth 2', request('H3', 10, 50, 3, [2])],
    ['H3 polar zone, level 1, depths 1 and 2', request('H3', 0, 89.9, 1, [1, 2])],
    ['ISEA3H level 5, depths 2 and 4, filter and datetime', request('ISEA3H', 10, 50, 5, [2, 4], { filter: parseCql2Text('big > 100000 OR dec < 50'), datetime: { start: Date.UTC(2024, 0, 2), end: null, text: '2024-01-02T00:00:00Z/..' } })],
  ];

  for (const id of ['points', 'mixed']) {
    for (const [what, req] of cases) {
      it(`${id}: ${what}`, async () => {
        const want = await reference.zoneData(collection(id), req);
        const rowsIn = Object.values(want.depths[0]!.values.temperature_count!).reduce<number>((s, n) => s + (n as number), 0);
        expect(rowsIn, 'rows in the zone').to.be.greaterThan(req.grid.id === 'H3' && req.depths.length > 1 ? 5 : 20);
        const before = { ...calls };
        expect(await here.zoneData(collection(id), req), 'binned on this thread').to.deep.equal(want);
        expect(calls.scanPoints - before.scanPoints, 'plain columns read').to.equal(1);
        expect(await workers.zoneData(collection(id), req), 'binned on workers').to.deep.equal(want);
        expect([calls.scanPoints - before.scanPoints, calls.sessions - before.sessions], 'plain columns binned on workers').to.deep.equal([2, 1]);
        // Stored keys: IVEA7H levels 1-7 are in the `-zones` copy; other grids fall back to binning.
        const stored = await workers.zoneData(collection(`${id}-zones`), req);
        if (req.grid.id === 'IVEA7H') {
          expectClose(stored, want, 'stored zone keys');
          // A GROUP BY per depth, and per depth again for the medians; a filter the database cannot
          // settle alone makes the engine decline at once, and the rows are binned.
          const declined = req.filter?.kind === 'spatial';
          expect(calls.zoneKeyStats - before.zoneKeyStats, 'stored-key queries').to.equal(declined ? 1 : 2 * req.depths.length);
          expect(calls.scanPoints - before.scanPoints, 'plain-column scans').to.equal(declined ? 3 : 2);
        } else expect(answer(stored)).to.deep.equal(answer(want));
      });
    }
  }

  it('uses the stored keys only where every level asked is stored, and reads them from DuckDB', async () => {
    expect(await lake.zoneKeyLevels(collection('mixed-zones'), 'IVEA7H')).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    expect(await lake.zoneKeyLevels(collection('mixed-zones'), 'ISEA7H')).to.deep.equal([]);
    expect(await lake.zoneKeyLevels(collection('mixed'), 'IVEA7H')).to.deep.equal([]);
    // Depth 6 below level 3 is level 9, not stored: binned, so identical to the last bit.
    const deep = request('IVEA7H', 10, 50, 3, [1, 6]);
    expect(answer(await workers.zoneData(collection('mixed-zones'), deep))).to.deep.equal(answer(await reference.zoneData(collection('mixed'), deep)));
    // The engine's medians are the row-by-row ones exactly (odd and even counts alike).
    const req = request('IVEA7H', 10, 50, 2, [2]);
    const s = await lake.zoneKeyStats(collection('mixed-zones'), { dggrsId: 'IVEA7H', level: 4, fields: [], medians: ['temperature'] });
    expect(s!.keys.length).to.be.greaterThan(10);
    const want = await reference.zoneData(collection('mixed'), req);
    const got = await workers.zoneData(collection('mixed-zones'), req);
    expect(got.depths[0]!.values.temperature_median).to.deep.equal(want.depths[0]!.values.temperature_median);
    expect(got.depths[0]!.values.temperature_count).to.deep.equal(want.depths[0]!.values.temperature_count);
  });

  it('bounds the values kept for medians alike on every path, refusing with 422 naming the bound', async () => {
    const req = request('IVEA7H', 10, 50, 2, [2]);
    const small = { maxMedianValues: 50 };
    for (const [what, source, id] of [
      ['rows', new LakeZoneDataSource(rowsOnly(lake), small), 'mixed'],
      ['plain columns', new LakeZoneDataSource(lake, small, pool), 'mixed'],
      ['stored keys', new LakeZoneDataSource(lake, small, pool), 'mixed-zones'],
    ] as const) {
      const err = await source.zoneData(collection(id), req).then(
        () => undefined,
        (e: unknown) => e as Error & { hint?: string },
      );
      expect(httpStatus(err), what).to.equal(422);
      expect(err?.hint, what).to.contain('limits.maxMedianValues').and.to.contain('50');
    }
  });

  it('serves the stored keys through the service (workers from the config), answering as the rows do', async () => {
    // The ingested mixed lake as the configured demo-stations collection.
    const served = mkdtempSync(path.join(tmpdir(), 'lake-fast-served-'));
    cpSync(path.join(root, 'mixed-zones'), path.join(served, 'demo-stations'), { recursive: true });
    const s = await startTestServer({ lake: { root: served, aggregationThreads: 2 } });
    try {
      const grid = grids.IVEA7H!;
      const zone = grid.zoneFromPoint(10, 50, 3);
      const res = await s.get(`/collections/demo-stations/dggs/IVEA7H/zones/${zone}/data?zone-depth=2&properties=temperature,pressure&cog-stat=count,min,max,median&f=json`);
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { values: Record<string, { data: (number | null)[] }[]> };
      const want = await reference.zoneData(collection('mixed'), { grid, zoneId: zone, depths: [2], fields: ['temperature', 'pressure'], options: { stats: ['count', 'min', 'max', 'median'] } });
      for (const [name, values] of Object.entries(want.depths[0]!.values)) expect(body.values[name]![0]!.data, name).to.deep.equal(values);
      // Zone columns are an index of the rows: not fields, not queryables.
      const q = (await (await s.get('/collections/demo-stations/queryables?f=json')).json()) as { properties: Record<string, unknown> };
      expect(Object.keys(q.properties)).to.include('temperature').and.not.to.include(zoneKeyColumnName('IVEA7H', 4));
    } finally {
      await s.close();
    }
  });

  it('keeps the event loop turning while hundreds of thousands of rows are binned (workers, and on this thread)', async function () {
    this.retries(HOLD_RERUNS);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const dir = path.join(root, 'many', 'data');
    mkdirSync(dir, { recursive: true });
    const geo = JSON.stringify({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: ['Point'], covering: { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } } } } });
    await c.run(`COPY (WITH p AS (SELECT i, 5 + ((i * 2654435761) % 1000003) / 1000003.0 * 10 AS x, 45 + ((i * 40503) % 999983) / 999983.0 * 10 AS y FROM range(0, 400000) t(i))
        SELECT (i % 97)::DOUBLE AS temperature, st_aswkb(CAST('POINT (' || x || ' ' || y || ')' AS GEOMETRY)) AS geometry, {'xmin': x, 'ymin': y, 'xmax': x, 'ymax': y} AS bbox FROM p)
      TO '${path.join(dir, 'a.parquet')}' (FORMAT parquet, KV_METADATA {geo: '${geo}'})`);
    c.closeSync();
    db.closeSync();
    const req = { grid: grids.IVEA7H!, zoneId: grids.IVEA7H!.zoneFromPoint(10, 50, 2), depths: [3], fields: ['temperature'], options: { stats: ['count', 'mean'] } };
    const answers: ZoneData[] = [];
    for (const source of [workers, here]) {
      const { result, tookMs, longestMs } = await loopHolds(() => source.zoneData(collection('many'), req), 5);
      answers.push(result);
      const binned = (answers.at(-1)!.depths[0]!.values.temperature_count as number[]).reduce((a, n) => a + n, 0);
      expect(binned, 'rows binned').to.be.greaterThan(100_000);
      expect(longestMs, `longest hold of the loop while ${tookMs.toFixed(0)} ms of binning`).to.be.below(100);
    }
    expect(answers[0]).to.deep.equal(answers[1]);
  });

  it('leaves no scratch files beside the rewritten ones', () => {
    for (const id of ['points-zones', 'mixed-zones']) expect(readdirSync(path.join(root, id, 'data'))).to.deep.equal(['a.parquet', 'b.parquet']);
  });
});
