import { expect } from 'chai';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, INTEGER, LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { GRID_FACTORIES } from '../../src/app/grid-factories.js';
import { decodeWkb } from '../../src/domain/geometry/wkb.js';
import { representativePoint } from '../../src/domain/geometry/representative-point.js';

type Json = Record<string, any>;

/**
 * A deterministic test lake as `demo-stations` under a private root: points, lines and
 * polygons, some null values, two files (one plain WKB BLOB, one GeoParquet with a bbox
 * covering). Expected values come from DuckDB GROUP BY over zone ids computed in the test.
 */
async function makeLake(c: DuckDBConnection, root: string): Promise<void> {
  const dir = path.join(root, 'demo-stations', 'data');
  mkdirSync(path.join(dir, 'b'), { recursive: true });
  await c.run(`CREATE TABLE rows AS
    SELECT i AS id,
      CASE WHEN i % 50 = 0 THEN NULL ELSE round(((i * 7919) % 4001) / 100.0 - 10, 2) END AS temperature,
      ((i * 104729) % 997)::INTEGER AS pressure,
      TIMESTAMP '2024-01-01 00:00:00' + to_hours((i % 240)::BIGINT) AS datetime,
      5 + ((i * 2654435761) % 100000) / 100000.0 * 10 AS x,
      45 + ((i * 40503) % 100000) / 100000.0 * 10 AS y
    FROM range(0, 6000) t(i)`);
  const wkt = `CASE WHEN id % 97 = 0 THEN 'POLYGON ((' || x || ' ' || y || ', ' || (x + 0.2) || ' ' || y || ', ' || (x + 0.2) || ' ' || (y + 0.1) || ', ' || x || ' ' || (y + 0.1) || ', ' || x || ' ' || y || '))'
    WHEN id % 89 = 0 THEN 'LINESTRING (' || x || ' ' || y || ', ' || (x + 0.3) || ' ' || (y + 0.05) || ')'
    ELSE 'POINT (' || x || ' ' || y || ')' END`;
  await c.run(`COPY (SELECT id, temperature, pressure, datetime, st_aswkb(CAST(${wkt} AS GEOMETRY)) AS geometry FROM rows WHERE id < 2500 ORDER BY id)
    TO '${path.join(dir, 'a.parquet')}' (FORMAT parquet)`);
  const geo = JSON.stringify({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: [], covering: { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } } } } });
  await c.run(`COPY (SELECT id, temperature, pressure, datetime, st_aswkb(CAST(${wkt} AS GEOMETRY)) AS geometry,
      {'xmin': x, 'ymin': y, 'xmax': x + CASE WHEN id % 97 = 0 THEN 0.2 WHEN id % 89 = 0 THEN 0.3 ELSE 0 END, 'ymax': y + CASE WHEN id % 97 = 0 THEN 0.1 WHEN id % 89 = 0 THEN 0.05 ELSE 0 END} AS bbox
    FROM rows WHERE id >= 2500 ORDER BY id) TO '${path.join(dir, 'b', 'c.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 500, KV_METADATA {geo: '${geo}'})`);
}

