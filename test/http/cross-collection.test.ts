import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { startTestServer, REPO_ROOT, type TestServer } from '../support/test-server.js';
import { dggsJsonValidator } from '../support/dggs-json-schema.js';
import { rfc7946Problems } from '../../src/domain/geometry/rfc7946.js';
import { joinZoneData, ZoneDataJoinError } from '../../src/domain/zone-data-join.js';
import type { ZoneData } from '../../src/domain/zone-data.js';
import { loadConfig } from '../../src/app/config/load-config.js';
import { buildContainer } from '../../src/app/container.js';
import { TOKENS } from '../../src/app/tokens.js';
import { ZoneDataService, type CrossCollectionSelection } from '../../src/app/zone-data/zone-data-service.js';
import { AppError } from '../../src/ports/errors.js';
import { LakeZoneDataSource } from '../../src/app/zone-data/lake-zone-data-source.js';
import { RasterUrlZoneDataSource } from '../../src/app/zone-data/raster-url-zone-data-source.js';
import type { ZoneDataSource } from '../../src/ports/zone-data-source.js';
import type { LakeReader } from '../../src/ports/lake-reader.js';
import type { RasterReader } from '../../src/ports/raster-reader.js';
import type { GridRegistry } from '../../src/ports/grid-registry.js';
import type { CollectionCatalog } from '../../src/ports/collection-catalog.js';
import { httpStatus } from '../support/http-status.js';

/**
 * The cross-collection POST over the demo collections: a lake (demo-stations), a fixed raster
 * (demo-elevation) and a STAC catalog (demo-ndvi), joined on zone id. Every joined column is
 * compared with the same collection's own GET for the same zone, depths and datetime.
 */
const ZONE = 'E4-120-A'; // IVEA7H level 4 over the Alps: stations, elevation and NDVI scenes
const POST = `/dggs/IVEA7H/zones/${ZONE}/data`;
const THREE = { collections: [{ id: 'demo-stations', fields: ['temperature', 'humidity'] }, { id: 'demo-elevation', fields: ['elevation'] }, { id: 'demo-ndvi', fields: ['ndvi'] }] };

type Json = Record<string, any>;
interface DggsJson {
  depths: number[];
  values: Record<string, { depth: number; shape: { count: number }; data: (number | null)[] }[]>;
  data: Record<string, Record<string, number | null>>;
  zones: { depth: number; zoneIds: string[] }[];
  schema: { properties: Record<string, Json> };
  links: { rel: string; href: string; title?: string; type?: string }[];
}

