/**
 * A zone pyramid of the demo lake (data/demo/lake/demo-stations), computed here directly from its
 * rows and written into a ZonePyramidStore, for tests of what serves pyramids. Independent of the
 * ingest: DuckDB reads the rows (WKB points, the fields, the time), every row counts in the zone of
 * each level holding its point (the grid's zoneKeyFromPoint, as the lake's on-the-fly path), and
 * each cell's moments are built value by value with Welford's update.
 */
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { pointOfWkb } from '../../src/domain/aggregation/wkb-point.js';
import { addValue, emptyMoments } from '../../src/domain/aggregation/moments.js';
import { coarseKey, hasZoneKeys } from '../../src/domain/aggregation/pyramid-keys.js';
import { periodStart, type TimePeriod } from '../../src/domain/time-periods.js';
import type { Dggrs } from '../../src/domain/dggrs/dggrs.js';
import { ALL_TIME, type PyramidCell, type PyramidLayout, type ZonePyramidStore } from '../../src/ports/zone-pyramid-store.js';

export const DEMO_FIELDS = ['temperature', 'humidity', 'wind_speed'];

export interface DemoPyramid {
  table: string;
  grid: Dggrs;
  levels: number[];
  coarseLevel: number;
  period?: TimePeriod;
}

export interface DemoRow {
  lon: number;
  lat: number;
  values: number[];
  t: number | null;
}

const read = new Map<string, Promise<DemoRow[]>>();

/** Rows of the demo lake: point, field values (NaN when null), time (epoch ms); read once per lake root. */
export function demoRows(lakeRoot: string): Promise<DemoRow[]> {
  let rows = read.get(lakeRoot);
  if (!rows) read.set(lakeRoot, (rows = readRows(lakeRoot)));
  return rows;
}

async function readRows(lakeRoot: string): Promise<DemoRow[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`SET TimeZone = 'UTC'`);
    await c.run('SET enable_geoparquet_conversion = false');
    const glob = path.join(lakeRoot, 'demo-stations/data/**/*.parquet');
    const reader = await c.runAndReadAll(`SELECT geometry, ${DEMO_FIELDS.join(', ')}, epoch_ms(datetime) AS t FROM read_parquet('${glob}')`);
    return reader.getRows().flatMap((r) => {
      const g = r[0] as { bytes: Uint8Array } | null;
      const p = g ? pointOfWkb(g.bytes) : undefined;
      if (!p) return [];
      const values = DEMO_FIELDS.map((_, i) => (typeof r[i + 1] === 'number' ? (r[i + 1] as number) : NaN));
      const t = r[DEMO_FIELDS.length + 1];
      return [{ lon: p[0], lat: p[1], values, t: t === null || t === undefined ? null : Number(t) }];
    });
  } finally {
    c.closeSync();
  }
}

/** Writes the pyramid of the demo lake into `store` (one part) and publishes it; gives its layout. */
export async function writeDemoPyramid(store: ZonePyramidStore, lakeRoot: string, p: DemoPyramid): Promise<PyramidLayout> {
  const { grid } = p;
  if (!hasZoneKeys(grid)) throw new Error(`${grid.id} has no zone keys`);
  const rows = await demoRows(lakeRoot);
  const cells = new Map<string, PyramidCell>();
  const cellOf = (level: number, key: number, period: number): PyramidCell => {
    const id = `${level}/${key}/${period}`;
    let cell = cells.get(id);
    if (!cell) cells.set(id, (cell = { level, key, coarse: coarseKey(grid, level, key, p.coarseLevel), period, count: 0, fields: DEMO_FIELDS.map(emptyMoments) }));
    return cell;
  };
  let [west, south, east, north] = [Infinity, Infinity, -Infinity, -Infinity];
  let [first, last] = [Infinity, -Infinity];
  for (const r of rows) {
    [west, south, east, north] = [Math.min(west, r.lon), Math.min(south, r.lat), Math.max(east, r.lon), Math.max(north, r.lat)];
    if (r.t !== null) [first, last] = [Math.min(first, r.t), Math.max(last, r.t)];
    for (const level of p.levels) {
      const key = grid.zoneKeyFromPoint(r.lon, r.lat, level);
      if (Number.isNaN(key)) continue;
      const into = [cellOf(level, key, ALL_TIME), ...(p.period && r.t !== null ? [cellOf(level, key, periodStart(r.t, p.period))] : [])];
      for (const cell of into) {
        cell.count += 1;
        r.values.forEach((v, f) => addValue(cell.fields[f]!, v));
      }
    }
  }
  const ref = { table: p.table };
  const generation = await store.prepare(ref, { dggrsId: grid.id, levels: p.levels, coarseLevel: p.coarseLevel, fields: DEMO_FIELDS, ...(p.period ? { period: p.period } : {}) });
  await store.writePart(ref, generation, 'all', (async function* () {
    const all = [...cells.values()];
    for (let i = 0; i < all.length; i += 10_000) yield all.slice(i, i + 10_000);
  })());
  const layout: PyramidLayout = {
    dggrsId: grid.id,
    levels: p.levels,
    coarseLevel: p.coarseLevel,
    fields: DEMO_FIELDS,
    ...(p.period ? { period: p.period, timeExtent: [first, last] as [number, number] } : {}),
    bbox: [west, south, east, north],
    rows: rows.length,
    source: `demo-stations ${path.join(lakeRoot, 'demo-stations/data/**/*.parquet')}`,
    ingestedAt: new Date().toISOString(),
  };
  await store.publish(ref, generation, layout);
  return layout;
}