describe('zone data from the parquet lake', function () {
  this.timeout(120_000);
  let s: TestServer;
  let c: DuckDBConnection;
  const root = mkdtempSync(path.join(tmpdir(), 'lake-zd-'));

  before(async () => {
    const db = await DuckDBInstance.create(':memory:');
    c = await db.connect();
    await c.run(`SET TimeZone = 'UTC'`);
    await c.run('SET enable_geoparquet_conversion = false'); // WKB BLOB in both files
    await makeLake(c, root);
    s = await startTestServer({ lake: { root } });
  });
  after(async () => {
    await s?.close();
    c?.closeSync();
  });

  /** The API's values beside DuckDB's GROUP BY over zone ids computed for the same rows. */
  async function compare(gridId: string, lon: number, lat: number, level: number, depth: number, datetime?: [string, string]) {
    const grid = GRID_FACTORIES[gridId]!();
    const zone = grid.zoneFromPoint(lon, lat, level);
    const where = datetime ? `WHERE datetime BETWEEN TIMESTAMP '${datetime[0]}' AND TIMESTAMP '${datetime[1]}'` : '';
    const rows = (await c.runAndReadAll(`SELECT id, geometry AS g FROM read_parquet('${root}/demo-stations/data/**/*.parquet', union_by_name = true) ${where}`)).getRows();
    const subZones = new Set(grid.subZones(zone, depth));
    const ids: number[] = [];
    const zones: string[] = [];
    for (const [id, g] of rows) {
      const p = representativePoint(decodeWkb((g as { bytes: Uint8Array }).bytes))!;
      const z = grid.zoneFromPoint(p[0], p[1], level + depth);
      if (subZones.has(z)) {
        ids.push(Number(id));
        zones.push(z);
      }
    }
    expect(ids.length, 'rows in the zone').to.be.greaterThan(50);
    await c.run('CREATE OR REPLACE TABLE zoned AS SELECT unnest($1) AS id, unnest($2) AS zone', [listValue(ids), listValue(zones)], [LIST(INTEGER), LIST(VARCHAR)]);
    const expected = new Map(
      (
        await c.runAndReadAll(`SELECT zone, count(*) AS n, count(temperature) AS valid, min(temperature) AS mn, max(temperature) AS mx, avg(temperature) AS mean,
          stddev_pop(temperature) AS sd, avg(pressure) AS p FROM zoned JOIN read_parquet('${root}/demo-stations/data/**/*.parquet', union_by_name = true) USING (id) GROUP BY zone`)
      )
        .getRowObjectsJS()
        .map((r) => [String(r.zone), r]),
    );
    const q = `zone-depth=${depth}&cog-stat=count,valid,min,max,mean,stdDev&properties=temperature${datetime ? `&datetime=${datetime[0].replace(' ', 'T')}Z/${datetime[1].replace(' ', 'T')}Z` : ''}`;
    const r = await s.get(`/collections/demo-stations/dggs/${gridId}/zones/${zone}/data?${q}&f=json`);
    const body = (await r.json()) as Json;
    expect(r.status, JSON.stringify(body).slice(0, 400)).to.equal(200);
    const plain = await s.get(`/collections/demo-stations/dggs/${gridId}/zones/${zone}/data?zone-depth=${depth}&f=json${datetime ? `&datetime=${datetime[0].replace(' ', 'T')}Z/..` : ''}`);
    expect(plain.status).to.equal(200);
    const plainBody = (await plain.json()) as Json;
    expect(Object.keys(plainBody.values)).to.include.members(['temperature', 'pressure']);

    const values = body.values as Record<string, { depth: number; data: (number | null)[] }[]>;
    const zoneIds: string[] = body.zones[0].zoneIds;
    let seen = 0;
    zoneIds.forEach((z, i) => {
      const e = expected.get(z);
      const at = (name: string) => values[name]![0]!.data[i];
      if (!e) {
        expect(at('temperature_count'), z).to.equal(0);
        expect(at('temperature_mean'), z).to.equal(null);
        return;
      }
      seen += Number(e.n);
      expect(at('temperature_count'), z).to.equal(Number(e.n));
      expect(at('temperature_valid'), z).to.equal(Number(e.valid));
      if (Number(e.valid) === 0) return expect(at('temperature_mean')).to.equal(null);
      expect(at('temperature_min'), z).to.equal(e.mn);
      expect(at('temperature_max'), z).to.equal(e.mx);
      expect(at('temperature_mean') as number, z).to.be.closeTo(e.mean as number, 1e-9);
      expect(at('temperature_stdDev') as number, z).to.be.closeTo(e.sd as number, 1e-9);
    });
    expect(seen).to.equal(ids.length);
    return { zone, rows: ids.length };
  }

  it('aggregates per H3 sub-zone exactly as a GROUP BY over the same rows', async () => {
    await compare('H3', 10, 50, 3, 2);
  });

  it('aggregates per IVEA7H sub-zone, honouring datetime', async () => {
    await compare('IVEA7H', 10, 50, 4, 2, ['2024-01-03 00:00:00', '2024-01-07 12:00:00']);
  });

  it('offers the numeric lake columns as zone-data fields and refuses others', async () => {
    const grid = GRID_FACTORIES.H3!();
    const zone = grid.zoneFromPoint(10, 50, 3);
    const bad = await s.get(`/collections/demo-stations/dggs/H3/zones/${zone}/data?properties=datetime&f=json`);
    expect(bad.status).to.be.oneOf([400, 422]);
    const empty = await s.get(`/collections/demo-stations/dggs/H3/zones/${grid.zoneFromPoint(-60, -30, 3)}/data?f=json&cog-stat=count`);
    expect(empty.status).to.equal(200);
    const b = (await empty.json()) as Json;
    expect(b.values.temperature_count[0].data.every((n: number) => n === 0)).to.equal(true);
  });
});