/** The published DGGS-JSON schema, its OpenAPI 3.0 `nullable` turned into 2020-12 types (as in zone-data.test.ts). */
describe('cross-collection zone data (POST)', function () {
  this.timeout(120_000);
  let s: TestServer;
  let conn: DuckDBConnection;
  let dir: string;
  before(async () => {
    s = await startTestServer();
    conn = await (await DuckDBInstance.create(':memory:')).connect();
    await conn.run('SET enable_geoparquet_conversion = false');
    dir = await mkdtemp(path.join(tmpdir(), 'cross-collection-'));
  });
  after(async () => {
    conn?.closeSync();
    await s?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const post = (body: unknown, query = '', headers: Record<string, string> = {}) =>
    fetch(`${s.base}${POST}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  async function postOk(body: unknown, query = ''): Promise<DggsJson> {
    const res = await post(body, query);
    const text = await res.text();
    expect(res.status, text.slice(0, 500)).to.equal(200);
    return JSON.parse(text) as DggsJson;
  }

  async function single(collection: string, query: string): Promise<DggsJson> {
    const res = await s.get(`/collections/${collection}/dggs/IVEA7H/zones/${ZONE}/data?f=json&${query}`);
    const text = await res.text();
    expect(res.status, text.slice(0, 500)).to.equal(200);
    return JSON.parse(text) as DggsJson;
  }

  /** Every joined column equals the field in its collection's own answer, zone by zone. */
  function expectColumn(joined: DggsJson, column: string, alone: DggsJson, field: string): void {
    expect(joined.values[column], column).to.be.an('array');
    joined.zones.forEach((z, k) => {
      const own = alone.zones.find((o) => o.depth === z.depth)!;
      const ownValues = alone.values[field]!.find((v) => v.depth === z.depth)!.data;
      const joinedValues = joined.values[column]!.find((v) => v.depth === z.depth)!.data;
      expect(joinedValues, `${column} depth ${z.depth}`).to.have.length(z.zoneIds.length);
      z.zoneIds.forEach((id, i) => {
        const j = own.zoneIds.indexOf(id);
        expect(j, `${id} in ${field}`).to.be.at.least(0);
        expect(joinedValues[i], `${column} at ${id}`).to.equal(ownValues[j]);
        expect(joined.data[id]![column], `data row ${id}`).to.equal(ownValues[j]);
        expect(joined.data[id]!.depth).to.equal(z.depth);
      });
      expect(k).to.be.below(joined.depths.length);
    });
  }

  it('joins a lake field, a raster field and a STAC field on zone id, each equal to its own GET', async () => {
    const joined = await postOk(THREE, '?zone-depth=0-1');
    expect(joined.depths).to.deep.equal([0, 1]);
    expect(Object.keys(joined.values)).to.deep.equal(['demo-stations__temperature', 'demo-stations__humidity', 'demo-elevation__elevation', 'demo-ndvi__ndvi']);
    expect(joined.zones.map((z) => z.zoneIds.length)).to.deep.equal([1, 13]);
    const stations = await single('demo-stations', 'zone-depth=0-1&properties=temperature,humidity');
    expectColumn(joined, 'demo-stations__temperature', stations, 'temperature');
    expectColumn(joined, 'demo-stations__humidity', stations, 'humidity');
    expectColumn(joined, 'demo-elevation__elevation', await single('demo-elevation', 'zone-depth=0-1'), 'elevation');
    expectColumn(joined, 'demo-ndvi__ndvi', await single('demo-ndvi', 'zone-depth=0-1'), 'ndvi');
    // The fixture is only a test if every source has values here, and the lake leaves some sub-zones empty.
    const depth1 = (c: string) => joined.values[c]!.find((v) => v.depth === 1)!.data;
    for (const c of Object.keys(joined.values)) expect(depth1(c).some((v) => v !== null), c).to.equal(true);
    expect(depth1('demo-stations__temperature').some((v) => v === null), 'an empty sub-zone').to.equal(true);
    expect(joined.schema.properties['demo-elevation__elevation']!.svc_unit).to.equal('m');
    const validate = dggsJsonValidator();
    expect(validate(joined), JSON.stringify(validate.errors)).to.equal(true);
    const sources = joined.links.filter((l) => l.rel === 'source').map((l) => l.title);
    expect(sources.some((t) => t?.startsWith('demo-stations: '))).to.equal(true);
    expect(sources.some((t) => t?.startsWith('demo-elevation: '))).to.equal(true);
    expect(sources.some((t) => t?.startsWith('demo-ndvi: STAC item'))).to.equal(true);
    for (const l of joined.links) expect(l.href, l.rel).to.match(/^(https?:|data\/)/);
    const self = joined.links.find((l) => l.rel === 'self')!;
    expect(self.href).to.contain(POST);
    const related = joined.links.filter((l) => l.rel === 'related');
    expect(related).to.have.length(3);
    // Each part's GET link gives that part alone.
    const viaLink = (await (await fetch(related[0]!.href.replace(/^http:\/\/[^/]+/, s.base))).json()) as DggsJson;
    expect(viaLink.values.temperature).to.deep.equal(stations.values.temperature);
  });

  it('applies datetime to each source with a time dimension: lake rows by their datetime, STAC scenes by date; the fixed raster ignores it', async () => {
    for (const datetime of ['2024-01-03T00:00:00Z/2024-01-05T23:59:59Z', '2024-06-01T00:00:00Z/2024-06-30T00:00:00Z']) {
      const q = `zone-depth=1&datetime=${encodeURIComponent(datetime)}`;
      const joined = await postOk(THREE, `?${q}`);
      expectColumn(joined, 'demo-stations__temperature', await single('demo-stations', `${q}&properties=temperature`), 'temperature');
      expectColumn(joined, 'demo-elevation__elevation', await single('demo-elevation', 'zone-depth=1'), 'elevation');
      expectColumn(joined, 'demo-ndvi__ndvi', await single('demo-ndvi', q), 'ndvi');
    }
    // January: stations have rows, no NDVI scene; June: a scene, no station rows.
    const jan = await postOk(THREE, `?zone-depth=1&datetime=${encodeURIComponent('2024-01-03T00:00:00Z/2024-01-05T23:59:59Z')}`);
    expect(jan.values['demo-ndvi__ndvi']![0]!.data.every((v) => v === null)).to.equal(true);
    expect(jan.values['demo-stations__temperature']![0]!.data.some((v) => v !== null)).to.equal(true);
    const june = await postOk(THREE, `?zone-depth=1&datetime=${encodeURIComponent('2024-06-01T00:00:00Z/2024-06-30T00:00:00Z')}`);
    expect(june.values['demo-stations__temperature']![0]!.data.every((v) => v === null)).to.equal(true);
    expect(june.values['demo-ndvi__ndvi']![0]!.data.some((v) => v !== null)).to.equal(true);
  });

  it('selects one collection twice under two aliases with two filters (CQL2-Text and CQL2-JSON)', async () => {
    const body = {
      collections: [
        { id: 'demo-stations', alias: 'warm', fields: ['temperature'], filter: 'temperature > 5' },
        { id: 'demo-stations', alias: 'cold', fields: ['temperature', 'wind_speed'], filter: { op: '<=', args: [{ property: 'temperature' }, 5] } },
      ],
    };
    const joined = await postOk(body, '?zone-depth=1');
    expect(Object.keys(joined.values)).to.deep.equal(['warm__temperature', 'cold__temperature', 'cold__wind_speed']);
    const w = joined.values.warm__temperature![0]!.data, c = joined.values.cold__temperature![0]!.data;
    expect(w.filter((v) => v !== null).length, 'warm means').to.be.greaterThan(0);
    expect(c.filter((v) => v !== null).length, 'cold means').to.be.greaterThan(0);
    for (const v of w) if (v !== null) expect(v).to.be.greaterThan(5);
    for (const v of c) if (v !== null) expect(v).to.be.at.most(5);
    // The unfiltered mean lies between the two filtered ones wherever both exist.
    const all = (await single('demo-stations', 'zone-depth=1&properties=temperature')).values.temperature![0]!.data;
    all.forEach((v, i) => {
      if (w[i] !== null && c[i] !== null) expect(v!).to.be.within(c[i]!, w[i]!);
    });
    // The body's filter restricts the rows; the GET's filter of the same text tests each sub-zone's
    // own (unfiltered) mean instead: that mean where it is above 5, null elsewhere.
    const perZone = (await single('demo-stations', `zone-depth=1&properties=temperature&filter=${encodeURIComponent('temperature > 5')}`)).values.temperature![0]!.data;
    expect(perZone).to.deep.equal(all.map((v) => (v !== null && v > 5 ? v : null)));
    expect(perZone.filter((v) => v !== null).length, 'sub-zones kept').to.be.greaterThan(0);
  });

  describe('every zone-data encoding of the joined table', () => {
    let ref: DggsJson;
    const columns = ['demo-stations__temperature', 'demo-stations__humidity', 'demo-elevation__elevation', 'demo-ndvi__ndvi'];
    before(async () => {
      ref = await postOk(THREE, '?zone-depth=1,2');
    });
    const rows = () => ref.zones.flatMap((z) => z.zoneIds.map((id, i) => ({ id, depth: z.depth, values: columns.map((c) => ref.values[c]!.find((v) => v.depth === z.depth)!.data[i]) })));

    it('DGGS-JSON by default, f=dggs+json and Accept: the same body; f=json as application/json', async () => {
      for (const [query, headers, type] of [
        ['?zone-depth=1,2', {}, /^application\/vnd\.ogc\.dggs\+json/],
        ['?zone-depth=1,2&f=dggs%2Bjson', {}, /^application\/vnd\.ogc\.dggs\+json/],
        ['?zone-depth=1,2', { accept: 'application/vnd.ogc.dggs+json' }, /^application\/vnd\.ogc\.dggs\+json/],
        ['?zone-depth=1,2&f=json', {}, /^application\/json/],
      ] as const) {
        const res = await post(THREE, query, headers);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(type);
        const body = (await res.json()) as DggsJson;
        expect(body.values).to.deep.equal(ref.values);
        expect(body.data).to.deep.equal(ref.data);
      }
    });

    it('GeoJSON: one valid RFC 7946 feature per sub-zone with every joined column', async () => {
      const res = await post(THREE, '?zone-depth=1,2&f=geo%2Bjson');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/geo\+json/);
      const fc = (await res.json()) as Json;
      const expected = rows();
      expect(fc.features).to.have.length(expected.length);
      fc.features.forEach((f: Json, i: number) => {
        expect(rfc7946Problems(f.geometry)).to.deep.equal([]);
        expect(f.properties.zone_id).to.equal(expected[i]!.id);
        expect(f.properties.depth).to.equal(expected[i]!.depth);
        expect(columns.map((c) => f.properties[c])).to.deep.equal(expected[i]!.values);
      });
      const refined = (await (await post(THREE, '?zone-depth=1&f=geo%2Bjson&refined-geometry=true')).json()) as Json;
      expect(refined.features[0].geometry.coordinates[0].length).to.be.greaterThan(fc.features[0].geometry.coordinates[0].length);
    });

    it('HTML: a table row per sub-zone with a column per joined field', async () => {
      const res = await post(THREE, '?zone-depth=1,2&f=html');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      const html = await res.text();
      const table = html.slice(html.indexOf('<table class="zone-data"'), html.indexOf('</table>'));
      expect((table.match(/<tr>/g) ?? []).length).to.equal(rows().length + 1);
      for (const c of columns) expect(table).to.include(`>${c}`);
      expect(html).to.include(`/dggs/IVEA7H/zones/${encodeURIComponent(ref.zones[0]!.zoneIds[0]!)}?f=html`);
    });

    for (const format of ['parquet', 'geoparquet'] as const) {
      it(`${format}: zone_id, depth and one DOUBLE per joined column, equal to the DGGS-JSON`, async () => {
        const res = await post(THREE, `?zone-depth=1,2&f=${format}`);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal(format === 'parquet' ? 'application/vnd.apache.parquet' : 'application/vnd.geo+parquet');
        const file = path.join(dir, `${format}.parquet`);
        await writeFile(file, Buffer.from(await res.arrayBuffer()));
        const got = (await conn.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)).getRowObjects();
        expect(Object.keys(got[0]!)).to.deep.equal(['zone_id', 'depth', ...columns, ...(format === 'geoparquet' ? ['geometry'] : [])]);
        const expected = rows();
        expect(got).to.have.length(expected.length);
        got.forEach((r, i) => {
          expect(r.zone_id).to.equal(expected[i]!.id);
          expect(r.depth).to.equal(expected[i]!.depth);
          expect(columns.map((c) => r[c])).to.deep.equal(expected[i]!.values);
        });
        const kv = new Map((await conn.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${file}')`)).getRowObjects().map((r) => [String(r.k), String(r.v)]));
        expect(kv.has('geo')).to.equal(format === 'geoparquet');
      });
    }
  });

  describe('errors', () => {
    const expectError = async (res: Response, status: number, hint?: RegExp) => {
      const text = await res.text();
      expect(res.status, text).to.equal(status);
      const body = JSON.parse(text) as { code: number; message: string; hint?: string };
      expect(body.code).to.equal(status);
      expect(body.message).to.be.a('string').and.not.empty;
      if (hint) expect(body.hint, text).to.match(hint);
      return body;
    };

    it('422 for an invalid body: empty collections or fields, wrong types, missing body, unknown members, one collection twice without distinct aliases', async () => {
      const bad: [unknown, RegExp][] = [
        [{ collections: [] }, /collections/],
        [{ collections: [{ id: 'demo-stations', fields: [] }] }, /fields/],
        [{ collections: [{ id: 'demo-stations' }] }, /fields/],
        [{ collections: [{ id: 'demo-stations', fields: 'temperature' }] }, /fields/],
        [{ collections: [{ id: 7, fields: ['temperature'] }] }, /id/],
        [{ collections: [{ id: 'demo-stations', fields: [3] }] }, /fields/],
        [{ collections: [{ id: 'demo-stations', fields: ['temperature', 'temperature'] }] }, /once/],
        [{ collections: [{ id: 'demo-stations', fields: ['temperature'], filter: 12 }] }, /filter/],
        [{ collections: [{ id: 'demo-stations', fields: ['temperature'], filter: { args: [] } }] }, /filter/],
        [{ collections: [{ id: 'demo-stations', fields: ['temperature'], colour: 'red' }] }, /colour|unrecognized/i],
        [{ collections: {} }, /collections/],
        [{}, /collections/],
        [[], /body/],
        [{ collections: [{ id: 'demo-stations', fields: ['temperature'] }, { id: 'demo-stations', fields: ['humidity'] }] }, /alias/],
        [{ collections: [{ id: 'demo-stations', alias: 'a', fields: ['temperature'] }, { id: 'demo-elevation', alias: 'a', fields: ['elevation'] }] }, /alias/],
        [{ collections: [{ id: 'demo-stations', fields: ['temperature'] }, { id: 'demo-elevation', alias: 'demo-stations', fields: ['elevation'] }] }, /prefix/],
        [{ collections: Array.from({ length: 17 }, (_, i) => ({ id: 'demo-stations', alias: `s${i}`, fields: ['temperature'] })) }, /collections/],
      ];
      for (const [body, hint] of bad) await expectError(await post(body), 422, hint);
      await expectError(await fetch(`${s.base}${POST}`, { method: 'POST' }), 422, /body/);
    });

    it('404 for an unknown collection, naming the selection', async () => {
      await expectError(await post({ collections: [{ id: 'demo-stations', fields: ['temperature'] }, { id: 'no-such', fields: ['x'] }] }), 404, /collections\[1\] \(no-such\)/);
    });

    it('400 for an unknown field, with the valid fields in the hint', async () => {
      const body = await expectError(await post({ collections: [{ id: 'demo-elevation', fields: ['elevation', 'height'] }] }), 400, /"height"/);
      expect(body.hint).to.contain('valid fields: elevation');
      const lake = await expectError(await post({ collections: [{ id: 'demo-stations', fields: ['station_id'] }] }), 400, /temperature/);
      expect(lake.hint).to.contain('collections[0] (demo-stations)');
    });

    it('400 for a filter on a collection that is not parquet-lake-backed', async () => {
      for (const id of ['demo-elevation', 'demo-ndvi']) {
        const field = id === 'demo-elevation' ? 'elevation' : 'ndvi';
        await expectError(await post({ collections: [{ id, fields: [field], filter: `${field} > 0` }] }), 400, /parquet-lake/);
      }
    });

    it('400 with a position for a bad CQL2 filter (text and JSON), and for unknown filter properties', async () => {
      await expectError(await post({ collections: [{ id: 'demo-stations', fields: ['temperature'], filter: 'temperature >' }] }), 400, /collections\[0\].*position \d+/);
      await expectError(await post({ collections: [{ id: 'demo-stations', fields: ['temperature'], filter: 'temperature > > 3' }] }), 400, /position \d+/);
      await expectError(await post({ collections: [{ id: 'demo-stations', fields: ['temperature'], filter: { op: '>', args: [{ property: 'temperature' }, { nonsense: true }] } }] }), 400, /\/args\/1/);
      await expectError(await post({ collections: [{ id: 'demo-stations', fields: ['temperature'], filter: 'altitude > 3' }] }), 400, /"altitude".*station_id/);
      // A type mismatch is found when the lake translates the filter; it names the selection too.
      await expectError(await post({ collections: [{ id: 'demo-elevation', fields: ['elevation'] }, { id: 'demo-stations', fields: ['temperature'], filter: "temperature = 'high'" }] }), 400, /collections\[1\] \(demo-stations\).*temperature/);
    });

    it('400 for properties, exclude-properties, cog-url (and filter) in the query', async () => {
      for (const q of ['properties=temperature', 'exclude-properties=humidity', 'cog-url=https%3A%2F%2Fexample.com%2Fa.tif', 'filter=temperature%3E1', 'properties=']) {
        await expectError(await post(THREE, `?${q}`), 400, /not accepted/);
      }
    });

    it('422 for a bad zone-depth, datetime or a request over the size bounds, naming the bound', async () => {
      await expectError(await post(THREE, '?zone-depth=x'), 422);
      await expectError(await post(THREE, '?zone-depth=9'), 422, /max_relative_depth/);
      await expectError(await post(THREE, '?datetime=yesterday'), 422);
      await expectError(await post(THREE, '?zone-depth=1-5&f=geo%2Bjson&refined-geometry=true'), 422, /limits\.maxGeometryVertices/);
      await expectError(await post({ collections: [{ id: 'demo-stations', fields: ['temperature', 'humidity', 'wind_speed'] }, { id: 'demo-elevation', fields: ['elevation'] }] }, '?zone-depth=6'), 422, /limits\.max(SubZones|ZoneDataValues)/);
    });

    it('404 for an unknown grid or zone; 406 for an unknown format; 415 for a non-JSON body', async () => {
      await expectError(await fetch(`${s.base}/dggs/NOPE/zones/${ZONE}/data`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(THREE) }), 404);
      await expectError(await fetch(`${s.base}/dggs/IVEA7H/zones/ZZ/data`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(THREE) }), 404);
      await expectError(await post(THREE, '?f=shapefile'), 406);
      const text = await fetch(`${s.base}${POST}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect(text.status).to.be.oneOf([400, 415]);
      expect(((await text.json()) as { code: number }).code).to.equal(text.status);
    });
  });

  it('the ad-hoc GET hint that advises a POST is true: the POST answers on that path', async () => {
    const get = await s.get(POST);
    expect(get.status).to.equal(400);
    expect(((await get.json()) as { hint: string }).hint).to.contain('POST');
    expect((await post({ collections: [{ id: 'demo-elevation', fields: ['elevation'] }] })).status).to.equal(200);
  });

  it('the OpenAPI document describes the POST body from the same schema, and its errors', async () => {
    const doc = (await (await s.get('/api/openapi.json')).json()) as Json;
    const op = doc.paths['/dggs/{dggrs_id}/zones/{zone_id}/data'].post;
    expect(op.operationId).to.equal('postCrossCollectionZoneData');
    expect(op.requestBody.required).to.equal(true);
    expect(op.requestBody.content['application/json'].schema.$ref).to.equal('#/components/schemas/CrossCollectionRequest');
    for (const status of ['200', '400', '404', '406', '422']) expect(op.responses, status).to.have.property(status);
    expect(Object.keys(op.responses['200'].content)).to.include.members(['application/vnd.ogc.dggs+json', 'application/json', 'application/geo+json', 'text/html', 'application/vnd.apache.parquet', 'application/vnd.geo+parquet']);
    expect(op.parameters.map((p: Json) => p.name)).to.have.members(['dggrs_id', 'zone_id', 'f', 'zone-depth', 'datetime', 'refined-geometry', 'profile', 'values-scale', 'values-offset']);
    const request = doc.components.schemas.CrossCollectionRequest;
    expect(request.required).to.deep.equal(['collections']);
    expect(request.properties.collections.minItems).to.equal(1);
    expect(request.properties.collections.maxItems).to.equal(16);
    const selection = doc.components.schemas.CollectionSelectionBody;
    expect(selection.required).to.have.members(['id', 'fields']);
    expect(selection.properties.fields.minItems).to.equal(1);
    const kinds = selection.properties.filter.anyOf as Json[];
    expect(kinds.map((k) => k.type)).to.have.members(['string', 'object', 'null']);
    expect(kinds.find((k) => k.type === 'object')!.required).to.deep.equal(['op', 'args']);
    expect(selection.additionalProperties).to.equal(false);
    // The documented example is a valid request.
    expect((await post(request.example, '?zone-depth=1')).status).to.equal(200);
  });

  it('declares the data-cql2-filter conformance class', async () => {
    const body = (await (await s.get('/conformance')).json()) as { conformsTo: string[] };
    expect(body.conformsTo).to.include('https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf/data-cql2-filter');
  });
});

describe('cross-collection use case: validation first, then concurrent reads', function () {
  this.timeout(60_000);
  const log: string[] = [];
  let service: ZoneDataService;
  let lake: LakeReader;

  /** The real source, with each read's start and end written to `log`. */
  function recorded(source: ZoneDataSource): ZoneDataSource {
    return {
      fields: (c) => source.fields(c),
      ...(source.filterQueryables ? { filterQueryables: (c: Parameters<NonNullable<ZoneDataSource['filterQueryables']>>[0]) => source.filterQueryables!(c) } : {}),
      zoneData: async (c, r) => {
        log.push(`start ${c.id}`);
        try {
          return await source.zoneData(c, r);
        } finally {
          log.push(`end ${c.id}`);
        }
      },
    };
  }

  before(() => {
    const config = loadConfig({ DGGS_CONFIG: path.join(REPO_ROOT, 'config/default.json') }, { server: { logLevel: 'silent' } });
    const container = buildContainer(config);
    lake = container.get<LakeReader>(TOKENS.LakeReader);
    const sources = {
      'parquet-lake': recorded(new LakeZoneDataSource(lake, config.limits)),
      'raster-url': recorded(new RasterUrlZoneDataSource(container.get<RasterReader>(TOKENS.RasterReader))),
    };
    service = new ZoneDataService(container.get<GridRegistry>(TOKENS.GridRegistry), container.get<CollectionCatalog>(TOKENS.CollectionCatalog), sources, undefined, config.limits);
  });
  after(async () => lake?.close());
  beforeEach(() => {
    log.length = 0;
  });

  const ask = (selections: CrossCollectionSelection[], zoneDepth = '1') => service.crossCollectionZoneData({ dggrsId: 'IVEA7H', zoneId: ZONE, zoneDepth, selections });
  const lakeSel: CrossCollectionSelection = { id: 'demo-stations', fields: ['temperature'] };

  it('reads no source when any selection of the body is invalid', async () => {
    const invalid: [CrossCollectionSelection[], number][] = [
      [[lakeSel, { id: 'demo-elevation', fields: ['height'] }], 400],
      [[lakeSel, { id: 'demo-elevation', fields: ['elevation'], filter: 'elevation > 1' }], 400],
      [[lakeSel, { id: 'demo-stations', alias: 'again', fields: ['temperature'], filter: 'temperature >' }], 400],
      [[lakeSel, { id: 'demo-stations', alias: 'again', fields: ['temperature'], filter: { op: '=', args: [{ property: 'nope' }, 1] } }], 400],
      [[lakeSel, { id: 'no-such', fields: ['x'] }], 404],
      [[lakeSel, { id: 'demo-stations', fields: ['humidity'] }], 422],
    ];
    for (const [selections, status] of invalid) {
      let err: unknown;
      try {
        await ask(selections);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(selections)).to.be.instanceOf(AppError);
      expect(httpStatus(err), JSON.stringify(selections)).to.equal(status);
    }
    let bound: unknown;
    try {
      await ask([lakeSel, { id: 'demo-elevation', fields: ['elevation'] }], '8');
    } catch (e) {
      bound = e;
    }
    expect(httpStatus(bound)).to.equal(422);
    expect(log, 'sources read').to.deep.equal([]);
  });

  it('reads the sources concurrently: every read starts before the first one ends', async () => {
    const data = await ask([lakeSel, { id: 'demo-elevation', fields: ['elevation'] }, { id: 'demo-stations', alias: 'windy', fields: ['wind_speed'], filter: 'wind_speed > 5' }]);
    expect(Object.keys(data.fields)).to.deep.equal(['demo-stations__temperature', 'demo-elevation__elevation', 'windy__wind_speed']);
    expect(log.slice(0, 3).every((l) => l.startsWith('start '))).to.equal(true);
    expect(log).to.have.length(6);
  });
});

describe('joinZoneData (domain)', () => {
  const part = (zones: string[], field: string, values: (number | null)[]): ZoneData => ({
    dggrsId: 'G',
    zoneId: 'Z',
    fields: { [field]: { title: field, type: 'number' } },
    depths: [{ depth: 1, zones, values: { [field]: values } }],
    sources: [{ href: 'x', title: field }],
  });

  it('keys rows on zone id: another order is realigned, a zone one part lacks gets null there', () => {
    const joined = joinZoneData('G', 'Z', [1], [
      { prefix: 'a', data: part(['z1', 'z2', 'z3'], 'f', [1, 2, 3]) },
      { prefix: 'b', data: part(['z3', 'z1', 'z4'], 'f', [30, 10, 40]) },
    ]);
    expect(joined.depths[0]!.zones).to.deep.equal(['z1', 'z2', 'z3', 'z4']);
    expect(joined.depths[0]!.values).to.deep.equal({ a__f: [1, 2, 3, null], b__f: [10, null, 30, 40] });
    expect(joined.sources.map((s) => s.title)).to.deep.equal(['a: f', 'b: f']);
  });

  it('refuses a column name twice and parts of another zone', () => {
    expect(() => joinZoneData('G', 'Z', [1], [{ prefix: 'a', data: part(['z1'], 'f', [1]) }, { prefix: 'a', data: part(['z1'], 'f', [1]) }])).to.throw(ZoneDataJoinError);
    expect(() => joinZoneData('G', 'Y', [1], [{ prefix: 'a', data: part(['z1'], 'f', [1]) }])).to.throw(ZoneDataJoinError);
  });
});
