import { expect } from 'chai';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, INTEGER, LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import { decodeWkb } from '../../src/domain/geometry/wkb.js';
import { representativePoint } from '../../src/domain/geometry/representative-point.js';
import { TOKENS } from '../../src/app/tokens.js';
import { subZonesBox } from '../../src/domain/aggregation/sub-zones-box.js';
import { runToEnd } from '../../src/domain/dggrs/dggrs.js';
import type { ZoneDataService } from '../../src/app/zone-data/zone-data-service.js';

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

  interface Compare {
    datetime?: [string, string];
    /** A CQL2-Text filter and the same predicate in DuckDB SQL, written independently. */
    filter?: { cql2: string; sql: string; lang?: 'cql2-text' | 'cql2-json' };
  }

  /** The API's values beside DuckDB's GROUP BY over zone ids computed for the same rows. */
  async function compare(gridId: string, lon: number, lat: number, level: number, depth: number, opts: Compare = {}) {
    const { datetime, filter } = opts;
    const grid = GRID_FACTORIES[gridId]!();
    const zone = grid.zoneFromPoint(lon, lat, level);
    const conditions = [
      ...(datetime ? [`datetime BETWEEN TIMESTAMP '${datetime[0]}' AND TIMESTAMP '${datetime[1]}'`] : []),
      ...(filter ? [`(${filter.sql})`] : []),
    ];
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
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
    expect(ids.length, 'rows in the zone').to.be.greaterThan(20);
    await c.run('CREATE OR REPLACE TABLE zoned AS SELECT unnest($1) AS id, unnest($2) AS zone', [listValue(ids), listValue(zones)], [LIST(INTEGER), LIST(VARCHAR)]);
    const expected = new Map(
      (
        await c.runAndReadAll(`SELECT zone, count(*) AS n, count(temperature) AS valid, min(temperature) AS mn, max(temperature) AS mx, avg(temperature) AS mean,
          stddev_pop(temperature) AS sd, median(temperature) AS med, avg(pressure) AS p FROM zoned JOIN read_parquet('${root}/demo-stations/data/**/*.parquet', union_by_name = true) USING (id) GROUP BY zone`)
      )
        .getRowObjectsJS()
        .map((r) => [String(r.zone), r]),
    );
    const filterQuery = filter ? `&filter=${encodeURIComponent(filter.cql2)}${filter.lang ? `&filter-lang=${filter.lang}` : ''}` : '';
    const q = `zone-depth=${depth}&cog-stat=count,valid,min,max,mean,stdDev,median&properties=temperature${datetime ? `&datetime=${datetime[0].replace(' ', 'T')}Z/${datetime[1].replace(' ', 'T')}Z` : ''}${filterQuery}`;
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
        expect(at('temperature_median'), z).to.equal(null);
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
      expect(at('temperature_median') as number, z).to.be.closeTo(e.med as number, 1e-9);
    });
    expect(seen).to.equal(ids.length);
    return { zone, rows: ids.length, body };
  }

  it('aggregates per H3 sub-zone exactly as a GROUP BY over the same rows', async () => {
    await compare('H3', 10, 50, 3, 2);
  });

  it('aggregates per IVEA7H sub-zone, honouring datetime', async () => {
    await compare('IVEA7H', 10, 50, 4, 2, { datetime: ['2024-01-03 00:00:00', '2024-01-07 12:00:00'] });
  });

  /** DGGS-JSON values of one field at the first depth. */
  const column = (body: Json, field: string): (number | null)[] => body.values[field][0].data;

  it('with a CQL2 filter, keeps exactly the sub-zones whose own values satisfy it and nulls the others (text, JSON, with datetime, with cog-stat)', async () => {
    // The unfiltered values are DuckDB's GROUP BY (checked by compare); the filter is then tested here on each sub-zone's own means.
    const cases = [
      { gridId: 'H3', level: 3, cql2: 'pressure > 300 AND (temperature < 15 OR temperature IS NULL)', pass: (t: number | null, p: number | null) => p !== null && p > 300 && (t === null || t < 15) },
      { gridId: 'IVEA7H', level: 4, lang: 'cql2-json', cql2: JSON.stringify({ op: 'between', args: [{ property: 'pressure' }, 400, 700] }), pass: (_t: number | null, p: number | null) => p !== null && p >= 400 && p <= 700 },
      { gridId: 'IVEA7H', level: 4, datetime: '2024-01-02T00:00:00Z/2024-01-09T00:00:00Z', cql2: 'temperature >= 0', pass: (t: number | null) => t !== null && t >= 0 },
    ];
    for (const k of cases) {
      const zone = GRID_FACTORIES[k.gridId]!().zoneFromPoint(10, 50, k.level);
      const when = k.datetime ? `&datetime=${encodeURIComponent(k.datetime)}` : '';
      const base = `/collections/demo-stations/dggs/${k.gridId}/zones/${zone}/data?zone-depth=2${when}&f=json`;
      const all = (await (await s.get(`${base}&properties=temperature,pressure`)).json()) as Json;
      const r = await s.get(`${base}&properties=temperature&filter=${encodeURIComponent(k.cql2)}${k.lang ? `&filter-lang=${k.lang}` : ''}`);
      const filtered = (await r.json()) as Json;
      expect(r.status, JSON.stringify(filtered).slice(0, 300)).to.equal(200);
      // Only the selected field is answered: pressure was read for the filter alone.
      expect(Object.keys(filtered.values)).to.deep.equal(['temperature']);
      const t = column(all, 'temperature'), p = column(all, 'pressure');
      const want = t.map((v, i) => (k.pass(v, p[i]!) ? v : null));
      expect(column(filtered, 'temperature'), k.cql2).to.deep.equal(want);
      const kept = t.filter((v, i) => k.pass(v, p[i]!)).length;
      expect(kept, `${k.cql2}: sub-zones kept`).to.be.greaterThan(0).and.below(t.length);
      // A vector representation leaves the other sub-zones out.
      const geo = (await (await s.get(`${base.replace('&f=json', '&f=geojson')}&properties=temperature&filter=${encodeURIComponent(k.cql2)}${k.lang ? `&filter-lang=${k.lang}` : ''}`)).json()) as Json;
      const zoneIds: string[] = all.zones[0].zoneIds;
      expect(geo.features.map((f: Json) => f.properties.zone_id)).to.deep.equal(zoneIds.filter((_, i) => k.pass(t[i]!, p[i]!)));
    }
    // With cog-stat the answer's columns are statistics; the filter still reads each field's own (mean) value.
    const zone = GRID_FACTORIES.H3!().zoneFromPoint(10, 50, 3);
    const base = `/collections/demo-stations/dggs/H3/zones/${zone}/data?zone-depth=2&f=json`;
    const mean = column((await (await s.get(`${base}&properties=temperature`)).json()) as Json, 'temperature');
    const max = column((await (await s.get(`${base}&properties=temperature&cog-stat=max`)).json()) as Json, 'temperature_max');
    const filteredMax = column((await (await s.get(`${base}&properties=temperature&cog-stat=max&filter=${encodeURIComponent('temperature > 2')}`)).json()) as Json, 'temperature_max');
    expect(filteredMax).to.deep.equal(max.map((v, i) => (mean[i] !== null && mean[i]! > 2 ? v : null)));
    expect(filteredMax.some((v) => v !== null)).to.equal(true);
  });

  it('refuses filters it cannot apply: bad CQL2 (with a position), unknown properties; a raster collection is filtered per sub-zone too', async () => {
    const zone = GRID_FACTORIES.H3!().zoneFromPoint(10, 50, 3);
    const rasterBase = `/collections/demo-elevation/dggs/H3/zones/${GRID_FACTORIES.H3!().zoneFromPoint(10, 46, 3)}/data?zone-depth=1&f=json`;
    const raster = await s.get(`${rasterBase}&filter=${encodeURIComponent('elevation > 1500')}`);
    expect(raster.status).to.equal(200);
    const elevation = column((await (await s.get(rasterBase)).json()) as Json, 'elevation');
    expect(column((await raster.json()) as Json, 'elevation')).to.deep.equal(elevation.map((v) => (v !== null && v > 1500 ? v : null)));
    const bad = await s.get(`/collections/demo-stations/dggs/H3/zones/${zone}/data?filter=${encodeURIComponent('pressure >> 3')}`);
    expect(bad.status).to.equal(400);
    expect(JSON.stringify(await bad.json())).to.match(/position \d+/);
    const unknown = await s.get(`/collections/demo-stations/dggs/H3/zones/${zone}/data?filter=${encodeURIComponent('altitude > 3')}`);
    expect(unknown.status).to.equal(400);
    expect(((await unknown.json()) as Json).hint).to.contain('"altitude"').and.to.contain('pressure').and.to.contain('geometry');
    // A row queryable without a zone value (the time of a row) is no zone-data field.
    const rowOnly = await s.get(`/collections/demo-stations/dggs/H3/zones/${zone}/data?filter=${encodeURIComponent("T_AFTER(datetime, TIMESTAMP('2024-01-05T00:00:00Z'))")}`);
    expect(rowOnly.status).to.equal(400);
    expect(((await rowOnly.json()) as Json).hint).to.contain('"datetime"').and.to.contain('/items');
    const lang = await s.get(`/collections/demo-stations/dggs/H3/zones/${zone}/data?filter=x&filter-lang=sql`);
    expect(lang.status).to.equal(422);
    // A number compared with a string is unknown: no sub-zone is kept, though the zone has values.
    const types = await s.get(`/collections/demo-stations/dggs/H3/zones/${zone}/data?f=json&filter=${encodeURIComponent("temperature = 'high'")}`);
    expect(types.status).to.equal(200);
    expect(column((await types.json()) as Json, 'temperature').every((v) => v === null)).to.equal(true);
    const unfiltered = column((await (await s.get(`/collections/demo-stations/dggs/H3/zones/${zone}/data?f=json`)).json()) as Json, 'temperature');
    expect(unfiltered.some((v) => v !== null), 'the unfiltered zone has temperatures').to.equal(true);
  });

  it('bounds the values a median keeps per request (limits.maxMedianValues), refusing beyond with 422', async () => {
    const grid = GRID_FACTORIES.H3!();
    const zone = grid.zoneFromPoint(10, 50, 3);
    const small = await startTestServer({ lake: { root }, limits: { maxMedianValues: 40 } });
    try {
      const refused = await small.get(`/collections/demo-stations/dggs/H3/zones/${zone}/data?zone-depth=2&cog-stat=median`);
      expect(refused.status).to.equal(422);
      const body = (await refused.json()) as Json;
      expect(body.code).to.equal(422);
      expect(body.hint).to.contain('limits.maxMedianValues').and.to.contain('40');
      // Other statistics stream: no bound applies to them.
      expect((await small.get(`/collections/demo-stations/dggs/H3/zones/${zone}/data?zone-depth=2&cog-stat=mean,stdDev`)).status).to.equal(200);
      // The service still answers after the refusal.
      expect((await small.get('/conformance')).status).to.equal(200);
    } finally {
      await small.close();
    }
  });

  /** The median of the non-null values. */
  const median = (values: (number | null)[]): number => {
    const sorted = values.filter((v): v is number => v !== null).sort((x, y) => x - y);
    return sorted[Math.floor(sorted.length / 2)]!;
  };

  /** Each zone's own values at its level: its zone data at depth 0 (the independent reading of a zone list's filter). */
  async function ownValues(gridId: string, zones: string[], fields: string, datetime = ''): Promise<Map<string, Json>> {
    const out = new Map<string, Json>();
    for (const z of zones) {
      const body = (await (await s.get(`/collections/demo-stations/dggs/${gridId}/zones/${z}/data?zone-depth=0&properties=${fields}&f=json${datetime}`)).json()) as Json;
      out.set(z, Object.fromEntries(Object.entries(body.values as Record<string, { data: (number | null)[] }[]>).map(([f, v]) => [f, v[0]!.data[0]])));
    }
    return out;
  }

  it('a zone query with a filter keeps exactly the zones whose own values satisfy it (parent zone and bbox, with datetime)', async () => {
    const service = s.app.container.get<ZoneDataService>(TOKENS.ZoneDataService);
    // Thresholds at the median of the zones' own values, so the filter keeps some zones and drops others.
    const cases = [
      { gridId: 'H3', parent: true, filter: (m: number) => `pressure > 600 AND temperature < ${m}`, pass: (v: Json, m: number) => v.pressure !== null && v.pressure > 600 && v.temperature !== null && v.temperature < m },
      { gridId: 'IVEA7H', parent: false, filter: (m: number) => `temperature >= ${m} OR pressure < 300`, pass: (v: Json, m: number) => (v.temperature !== null && v.temperature >= m) || (v.pressure !== null && v.pressure < 300) },
      { gridId: 'IVEA7H', parent: false, datetime: '2024-01-03T00:00:00Z/2024-01-04T00:00:00Z', filter: (m: number) => `temperature >= ${m}`, pass: (v: Json, m: number) => v.temperature !== null && v.temperature >= m },
    ];
    for (const k of cases) {
      const grid = GRID_FACTORIES[k.gridId]!();
      const parent = grid.zoneFromPoint(10, 50, 3);
      const level = 5;
      const bbox: [number, number, number, number] = [9, 49, 11, 51];
      const listing = k.parent ? grid.subZones(parent, 2) : grid.zonesInBBox(level, bbox);
      const own = await ownValues(k.gridId, listing, 'temperature,pressure', k.datetime ? `&datetime=${encodeURIComponent(k.datetime)}` : '');
      const m = median([...own.values()].map((v) => v.temperature));
      const filter = k.filter(m);
      const keep = await service.zoneQueryFilter('demo-stations', grid, level, k.parent ? { parent: { zoneId: parent, depth: 2 } } : { boxes: [bbox] }, { filter, ...(k.datetime ? { datetime: k.datetime } : {}) });
      const got = listing.filter(keep);
      expect(got, filter).to.deep.equal(listing.filter((z) => k.pass(own.get(z)!, m)));
      expect(got.length, 'zones kept').to.be.greaterThan(3);
      expect(got.length, `${filter}: the filter drops zones`).to.be.below(listing.length);
    }
  });

  it('GET zones with a filter lists exactly the zones whose own values satisfy it, paged, with the total', async () => {
    const grid = GRID_FACTORIES.H3!();
    const parent = grid.zoneFromPoint(10, 50, 3);
    const filter = 'pressure > 600 AND temperature < 5';
    const listing = grid.subZones(parent, 2);
    const own = await ownValues('H3', listing, 'temperature,pressure');
    const expected = listing.filter((z) => own.get(z)!.pressure > 600 && own.get(z)!.temperature !== null && own.get(z)!.temperature < 5);
    const base = `/collections/demo-stations/dggs/H3/zones?parent-zone=${parent}&zone-level=2&filter=${encodeURIComponent(filter)}`;
    const all = await s.get(base);
    expect(all.status).to.equal(200);
    expect(((await all.json()) as Json).zones).to.deep.equal(expected);
    expect(all.headers.get('ogc-zones-total')).to.equal(String(expected.length));
    const first = await s.get(`${base}&limit=3`);
    const body = (await first.json()) as Json;
    expect(body.zones).to.deep.equal(expected.slice(0, 3));
    const next = body.links.find((l: Json) => l.rel === 'next');
    expect(next.href).to.contain('filter=');
    const second = (await (await fetch(next.href.replace(/^http:\/\/[^/]+/, s.base))).json()) as Json;
    expect(second.zones).to.deep.equal(expected.slice(3, 6));
    // A bbox query, CQL2-JSON: the zones meeting the box whose own mean temperature is at least the median.
    const bbox = [9, 49, 11, 51] as [number, number, number, number];
    const inBox = (await (await s.get(`/collections/demo-stations/dggs/IVEA7H/zones?bbox=${bbox.join(',')}&zone-level=5`)).json()) as Json;
    const boxOwn = await ownValues('IVEA7H', inBox.zones, 'temperature');
    const m = median([...boxOwn.values()].map((v) => v.temperature));
    const json = JSON.stringify({ op: '>=', args: [{ property: 'temperature' }, m] });
    const res = await s.get(`/collections/demo-stations/dggs/IVEA7H/zones?bbox=${bbox.join(',')}&zone-level=5&filter-lang=cql2-json&filter=${encodeURIComponent(json)}`);
    expect(res.status).to.equal(200);
    const zones = ((await res.json()) as Json).zones as string[];
    expect(zones).to.deep.equal((inBox.zones as string[]).filter((z) => boxOwn.get(z)!.temperature !== null && boxOwn.get(z)!.temperature >= m));
    expect(zones.length).to.be.above(0).and.below(inBox.zones.length);
    // Errors: bad CQL2 (400 with a position), unknown property (400), filter on the bare grid route (400).
    const bad = await s.get(`/collections/demo-stations/dggs/H3/zones?parent-zone=${parent}&filter=${encodeURIComponent('pressure >')}`);
    expect(bad.status).to.equal(400);
    expect(JSON.stringify(await bad.json())).to.match(/position \d+/);
    expect((await s.get(`/collections/demo-stations/dggs/H3/zones?parent-zone=${parent}&filter=${encodeURIComponent('altitude > 1')}`)).status).to.equal(400);
    expect((await s.get(`/dggs/H3/zones?parent-zone=${parent}&filter=${encodeURIComponent('pressure > 1')}`)).status).to.equal(400);
    const conformance = (await (await s.get('/conformance')).json()) as { conformsTo: string[] };
    expect(conformance.conformsTo).to.include('https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf/zone-query-cql2-filter');
  });

  it('a zone query with datetime and a filter on geometry alone keeps only the zones holding a row in the interval', async () => {
    // The filter reads no field, so no value is computed: datetime must still restrict the list, as it does without a filter.
    const day = '2024-01-03T00:00:00Z/2024-01-03T02:59:59Z';
    const geometry = 'S_INTERSECTS(geometry, BBOX(9, 49, 10.2, 51))';
    const list = async (query: string): Promise<string[]> => {
      const r = await s.get(`/collections/demo-stations/dggs/IVEA7H/zones?bbox=9,49,11,51&zone-level=5&limit=10000&f=json${query}`);
      const body = (await r.json()) as Json;
      expect(r.status, JSON.stringify(body).slice(0, 300)).to.equal(200);
      return body.zones as string[];
    };
    const inArea = await list(`&filter=${encodeURIComponent(geometry)}`);
    expect(inArea.length, 'the geometry filter keeps part of the box').to.be.within(5, (await list('')).length - 1);
    // Rows of each zone in the interval, from its own zone data (pressure is never null: its count is the rows').
    const rows = new Map<string, number>();
    for (const z of inArea) {
      const body = (await (await s.get(`/collections/demo-stations/dggs/IVEA7H/zones/${z}/data?zone-depth=0&properties=pressure&cog-stat=count&f=json&datetime=${encodeURIComponent(day)}`)).json()) as Json;
      rows.set(z, body.values.pressure_count[0].data[0]);
    }
    const expected = inArea.filter((z) => rows.get(z)! > 0);
    expect(expected.length, 'some zones of the area have rows in those hours, some none').to.be.within(1, inArea.length - 1);
    expect(await list(`&datetime=${encodeURIComponent(day)}&filter=${encodeURIComponent(geometry)}`)).to.deep.equal(expected);
  });

  it('reads every sub-zone\'s rows: the prefilter box holds each sub-zone, also at the poles and over the antimeridian', async () => {
    let checked = 0;
    for (const id of ['IVEA7H', 'H3']) {
      const grid = GRID_FACTORIES[id]!();
      for (const [lon, lat] of [[0, 90], [0, -90], [10, 46], [180, 0], [-179.99, 10], [179.99, -30], [33, 89.9], [60, -65]] as const) {
        for (const level of [1, 4]) {
          const zone = grid.zoneFromPoint(lon, lat, level);
          for (const depths of [[1], [1, 2]]) {
            const [w, south, e, north] = runToEnd(subZonesBox(grid, zone, depths));
            for (const d of depths) {
              for (const sub of grid.subZones(zone, d)) {
                for (const [x0, y] of [...grid.zoneOutline(sub, false), grid.describeZone(sub).centroid]) {
                  const x = ((((x0 + 180) % 360) + 360) % 360) - 180;
                  const inLon = w <= e ? x >= w - 1e-9 && x <= e + 1e-9 : x >= w - 1e-9 || x <= e + 1e-9;
                  expect(inLon && y >= south - 1e-9 && y <= north + 1e-9, `${id} ${zone} depths ${depths}: ${sub} at ${x},${y} outside ${[w, south, e, north]}`).to.equal(true);
                }
                checked++;
              }
            }
          }
        }
      }
    }
    expect(checked).to.be.greaterThan(1000);
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
