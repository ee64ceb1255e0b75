import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';

/** A level-4 IVEA7H zone over the Alps, inside the demo raster. */
const ZONE = 'E4-120-A';
const DATA = `/collections/demo-elevation/dggs/IVEA7H/zones/${ZONE}/data`;

interface DggsJson {
  depths: number[];
  values: Record<string, { depth: number; data: (number | null)[] }[]>;
  zones: { depth: number; zoneIds: string[] }[];
}

describe('zone data as HTML, Parquet and GeoParquet; zone info statistics', function () {
  this.timeout(60_000);
  let s: TestServer;
  let dir: string;
  let conn: DuckDBConnection;
  let ref: DggsJson;
  before(async () => {
    s = await startTestServer();
    dir = await mkdtemp(path.join(tmpdir(), 'zone-data-formats-'));
    conn = await (await DuckDBInstance.create(':memory:')).connect();
    // Keep WKB as a BLOB: the test checks the bytes and metadata, not DuckDB's conversion.
    await conn.run('SET enable_geoparquet_conversion = false');
    ref = (await (await s.get(`${DATA}?zone-depth=1,2&f=dggs%2Bjson`)).json()) as DggsJson;
  });
  after(async () => {
    conn?.closeSync();
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  const total = () => ref.zones.reduce((n, z) => n + z.zoneIds.length, 0);

  it('HTML: one table row per sub-zone and depth, and a map with one path per deepest sub-zone', async () => {
    const res = await s.get(`${DATA}?zone-depth=1,2&f=html`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html = await res.text();
    const table = html.slice(html.indexOf('<table class="zone-data"'));
    const rows = table.slice(0, table.indexOf('</table>')).match(/<tr>/g) ?? [];
    expect(rows.length).to.equal(total() + 1); // + the header row
    for (const z of ref.zones) for (const id of z.zoneIds) expect(html).to.include(`>${id}</a>`);
    expect(html).to.include(`/collections/demo-elevation/dggs/IVEA7H/zones/${encodeURIComponent(ref.zones[1]!.zoneIds[0]!)}?f=html`);
    const svg = html.slice(html.indexOf('<svg class="map"'), html.indexOf('</svg>'));
    // Zone paths carry a choropleth class (a bin c0..c9, or cn for no value); the map's graticule is drawn apart.
    expect(svg.match(/<path class="c(\d|n)"/g) ?? []).to.have.length(ref.zones[1]!.zoneIds.length);
    expect(svg).to.match(/class="c\d"/);
    expect(html).to.include('f=parquet').and.to.include('f=geoparquet');
  });

  async function readBack(format: 'parquet' | 'geoparquet'): Promise<{ file: string; rows: Record<string, unknown>[]; kv: Map<string, string> }> {
    const res = await s.get(`${DATA}?zone-depth=1,2&f=${format}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal(format === 'parquet' ? 'application/vnd.apache.parquet' : 'application/vnd.geo+parquet');
    expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="[^"]+\.parquet"$/);
    const file = path.join(dir, `${format}.parquet`);
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    const reader = await conn.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
    const rows = reader.getRowObjects() as Record<string, unknown>[];
    const kvRows = (await conn.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${file}')`)).getRowObjects();
    return { file, rows, kv: new Map(kvRows.map((r) => [String(r.k), String(r.v)])) };
  }

  function expectSameValues(rows: Record<string, unknown>[]): void {
    expect(rows).to.have.length(total());
    let i = 0;
    for (const z of ref.zones) {
      const values = ref.values.elevation!.find((v) => v.depth === z.depth)!.data;
      z.zoneIds.forEach((id, k) => {
        const row = rows[i++]!;
        expect(row.zone_id).to.equal(id);
        expect(row.depth).to.equal(z.depth);
        expect(row.elevation).to.equal(values[k]);
      });
    }
  }

  it('Parquet: zone_id, depth and the field as DOUBLE, equal to the DGGS-JSON values', async () => {
    const { file, rows, kv } = await readBack('parquet');
    expectSameValues(rows);
    expect(Object.keys(rows[0]!)).to.deep.equal(['zone_id', 'depth', 'elevation']);
    const types = (await conn.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`)).getRowObjects();
    expect(types.find((t) => t.column_name === 'elevation')?.column_type).to.equal('DOUBLE');
    expect(kv.has('geo')).to.equal(false);
    expect(kv.get('dggrs')).to.equal('IVEA7H');
  });

  it('GeoParquet: adds WKB geometry with valid GeoParquet 1.1 geo metadata', async () => {
    const { rows, kv } = await readBack('geoparquet');
    expectSameValues(rows);
    const geo = JSON.parse(kv.get('geo')!) as { version: string; primary_column: string; columns: Record<string, { encoding: string; geometry_types: string[]; bbox?: number[] }> };
    expect(geo.version).to.equal('1.1.0');
    expect(geo.primary_column).to.equal('geometry');
    expect(geo.columns.geometry!.encoding).to.equal('WKB');
    expect(geo.columns.geometry!.geometry_types).to.be.an('array').that.is.not.empty;
    for (const t of geo.columns.geometry!.geometry_types) expect(['Polygon', 'MultiPolygon']).to.include(t);
    const [w, so, e, n] = geo.columns.geometry!.bbox!;
    expect(w! < e! && so! < n!).to.equal(true);
    const wkb = rows[0]!.geometry as { bytes: Uint8Array };
    const bytes = wkb.bytes ?? (wkb as unknown as Uint8Array);
    expect(bytes[0]).to.equal(1); // little-endian
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(1, true)).to.be.oneOf([3, 6]); // Polygon / MultiPolygon
  });

  it('zone info of a raster collection carries statistics of each field', async () => {
    const res = await s.get(`/collections/demo-elevation/dggs/IVEA7H/zones/${ZONE}`);
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { statistics?: Record<string, { average: number; minimum: number; maximum: number; stdDev: number | null }> };
    const e = body.statistics?.elevation;
    expect(e, JSON.stringify(body.statistics)).to.be.an('object');
    for (const v of [e!.average, e!.minimum, e!.maximum]) expect(Number.isFinite(v)).to.equal(true);
    expect(e!.minimum).to.be.at.most(e!.average);
    expect(e!.average).to.be.at.most(e!.maximum);
    if (e!.stdDev !== null) expect(e!.stdDev).to.be.at.least(0);
  });

  it('zone info of a collection without zone data still answers 200, without statistics', async () => {
    // An ogc-features collection: no zone-data source serves that backing, and the zone info
    // must not touch its (unreachable) server.
    const file = JSON.parse(await readFile(path.join(REPO_ROOT, 'config/default.json'), 'utf8')) as { collections: object[] };
    const other = await startTestServer({
      collections: [...file.collections, { id: 'no-zone-data', title: 'No zone data', backing: { kind: 'ogc-features', url: 'http://127.0.0.1:9/', collection: 'x' } }],
    });
    try {
      const res = await other.get(`/collections/no-zone-data/dggs/IVEA7H/zones/${ZONE}`);
      expect(res.status).to.equal(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.id).to.equal(ZONE);
      expect(body).to.not.have.property('statistics');
    } finally {
      await other.close();
    }
  });

  it('bare zone info has no statistics', async () => {
    const body = (await (await s.get(`/dggs/IVEA7H/zones/${ZONE}`)).json()) as Record<string, unknown>;
    expect(body).to.not.have.property('statistics');
  });
});
