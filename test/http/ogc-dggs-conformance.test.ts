/**
 * An abstract-test checker for OGC API - DGGS (OGC 21-038r1, Annex A): for every DGGS conformance
 * class `/conformance` declares, the abstract tests of that class run against the service on loopback,
 * starting from the landing page and following links as a client would. Where the contract keeps a
 * choice of its own (422 for invalid values, `compact-zones=true` refused, `zone-level` relative under
 * `parent-zone`, `exclude-properties` applied after `properties`), the test asserts that choice and
 * says so. A declared class without abstract tests here fails the first test.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decode as decodeUbjson } from '@shelacek/ubjson';
import { NetCDFReader } from 'netcdfjs';
import { SHARED, startTestServer, type TestServer } from '../support/test-server.js';
import { dggsJsonValidator } from '../support/dggs-json-schema.js';
import { expectDepthImage, expectZoneIdImage, readGeoTiff } from '../support/geotiff-check.js';
import { coverageJsonValidator } from '../support/coveragejson-schema.js';
import { TOKENS } from '../../src/app/tokens.js';
import type { Dggrs, GridRegistry } from '../../src/ports/grid-registry.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const DGGS = 'https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf';
const REL = 'https://www.opengis.net/def/rel/ogc/1.0';
const ATS = path.join(SHARED, 'ogc-dggs/ogcapi-discrete-global-grid-systems/core/sections/annex-a-ats.adoc');
/** A collection with a time axis and rows (lake), and a raster one. */
const LAKE = 'demo-stations';
const RASTER = 'demo-elevation';
const ALPS: [number, number] = [9.5, 46.5];
const NORTH_SEA_BOX = [-6, 50, 10, 60];

/** The abstract tests of each conformance class, as Annex A lists them. */
function abstractTests(): Map<string, string[]> {
  const text = readFileSync(ATS, 'utf8');
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    const cls = /^identifier:: (https:\/\/www\.opengis\.net\/spec\/ogcapi-dggs-1\/1\.0\/conf\/[\w-]+)$/.exec(line);
    if (cls) out.set(cls[1]!, (current = []));
    const test = /^abstract-test:: (\/conf\/[\w/-]+)$/.exec(line);
    if (test && current) current.push(test[1]!);
  }
  return out;
}

describe('OGC API - DGGS abstract tests (OGC 21-038r1 Annex A) of the declared classes', function () {
  this.timeout(120_000);
  let s: TestServer;
  let declared: Set<string>;
  let grids: GridRegistry;
  const implemented = new Set<string>();
  const validateDggsJson = dggsJsonValidator();

  before(async () => {
    s = await startTestServer();
    grids = s.app.container.get<GridRegistry>(TOKENS.GridRegistry);
    declared = new Set((await (await s.get('/conformance', { accept: 'application/json' })).json()).conformsTo as string[]);
  });
  after(() => s?.close());

  async function get(url: string, accept = 'application/json'): Promise<{ status: number; type: string; body: Json; bytes: Buffer; headers: Headers }> {
    const r = await fetch(url.startsWith('http') ? url : s.base + url, { headers: { accept } });
    const bytes = Buffer.from(await r.arrayBuffer());
    const type = r.headers.get('content-type') ?? '';
    let body: Json;
    if (/[/+]json\b/.test(type)) body = JSON.parse(bytes.toString('utf8'));
    return { status: r.status, type, body, bytes, headers: r.headers };
  }
  async function ok(url: string, accept = 'application/json'): Promise<Json> {
    const r = await get(url, accept);
    expect(r.status, `${url}: ${r.bytes.toString('utf8').slice(0, 300)}`).to.equal(200);
    return r.body;
  }
  const link = (body: Json, rel: string): Json => {
    const l = body.links.find((x: Json) => x.rel === rel);
    expect(l, `link ${rel}`).to.not.equal(undefined);
    return l;
  };
  const template = (body: Json, rel: string): string => {
    const t = body.linkTemplates?.find((x: Json) => x.rel === rel);
    expect(t, `link template ${rel}`).to.not.equal(undefined);
    return t.uriTemplate as string;
  };
  /** The abstract test `id` of class `cls`, run only when the class is declared. */
  function abstractTest(cls: string, id: string, fn: () => Promise<void>): void {
    implemented.add(id);
    it(`${id} (${cls})`, async function () {
      if (!declared.has(`${DGGS}/${cls}`)) {
        // The class is not declared: its abstract tests are not owed, and asserting that keeps this honest.
        expect([...declared]).to.not.include(`${DGGS}/${cls}`);
        return;
      }
      await fn();
    });
  }
  const grid = (id = 'IVEA7H'): Dggrs => grids.get(id)!;
  const zoneAt = (level: number, id = 'IVEA7H') => grid(id).zoneFromPoint(...ALPS, level);

  it('has abstract tests for every declared DGGS conformance class', () => {
    const ats = abstractTests();
    const dggs = [...declared].filter((c) => c.startsWith(DGGS));
    expect(dggs.length).to.be.greaterThan(5);
    for (const cls of dggs) {
      const tests = ats.get(cls);
      expect(tests, `${cls} is not a class of Annex A`).to.not.equal(undefined);
      for (const t of tests!) expect([...implemented], `${cls} declared, but its abstract test ${t} is not checked here`).to.include(t);
    }
  });

  // --- Core, Root DGGS, Collection DGGS ---------------------------------------------------------

  abstractTest('core', '/conf/core/dggrs-list', async () => {
    const landing = await ok('/');
    const list = await ok(link(landing, `${REL}/dggrs-list`).href);
    expect(list.dggrs).to.be.an('array').that.is.not.empty;
    expect(list.dggrs.map((g: Json) => g.id)).to.have.members(grids.list().map((g) => g.id));
    for (const g of list.dggrs) {
      expect(g).to.include.keys('id', 'title', 'uri', 'links');
      expect(link(g, 'self').href).to.match(new RegExp(`/dggs/${g.id}$`));
      expect(link(g, `${REL}/dggrs-definition`).href).to.equal(g.uri);
    }
  });

  abstractTest('core', '/conf/core/dggrs-description', async () => {
    for (const g of (await ok('/dggs')).dggrs) {
      const d = await ok(link(g, 'self').href);
      expect(d.id).to.equal(g.id);
      expect(link(d, 'self').href).to.match(new RegExp(`/dggs/${g.id}(\\?|$)`));
      expect(link(d, `${REL}/dggrs-definition`).href).to.be.a('string');
      expect(template(d, `${REL}/dggrs-zone-info`)).to.contain('{zoneId}');
      expect(d.uri).to.be.a('string');
      expect(d.crs).to.be.an('array').that.is.not.empty;
      expect(d.title).to.be.a('string').that.is.not.empty;
      expect(d.description).to.be.a('string').that.is.not.empty;
    }
  });

  abstractTest('core', '/conf/core/zone-info', async () => {
    for (const g of grids.list()) {
      const d = await ok(`/dggs/${g.id}`);
      const zone = g.zoneFromPoint(...ALPS, Math.min(3, g.maxRefinementLevel));
      const info = await ok(template(d, `${REL}/dggrs-zone-info`).replace('{zoneId}', encodeURIComponent(zone)));
      expect(info.id).to.equal(zone);
      expect(link(info, `${REL}/dggrs`).href).to.equal(link(d, 'self').href.replace(/\?.*$/, ''));
    }
  });

  abstractTest('root-dggs', '/conf/root-dggs/dggs', async () => {
    const landing = await ok('/');
    const list = await ok(link(landing, `${REL}/dggrs-list`).href);
    expect(link(landing, `${REL}/dggrs-list`).href).to.equal(`${s.base}/dggs`);
    expect(link(list, `${REL}/dataset`).href).to.equal(`${s.base}/`);
    expect(link(await ok('/dggs/IVEA7H'), `${REL}/dataset`).href).to.equal(`${s.base}/`);
    expect((await ok('/dggs/IVEA7H/zones?zone-level=1')).zones).to.be.an('array').that.is.not.empty;
  });

  abstractTest('collection-dggs', '/conf/collection-dggs/dggs', async () => {
    const c = await ok(`/collections/${RASTER}`);
    const list = await ok(link(c, `${REL}/dggrs-list`).href);
    expect(link(list, `${REL}/geodata`).href).to.equal(`${s.base}/collections/${RASTER}`);
    const d = await ok(link(list.dggrs[0], 'self').href);
    expect(link(d, `${REL}/geodata`).href).to.equal(`${s.base}/collections/${RASTER}`);
    expect(template(d, `${REL}/dggrs-zone-data`)).to.contain('{zoneId}');
  });

  // --- Data retrieval and its options --------------------------------------------------------------

  abstractTest('data-retrieval', '/conf/data-retrieval/zone-data', async () => {
    const d = await ok(`/collections/${RASTER}/dggs/IVEA7H`);
    const zone = zoneAt(4);
    const info = await ok(`/collections/${RASTER}/dggs/IVEA7H/zones/${zone}`);
    const url = template(d, `${REL}/dggrs-zone-data`).replace('{zoneId}', zone);
    expect(link(info, `${REL}/dggrs-zone-data`).href).to.equal(url);
    const data = await get(url, 'application/json');
    expect(data.status).to.equal(200);
    expect(data.type).to.match(/^application\/json/);
    expect(data.body.zoneId).to.equal(zone);
    // The default depth is the grid's, announced in the grid description.
    expect(d.default_depth).to.be.a('number');
    expect(data.body.depths).to.deep.equal([d.default_depth]);
    expect(data.body.values.elevation[0].data).to.have.length(grid().subZoneCount(zone, d.default_depth));
    // Content negotiation: the Accept header chooses among the encodings.
    expect((await get(url, 'application/geo+json')).type).to.match(/^application\/geo\+json/);
    expect((await get(url, 'application/vnd.ogc.dggs+json')).type).to.match(/^application\/vnd\.ogc\.dggs\+json/);
  });

  abstractTest('data-subsetting', '/conf/data-subsetting/subset', async () => {
    const zone = zoneAt(4);
    const base = `/collections/${LAKE}/dggs/IVEA7H/zones/${zone}/data?zone-depth=2`;
    const time = '"2024-01-05T00:00:00Z":"2024-01-09T00:00:00Z"';
    const bySubset = await ok(`${base}&subset=time(${encodeURIComponent(time)})`);
    const byDatetime = await ok(`${base}&datetime=2024-01-05T00:00:00Z/2024-01-09T00:00:00Z`);
    expect(bySubset.values).to.deep.equal(byDatetime.values);
    expect(bySubset.values).to.not.deep.equal((await ok(base)).values);
    // Axes of the DGGRS (Lat, Lon) and axes the data does not have are 400.
    for (const q of ['subset=Lat(45:47)', 'subset=Lon(5:10)', 'subset=pressure(500:700)', 'subset=h(0:100)']) {
      expect((await get(`${base}&${q}`)).status, q).to.equal(400);
    }
    expect((await get(`/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data?subset=time(${encodeURIComponent(time)})`)).status, 'time on data without a time axis').to.equal(400);
    // Repeated subset parameters read as one list (here: time twice is refused as one list would be).
    expect((await get(`${base}&subset=time(${encodeURIComponent(time)})&subset=time(${encodeURIComponent(time)})`)).status).to.equal(400);
  });

  abstractTest('data-subsetting', '/conf/data-subsetting/datetime', async () => {
    const zone = zoneAt(4);
    const base = `/collections/${LAKE}/dggs/IVEA7H/zones/${zone}/data?zone-depth=2&properties=temperature`;
    const count = (b: Json) => b.values.temperature[0].data.filter((v: number | null) => v !== null).length;
    const all = count(await ok(base));
    const instant = count(await ok(`${base}&datetime=2024-01-05T00:00:00Z`));
    const bounded = count(await ok(`${base}&datetime=2024-01-05T00:00:00Z/2024-01-06T00:00:00Z`));
    const openEnd = count(await ok(`${base}&datetime=2024-01-30T00:00:00Z/..`));
    const openStart = count(await ok(`${base}&datetime=../2024-01-02T00:00:00Z`));
    const emptyStart = count(await ok(`${base}&datetime=/2024-01-02T00:00:00Z`));
    expect(all).to.be.greaterThan(0);
    expect(instant).to.be.at.most(bounded);
    expect(bounded).to.be.at.most(all);
    expect(openEnd).to.be.at.most(all);
    expect(openStart).to.equal(emptyStart);
    expect((await ok(`${base}&datetime=2030-01-01T00:00:00Z/..`)).values.temperature[0].data.every((v: number | null) => v === null)).to.equal(true);
    // No time axis: the raster ignores datetime.
    const raster = `/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data?zone-depth=1`;
    expect((await ok(`${raster}&datetime=2024-01-05T00:00:00Z`)).values).to.deep.equal((await ok(raster)).values);
  });

  abstractTest('data-subsetting', '/conf/data-subsetting/properties', async () => {
    const zone = zoneAt(4);
    const base = `/collections/${LAKE}/dggs/IVEA7H/zones/${zone}/data?zone-depth=1`;
    const b = await ok(`${base}&properties=wind_speed,temperature`);
    expect(Object.keys(b.values)).to.deep.equal(['wind_speed', 'temperature']);
    expect(Object.keys(b.schema.properties)).to.deep.equal(['wind_speed', 'temperature']);
    expect((await get(`${base}&properties=nope`)).status).to.equal(400);
  });

  abstractTest('data-subsetting', '/conf/data-subsetting/exclude-properties', async () => {
    const zone = zoneAt(4);
    const base = `/collections/${LAKE}/dggs/IVEA7H/zones/${zone}/data?zone-depth=1`;
    const all = Object.keys((await ok(base)).values);
    const b = await ok(`${base}&exclude-properties=humidity`);
    expect(Object.keys(b.values)).to.deep.equal(all.filter((n) => n !== 'humidity'));
    expect((await get(`${base}&exclude-properties=nope`)).status).to.equal(400);
    // Contract choice: exclude-properties applies after properties (the ATS asks a 4xx for both).
    expect(Object.keys((await ok(`${base}&properties=temperature,humidity&exclude-properties=humidity`)).values)).to.deep.equal(['temperature']);
  });

  abstractTest('data-custom-depths', '/conf/data-custom-depths/zone-depth', async () => {
    const zone = zoneAt(3);
    const base = `/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data`;
    for (const [q, depths] of [['0', [0]], ['2', [2]], ['1-3', [1, 2, 3]], ['0,2', [0, 2]]] as const) {
      const b = await ok(`${base}?zone-depth=${q}`);
      expect(b.depths, q).to.deep.equal(depths);
      b.values.elevation.forEach((v: Json, i: number) => {
        expect(v.depth).to.equal(depths[i]);
        // Sub-zones of each depth are the DGGRS's own, in its order.
        expect(b.zones[i].zoneIds).to.deep.equal(grid().subZones(zone, depths[i]!));
        expect(v.data).to.have.length(grid().subZoneCount(zone, depths[i]!));
      });
    }
  });

  abstractTest('data-cql2-filter', '/conf/data-cql2-filter/filter', async () => {
    // The expression is read against each SUB-ZONE's data and geometry: a raster representation
    // (DGGS-JSON) has null where it is not true, a vector one (GeoJSON) only the features where it is.
    const cases = [
      { collection: LAKE, zone: grid().zoneFromPoint(7.6, 50.6, 2), field: 'temperature', filter: 'temperature > 1.7647', pass: (v: number | null) => v !== null && v > 1.7647 },
      { collection: RASTER, zone: zoneAt(3), field: 'elevation', filter: 'elevation < 1500', pass: (v: number | null) => v !== null && v < 1500 },
    ];
    for (const k of cases) {
      const base = `/collections/${k.collection}/dggs/IVEA7H/zones/${k.zone}/data?zone-depth=2&properties=${k.field}`;
      const all = await ok(base);
      const values = all.values[k.field][0].data as (number | null)[];
      const filtered = await ok(`${base}&filter=${encodeURIComponent(k.filter)}`);
      expect(filtered.values[k.field][0].data, k.filter).to.deep.equal(values.map((v) => (k.pass(v) ? v : null)));
      const kept = (all.zones[0].zoneIds as string[]).filter((_, i) => k.pass(values[i]!));
      expect(kept.length, `${k.filter}: some sub-zones kept, some not`).to.be.greaterThan(0).and.below(values.length);
      const geo = await ok(`${base}&filter=${encodeURIComponent(k.filter)}`, 'application/geo+json');
      expect(geo.features.map((f: Json) => f.properties.zone_id)).to.deep.equal(kept);
      // The geometry is the sub-zone's: a point literal keeps the one sub-zone holding it.
      const [lon, lat] = grid().describeZone(kept[0]!).centroid;
      const at = await ok(`${base}&filter=${encodeURIComponent(`S_INTERSECTS(geometry, POINT(${lon} ${lat})) AND ${k.filter}`)}`, 'application/geo+json');
      expect(at.features.map((f: Json) => f.properties.zone_id)).to.deep.equal([kept[0]]);
      // The queryables linked from the collection (the origin of its DGGRS resources) name the field and geometry.
      const c = await ok(`/collections/${k.collection}`);
      const queryables = c.links.find((l: Json) => /\/def\/rel\/ogc\/1\.0\/queryables$/.test(l.rel));
      expect(queryables, 'queryables link').to.not.equal(undefined);
      const q = await ok(queryables.href);
      expect(Object.keys(q.properties)).to.include.members([k.field, 'geometry']);
    }
  });

  // --- Zone query ---------------------------------------------------------------------------------

  abstractTest('zone-query', '/conf/zone-query/zones-list', async () => {
    const d = await ok('/dggs/IVEA7H');
    const url = link(d, `${REL}/dggrs-zone-query`).href;
    const r = await get(`${url}?zone-level=2`);
    expect(r.status).to.equal(200);
    expect(r.type).to.match(/^application\/json/);
    expect(new Set(r.body.zones.map((z: string) => grid().zoneLevel(z)))).to.deep.equal(new Set([2]));
    expect(new Set(r.body.zones).size).to.equal(r.body.zones.length);
    // On a collection: zones covering where its data is.
    const c = await ok(`/collections/${RASTER}/dggs/IVEA7H/zones?zone-level=4`);
    const extent = [5, 44, 16, 48];
    expect(c.zones).to.include(zoneAt(4));
    for (const z of c.zones) {
      const [w, so, e, n] = grid().describeZone(z).bbox;
      expect(w <= extent[2]! && e >= extent[0]! && so <= extent[3]! && n >= extent[1]!, z).to.equal(true);
    }
    expect((await get(`${url}?zone-level=2`, 'application/geo+json')).type).to.match(/^application\/geo\+json/);
  });

  abstractTest('zone-query', '/conf/zone-query/json-response', async () => {
    const b = await ok('/dggs/IVEA7H/zones?zone-level=1', 'application/json');
    expect(b.zones).to.be.an('array');
    for (const z of b.zones) expect(z).to.be.a('string');
    expect(b.returnedAreaMetersSquare).to.be.a('number');
    expect(link(b, `${REL}/dggrs`).href).to.equal(`${s.base}/dggs/IVEA7H`);
    expect(link(b, `${REL}/dggrs-definition`).href).to.equal(grid().uri);
  });

  abstractTest('zone-query', '/conf/zone-query/zone-level', async () => {
    for (const level of [0, 3, 5]) {
      const b = await ok(`/dggs/IVEA7H/zones?zone-level=${level}&bbox=${NORTH_SEA_BOX.join(',')}&compact-zones=false`);
      expect(b.zones).to.not.be.empty;
      for (const z of b.zones) expect(grid().zoneLevel(z)).to.equal(level);
    }
  });

  abstractTest('zone-query', '/conf/zone-query/compact-zones', async () => {
    const q = `/dggs/IVEA7H/zones?zone-level=3&bbox=${NORTH_SEA_BOX.join(',')}`;
    const plain = await ok(`${q}&compact-zones=false`);
    expect(plain.zones).to.deep.equal(grid().zonesInBBox(3, NORTH_SEA_BOX as [number, number, number, number]));
    // Contract choice: lists are never compacted; compact-zones=true is refused with 400 (and the default is the plain list).
    expect((await get(`${q}&compact-zones=true`)).status).to.equal(400);
    expect((await ok(q)).zones).to.deep.equal(plain.zones);
  });

  abstractTest('zone-query', '/conf/zone-query/parent-zone', async () => {
    const parent = zoneAt(2);
    // Contract choice: under parent-zone, zone-level is the depth below the parent.
    const b = await ok(`/dggs/IVEA7H/zones?parent-zone=${parent}&zone-level=2`);
    expect(b.zones).to.deep.equal(grid().subZones(parent, 2));
    const mine = new Set(grid().subZones(parent, 2));
    for (const z of b.zones) expect(mine.has(z)).to.equal(true);
  });

  abstractTest('zone-query', '/conf/zone-query/bbox', async () => {
    const box = [5, 44, 16, 48];
    const two = await ok(`/dggs/IVEA7H/zones?zone-level=4&bbox=${box.join(',')}`);
    const three = await ok(`/dggs/IVEA7H/zones?zone-level=4&bbox=${[box[0], box[1], -100, box[2], box[3], 4000].join(',')}`);
    expect(three.zones).to.deep.equal(two.zones);
    for (const z of two.zones) {
      const [w, so, e, n] = grid().describeZone(z).bbox;
      expect(w <= box[2]! && e >= box[0]! && so <= box[3]! && n >= box[1]!, z).to.equal(true);
    }
    // Inside the box, every zone is listed.
    expect(two.zones).to.include(zoneAt(4));
    // A collection's own extent: the box within it.
    expect((await ok(`/collections/${RASTER}/dggs/IVEA7H/zones?zone-level=4&bbox=${box.join(',')}`)).zones).to.deep.equal(two.zones);
  });

  abstractTest('zone-query', '/conf/zone-query/bbox-crs', async () => {
    const box = [5, 44, 16, 48].join(',');
    const want = (await ok(`/collections/${RASTER}/dggs/IVEA7H/zones?zone-level=4&bbox=${box}`)).zones;
    for (const crs of ['http://www.opengis.net/def/crs/OGC/1.3/CRS84', 'https://www.opengis.net/def/crs/OGC/1.3/CRS84', '[OGC:CRS84]']) {
      expect((await ok(`/collections/${RASTER}/dggs/IVEA7H/zones?zone-level=4&bbox=${box}&bbox-crs=${encodeURIComponent(crs)}`)).zones, crs).to.deep.equal(want);
    }
    const other = await get(`/dggs/IVEA7H/zones?zone-level=4&bbox=${box}&bbox-crs=${encodeURIComponent('http://www.opengis.net/def/crs/EPSG/0/3857')}`);
    expect(other.status).to.equal(400);
    expect(other.body.hint).to.contain('CRS84');
    // Without bbox, bbox-crs is ignored.
    expect((await ok(`/dggs/IVEA7H/zones?zone-level=1&bbox-crs=EPSG:3857`)).zones).to.deep.equal((await ok('/dggs/IVEA7H/zones?zone-level=1')).zones);
  });

  abstractTest('zone-query', '/conf/zone-query/subset', async () => {
    const box = (await ok(`/collections/${RASTER}/dggs/IVEA7H/zones?zone-level=4&bbox=5,44,16,48`)).zones;
    const base = `/collections/${RASTER}/dggs/IVEA7H/zones?zone-level=4`;
    expect((await ok(`${base}&subset=Lat(44:48),Lon(5:16)`)).zones).to.deep.equal(box);
    expect((await ok(`${base}&subset=Lon(5:16)&subset=Lat(44:48)`)).zones, 'repeated subset').to.deep.equal(box);
    expect((await ok(`${base}&subset=Latitude(44:48),Long(5:16)`)).zones, 'axis synonyms').to.deep.equal(box);
    // Low above high on Lon crosses the antimeridian.
    const wrap = await ok(`/dggs/IVEA7H/zones?zone-level=2&subset=Lat(-10:10),Lon(170:-170)`);
    expect(wrap.zones).to.deep.equal((await ok('/dggs/IVEA7H/zones?zone-level=2&bbox=170,-10,-170,10')).zones);
    // Open ends.
    expect((await ok(`/dggs/IVEA7H/zones?zone-level=1&subset=Lat(*:*)`)).zones).to.deep.equal((await ok('/dggs/IVEA7H/zones?zone-level=1')).zones);
    // Time on a dataset with a time axis: zones with data in it.
    const lake = `/collections/${LAKE}/dggs/IVEA7H/zones?zone-level=4`;
    const t = encodeURIComponent('"2024-01-05T00:00:00Z":"2024-01-05T01:00:00Z"');
    expect((await ok(`${lake}&subset=time(${t})`)).zones).to.deep.equal((await ok(`${lake}&datetime=2024-01-05T00:00:00Z/2024-01-05T01:00:00Z`)).zones);
    // Unknown axes, and a spatial subset with bbox, are 400.
    for (const q of ['subset=h(0:100)', 'subset=pressure(1:2)', 'subset=time(1:2)', 'subset=Lat(40:50)&bbox=0,40,10,50', 'subset=Lat(40:50', 'subset=Lat(50:40)']) {
      expect((await get(`/dggs/IVEA7H/zones?zone-level=2&${q}`)).status, q).to.equal(400);
    }
  });

  abstractTest('zone-query', '/conf/zone-query/subset-crs', async () => {
    const base = `/collections/${RASTER}/dggs/IVEA7H/zones?zone-level=4&subset=Lat(44:48),Lon(5:16)`;
    const want = (await ok(base)).zones;
    for (const crs of ['http://www.opengis.net/def/crs/OGC/1.3/CRS84', '[OGC:CRS84]']) {
      expect((await ok(`${base}&subset-crs=${encodeURIComponent(crs)}`)).zones, crs).to.deep.equal(want);
    }
    expect((await get(`${base}&subset-crs=${encodeURIComponent('http://www.opengis.net/def/crs/EPSG/0/4326')}`)).status).to.equal(400);
    // Without a Lat/Lon subset, subset-crs is ignored.
    expect((await ok('/dggs/IVEA7H/zones?zone-level=1&subset-crs=EPSG:3857')).zones).to.deep.equal((await ok('/dggs/IVEA7H/zones?zone-level=1')).zones);
  });

  abstractTest('zone-query', '/conf/zone-query/datetime', async () => {
    const lake = `/collections/${LAKE}/dggs/IVEA7H/zones?zone-level=4`;
    const all = (await ok(lake)).zones as string[];
    const hour = (await ok(`${lake}&datetime=2024-01-05T00:00:00Z/2024-01-05T01:00:00Z`)).zones as string[];
    const instant = (await ok(`${lake}&datetime=2024-01-05T00:00:00Z`)).zones as string[];
    expect(hour).to.not.be.empty;
    expect(hour.length).to.be.below(all.length);
    for (const z of instant) expect(hour).to.include(z);
    // Unbounded at the start or the end: `..` or an empty string.
    const fromLast = (await ok(`${lake}&datetime=2024-01-31T00:00:00Z/..`)).zones as string[];
    expect(fromLast).to.not.be.empty;
    expect((await ok(`${lake}&datetime=2024-01-31T00:00:00Z/`)).zones).to.deep.equal(fromLast);
    const untilFirst = (await ok(`${lake}&datetime=../2024-01-01T00:30:00Z`)).zones as string[];
    expect(untilFirst).to.not.be.empty;
    expect((await ok(`${lake}&datetime=/2024-01-01T00:30:00Z`)).zones).to.deep.equal(untilFirst);
    expect((await ok(`${lake}&datetime=2030-01-01T00:00:00Z/..`)).zones).to.deep.equal([]);
    // Unbounded at both ends, or empty: no time restriction, on zone lists, zone data and items alike.
    for (const open of ['', '../..', '/..', '../', '/']) {
      expect((await ok(`${lake}&datetime=${open}`)).zones, open).to.deep.equal(all);
      const data = `/collections/${LAKE}/dggs/IVEA7H/zones/E2-2A-A/data?zone-depth=1&properties=temperature`;
      expect((await ok(`${data}&datetime=${open}`)).values, `zone data ${open}`).to.deep.equal((await ok(data)).values);
      expect((await ok(`/collections/${LAKE}/items?limit=1&datetime=${open}`)).numberMatched, `items ${open}`).to.equal((await ok(`/collections/${LAKE}/items?limit=1`)).numberMatched);
    }
    // Each zone listed for the hour holds a row of that hour.
    const z = hour[0]!;
    const data = await ok(`/collections/${LAKE}/dggs/IVEA7H/zones/${z}/data?zone-depth=0&properties=temperature&cog-stat=count&datetime=2024-01-05T00:00:00Z/2024-01-05T01:00:00Z`);
    expect(data.values.temperature_count[0].data[0]).to.be.greaterThan(0);
    // No time axis: ignored; an invalid datetime is 400.
    expect((await ok('/dggs/IVEA7H/zones?zone-level=1&datetime=2024-01-05T00:00:00Z')).zones).to.deep.equal((await ok('/dggs/IVEA7H/zones?zone-level=1')).zones);
    expect((await ok('/dggs/IVEA7H/zones?zone-level=1&datetime=')).zones).to.deep.equal((await ok('/dggs/IVEA7H/zones?zone-level=1')).zones);
    for (const bad of ['yesterday', '2024-02-30', '2024-01-05T00:00:00Z/2024-01-01T00:00:00Z', '2024-01-05T00:00:00Z/../..', '..']) {
      expect((await get(`${lake}&datetime=${bad}`)).status, bad).to.equal(400);
    }
  });

  abstractTest('zone-query-cql2-filter', '/conf/zone-query-cql2-filter/filter', async () => {
    // The listed zones are those whose OWN data (their zone data at depth 0) and geometry satisfy the expression.
    const cases = [
      { collection: LAKE, parent: grid().zoneFromPoint(7.6, 50.6, 2), field: 'temperature', filter: 'temperature > 1.7647', pass: (v: number | null) => v !== null && v > 1.7647 },
      { collection: RASTER, parent: zoneAt(2), field: 'elevation', filter: 'elevation >= 1200', pass: (v: number | null) => v !== null && v >= 1200 },
    ];
    for (const k of cases) {
      const list = `/collections/${k.collection}/dggs/IVEA7H/zones?parent-zone=${k.parent}&zone-level=2&limit=1000`;
      const all = (await ok(list)).zones as string[];
      const own = new Map<string, number | null>();
      for (const z of all) own.set(z, (await ok(`/collections/${k.collection}/dggs/IVEA7H/zones/${z}/data?zone-depth=0&properties=${k.field}`)).values[k.field][0].data[0]);
      const want = all.filter((z) => k.pass(own.get(z)!));
      expect(want.length, `${k.filter}: some zones kept, some not`).to.be.greaterThan(0).and.below(all.length);
      expect((await ok(`${list}&filter=${encodeURIComponent(k.filter)}`)).zones, k.filter).to.deep.equal(want);
      // Geometry: the zone's own outline.
      const [lon, lat] = grid().describeZone(want[0]!).centroid;
      expect((await ok(`${list}&filter=${encodeURIComponent(`S_INTERSECTS(geometry, POINT(${lon} ${lat})) AND ${k.filter}`)}`)).zones).to.deep.equal([want[0]]);
    }
    // The case that once failed: a zone listed for rows above the threshold while its own temperature is below.
    const listed = (await ok(`/collections/${LAKE}/dggs/IVEA7H/zones?zone-level=4&bbox=${NORTH_SEA_BOX.join(',')}&filter=${encodeURIComponent('temperature > 1.7647')}`)).zones as string[];
    expect(listed).to.not.be.empty;
    for (const z of listed.slice(0, 20)) {
      expect((await ok(`/collections/${LAKE}/dggs/IVEA7H/zones/${z}/data?zone-depth=0&properties=temperature`)).values.temperature[0].data[0], z).to.be.above(1.7647);
    }
  });

  // --- Operation ids ----------------------------------------------------------------------------

  abstractTest('operation-ids', '/conf/operation-ids/operation-ids', async () => {
    const doc = await ok('/api/openapi.json');
    const ids = new Map<string, string>();
    for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) if (item.get?.operationId) ids.set(p, item.get.operationId);
    for (const [origin, prefix] of [['.dataset', ''], ['.collection', '/collections/{collection_id}']] as const) {
      expect(ids.get(`${prefix}/dggs`)).to.equal(`${origin}.getDGGRSList`);
      expect(ids.get(`${prefix}/dggs/{dggrs_id}`)).to.equal(`${origin}.getDGGRS`);
      expect(ids.get(`${prefix}/dggs/{dggrs_id}/zones`)).to.equal(`${origin}.getDGGRSZones`);
      expect(ids.get(`${prefix}/dggs/{dggrs_id}/zones/{zone_id}`)).to.equal(`${origin}.getDGGRSZoneInfo`);
      expect(ids.get(`${prefix}/dggs/{dggrs_id}/zones/{zone_id}/data`)).to.equal(`${origin}.getDGGRSZoneData`);
    }
  });

  // --- Encodings ----------------------------------------------------------------------------------

  abstractTest('data-json', '/conf/data-json/content', async () => {
    const zone = zoneAt(3);
    const r = await get(`/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data?zone-depth=0-2`, 'application/json');
    expect(r.status).to.equal(200);
    expect(validateDggsJson(r.body), JSON.stringify(validateDggsJson.errors)).to.equal(true);
    expect(r.body.values.elevation.map((v: Json) => v.depth)).to.deep.equal([0, 1, 2]);
    r.body.values.elevation.forEach((v: Json, i: number) => {
      expect(v.data).to.have.length(grid().subZoneCount(zone, i));
      // Values in the DGGRS's sub-zone order, the value of each sub-zone its own (the row view keys by zone id).
      grid().subZones(zone, i).forEach((z, k) => expect(r.body.data[z].elevation).to.equal(v.data[k]));
    });
    // Nulls are JSON null: a zone of the collection off its raster.
    const off = await ok(`/collections/${RASTER}/dggs/IVEA7H/zones/${grid().zoneFromPoint(16.2, 48.2, 4)}/data?zone-depth=2`);
    expect(off.values.elevation[0].data).to.include(null);
  });

  abstractTest('data-ubjson', '/conf/data-ubjson/content', async () => {
    const zone = zoneAt(3);
    const url = `/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data?zone-depth=0,2`;
    const json = await ok(url);
    for (const accept of ['application/ubjson', 'application/vnd.ogc.dggs+ubjson']) {
      const r = await get(url, accept);
      expect(r.status).to.equal(200);
      expect(r.type).to.equal(accept);
      const doc = decodeUbjson(r.bytes.buffer.slice(r.bytes.byteOffset, r.bytes.byteOffset + r.bytes.byteLength) as ArrayBuffer) as Json;
      expect(validateDggsJson(doc), JSON.stringify(validateDggsJson.errors)).to.equal(true);
      expect(doc.values).to.deep.equal(json.values);
      expect(doc.depths).to.deep.equal([0, 2]);
      expect(doc.zones).to.deep.equal(json.zones);
    }
    const off = await get(`/collections/${RASTER}/dggs/IVEA7H/zones/${grid().zoneFromPoint(16.2, 48.2, 4)}/data?zone-depth=2`, 'application/ubjson');
    const doc = decodeUbjson(off.bytes.buffer.slice(off.bytes.byteOffset, off.bytes.byteOffset + off.bytes.byteLength) as ArrayBuffer) as Json;
    expect(doc.values.elevation[0].data).to.include(null);
  });

  abstractTest('data-dggs-jsonfg', '/conf/data-dggs-jsonfg/content', async () => {
    const zone = zoneAt(3);
    const depth = 3;
    const base = `/collections/${LAKE}/dggs/IVEA7H/zones/${zone}/data?zone-depth=${depth}&datetime=2024-01-05T00:00:00Z/2024-01-05T03:00:00Z`;
    const subZones = grid().subZones(zone, depth);
    const level = grid().zoneLevel(zone) + depth;
    for (const profile of ['jsonfg-dggs', 'jsonfg-dggs-plus', 'jsonfg-dggs-zoneids', 'jsonfg-dggs-zoneids-plus']) {
      const r = await get(`${base}&profile=${profile}`, 'application/geo+json');
      expect(r.status, profile).to.equal(200);
      expect(r.type).to.match(/^application\/geo\+json/);
      const fc = r.body;
      // The same answer negotiated by the media type's profile parameter alone (URI or bare name).
      for (const named of [`"https://www.opengis.net/def/profile/ogc/0/${profile}"`, profile]) {
        const viaAccept = await get(base, `application/geo+json; profile=${named}`);
        expect(viaAccept.status, named).to.equal(200);
        expect(viaAccept.headers.get('link')).to.equal(`<https://www.opengis.net/def/profile/ogc/0/${profile}>; rel="profile"`);
        expect(viaAccept.body).to.deep.equal(fc);
      }
      expect(fc.type).to.equal('FeatureCollection');
      expect(fc.conformsTo).to.include(`${DGGS}/data-dggs-jsonfg`);
      expect(fc).to.include({ dggrs: '[ogc-dggrs:IVEA7H]', zoneId: zone, depth });
      expect(link(fc, 'profile').href).to.equal(`https://www.opengis.net/def/profile/ogc/0/${profile}`);
      expect(fc.features).to.not.be.empty;
      const plus = profile.endsWith('-plus');
      for (const f of fc.features) {
        expect(f.dggsPlace.type).to.equal('Point');
        const c = f.dggsPlace.coordinates;
        const subZone = profile.includes('zoneids') ? c : subZones[c - 1];
        expect(subZones).to.include(subZone);
        if (plus) {
          // The sub-zone named is the one holding the feature's position.
          expect(grid().zoneFromPoint(f.geometry.coordinates[0], f.geometry.coordinates[1], level)).to.equal(subZone);
        } else {
          expect(f.geometry).to.equal(null);
        }
        expect(f.properties.station_id).to.be.a('string');
        expect(f.time.instant >= '2024-01-05T00:00:00' && f.time.instant <= '2024-01-05T03:00:00.000Z').to.equal(true);
      }
    }
  });

  abstractTest('data-geojson', '/conf/data-geojson/content', async () => {
    const zone = zoneAt(3);
    const r = await get(`/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data?zone-depth=1`, 'application/geo+json');
    expect(r.status).to.equal(200);
    expect(r.body.type).to.equal('FeatureCollection');
    const parent = grid().describeZone(zone).bbox;
    for (const f of r.body.features) {
      const ring = f.geometry.type === 'Polygon' ? f.geometry.coordinates[0] : f.geometry.coordinates[0][0];
      // CRS84: longitudes first, all near the zone.
      for (const [lon, lat] of ring) expect(lon >= parent[0] - 2 && lon <= parent[2] + 2 && lat >= parent[1] - 2 && lat <= parent[3] + 2).to.equal(true);
    }
  });

  abstractTest('zone-html', '/conf/zone-html/content', async () => {
    const b = await ok('/dggs/IVEA7H/zones?zone-level=1');
    const r = await get('/dggs/IVEA7H/zones?zone-level=1', 'text/html');
    expect(r.status).to.equal(200);
    expect(r.type).to.match(/^text\/html/);
    const html = r.bytes.toString('utf8');
    for (const z of b.zones) expect(html).to.contain(z);
  });

  abstractTest('zone-uint64', '/conf/zone-uint64/content', async () => {
    for (const g of grids.list()) {
      const q = `/dggs/${g.id}/zones?zone-level=${Math.min(2, g.maxRefinementLevel)}&bbox=${NORTH_SEA_BOX.join(',')}`;
      const r = await get(q, 'application/x-binary');
      if (!g.zoneToUint64) {
        expect(r.status, g.id).to.equal(406);
        continue;
      }
      expect(r.status, g.id).to.equal(200);
      expect(r.type).to.equal('application/x-binary');
      const zones = (await ok(q)).zones as string[];
      expect(r.bytes.length).to.equal(8 * (zones.length + 1));
      expect(r.bytes.readBigUInt64LE(0)).to.equal(BigInt(zones.length));
      zones.forEach((z, i) => expect(r.bytes.readBigUInt64LE(8 * (i + 1)), z).to.equal(g.zoneToUint64!(z)));
    }
  });

  abstractTest('zone-geojson', '/conf/zone-geojson/content', async () => {
    const b = await ok('/dggs/IVEA7H/zones?zone-level=1');
    const r = await get('/dggs/IVEA7H/zones?zone-level=1', 'application/geo+json');
    expect(r.body.type).to.equal('FeatureCollection');
    expect(r.body.features.map((f: Json) => f.id)).to.deep.equal(b.zones);
    for (const f of r.body.features) {
      expect(f.properties.zoneID).to.equal(f.id);
      expect(['Polygon', 'MultiPolygon']).to.include(f.geometry.type);
      expect(grid().zoneFromPoint(...(grid().describeZone(f.id).centroid), 1)).to.equal(f.id);
    }
  });

  // --- data-dggs-ubjsonfg (helper zarr-fg) ---

  abstractTest('data-dggs-ubjsonfg', '/conf/data-dggs-ubjsonfg/content', async () => {
    const zone = zoneAt(3);
    const base = `/collections/${LAKE}/dggs/IVEA7H/zones/${zone}/data?zone-depth=2&datetime=2024-01-05T00:00:00Z/2024-01-05T03:00:00Z`;
    const decode = (b: Buffer): Json => decodeUbjson(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
    const withoutLinks = ({ links: _links, ...rest }: Json) => rest;
    for (const profile of ['jsonfg-dggs', 'jsonfg-dggs-plus', 'jsonfg-dggs-zoneids', 'jsonfg-dggs-zoneids-plus']) {
      const fc = await ok(`${base}&profile=${profile}`, 'application/geo+json');
      const r = await get(`${base}&profile=${profile}`, 'application/geo+ubjson');
      expect(r.status, profile).to.equal(200);
      expect(r.type).to.equal('application/geo+ubjson');
      const doc = decode(r.bytes);
      // The DGGS-JSON-FG document of the same request, but for its own self link.
      expect(withoutLinks(doc)).to.deep.equal(withoutLinks(fc));
      expect(doc.features).to.not.be.empty;
      expect(link(doc, 'profile').href).to.equal(`https://www.opengis.net/def/profile/ogc/0/${profile}`);
      expect(link(doc, 'self').type).to.equal('application/geo+ubjson');
      expect(r.headers.get('link')).to.equal(`<https://www.opengis.net/def/profile/ogc/0/${profile}>; rel="profile"`);
      // The profile asked through the Accept header's profile parameter.
      expect(decode((await get(base, `application/geo+ubjson; profile="https://www.opengis.net/def/profile/ogc/0/${profile}"`)).bytes)).to.deep.equal(doc);
    }
    // Without a profile: the default, jsonfg-dggs; a raster collection has no features (406).
    expect(link(decode((await get(base, 'application/geo+ubjson')).bytes), 'profile').href).to.equal('https://www.opengis.net/def/profile/ogc/0/jsonfg-dggs');
    expect((await get(`/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data`, 'application/geo+ubjson')).status).to.equal(406);
  });

  // (section end)

  // --- data-geotiff and zone-geotiff (helper geotiff) ---

  abstractTest('data-geotiff', '/conf/data-geotiff/content', async () => {
    // From the DGGRS description's zone-data link template, as the abstract test's Given says.
    const description = await ok(`/collections/${RASTER}/dggs/IVEA7H`);
    const zone = zoneAt(4);
    const dataUrl = template(description, `${REL}/dggrs-zone-data`).replace('{zoneId}', encodeURIComponent(zone));
    const url = `${dataUrl}${dataUrl.includes('?') ? '&' : '?'}zone-depth=1-3`;
    const r = await get(url, 'image/tiff; application=geotiff');
    expect(r.status).to.equal(200);
    expect(r.type).to.equal('image/tiff');
    const json = await ok(url);
    const images = await readGeoTiff(r.bytes);
    // Each depth of the pyramid a separate image: the deepest at full resolution, the others reduced-resolution (overviews).
    expect(images).to.have.length(3);
    expect(images.map((i) => i.reducedResolution)).to.deep.equal([false, true, true]);
    const bbox = grid().describeZone(zone).bbox;
    for (const [k, depth] of [3, 2, 1].entries()) {
      const image = images[k]!;
      // Georeference consistent with the zone: its bounding rectangle, CRS84 as EPSG:4326 (/rec/data-geotiff/crs).
      image.bbox.forEach((v, i) => expect(v).to.be.closeTo(bbox[i]!, 1e-9));
      expect(image.geographicType).to.equal(4326);
      expect(image.metadata).to.include({ ZONE_ID: zone });
      // All selected fields, one band each; every sub-zone's value at a cell of its own; NaN (nodata) outside (/rec/data-geotiff/null-values).
      expect(image.bandDescriptions).to.deep.equal(Object.keys(json.values));
      expect(image.nodata).to.equal('nan');
      const zones = json.zones.find((z: Json) => z.depth === depth).zoneIds as string[];
      expectDepthImage(grid(), image, zones, [json.values.elevation.find((v: Json) => v.depth === depth).data]);
    }
  });

  abstractTest('zone-geotiff', '/conf/zone-geotiff/content', async () => {
    for (const id of ['IVEA7H', 'H3']) {
      const description = await ok(`/dggs/${id}`);
      const zonesUrl = link(description, `${REL}/dggrs-zone-query`).href.split('?')[0];
      const q = `${zonesUrl}?zone-level=${id === 'H3' ? 3 : 4}&bbox=${NORTH_SEA_BOX.join(',')}`;
      const r = await get(q, 'image/tiff; application=geotiff');
      expect(r.status, id).to.equal(200);
      expect(r.type).to.equal('image/tiff');
      const [image, more] = await readGeoTiff(r.bytes);
      expect(more).to.equal(undefined);
      // Pixel-Is-Area, geo-referenced in CRS84 (EPSG:4326), each zone of the list on a pixel of its own, its 64-bit id (/rec/zone-geotiff/values).
      expect(image!.rasterType).to.equal(1);
      expect(image!.geographicType).to.equal(4326);
      expectZoneIdImage(grid(id), image!, (await ok(q)).zones);
    }
  });
  // (section end)

  // --- data-png and data-jpegxl (helper png-jxl) ---
  /**
   * The zone-data URL of the DGGRS description's link template, the image in `accept` checked pixel
   * by pixel against the DGGS-JSON of the same request (support/zone-image-check.ts): the zone's
   * bounding rectangle in CRS84, a distinct cell value for every sub-zone of the zone-depth, 0 (null)
   * outside the zone, decoded with the Values-Scale and Values-Offset headers.
   */
  // Imported here, not at the top, so that the helpers' sections stay apart.
  type DecodedImage = import('../support/zone-image-check.js').DecodedImage;
  async function imageAbstractTest(accept: string, read: (bytes: Uint8Array) => Promise<DecodedImage>): Promise<void> {
    const { checkZoneImage } = await import('../support/zone-image-check.js');
    const d = await ok(`/collections/${RASTER}/dggs/IVEA7H`);
    const zone = zoneAt(4);
    const url = `${template(d, `${REL}/dggrs-zone-data`).replace('{zoneId}', zone)}?zone-depth=2`;
    const r = await get(url, accept);
    expect(r.status, r.bytes.toString('utf8').slice(0, 300)).to.equal(200);
    expect(r.type).to.equal(accept);
    const scale = Number(r.headers.get('values-scale')), offset = Number(r.headers.get('values-offset'));
    expect(r.headers.get('values-scale')).to.match(/^-?\d/);
    expect(r.headers.get('values-offset')).to.match(/^-?\d/);
    const json = await ok(url);
    const values = json.values.elevation[0].data as (number | null)[];
    checkZoneImage(grid(), zone, 2, await read(new Uint8Array(r.bytes)), scale, offset, [values]);
    // Several depths: PNG SHALL answer a 4xx; for JPEG-XL, see below.
    const several = await get(`${url.replace('zone-depth=2', 'zone-depth=1,2')}`, accept);
    expect(several.status).to.equal(400);
    expect(several.body.message).to.match(/one zone-depth/);
  }

  abstractTest('data-png', '/conf/data-png/content', async () => {
    const { decode } = await import('fast-png');
    await imageAbstractTest('image/png', async (bytes) => {
      const png = decode(bytes);
      expect(png.depth).to.equal(16);
      return png;
    });
  });

  /**
   * Our choice, and a gap: the JPEG-XL encoder (@jsquash/jxl) writes single-frame images, so the last
   * part (each depth of a zone-depth pyramid a separate image) is not met: several depths are a 400
   * here as in PNG. The rest is checked as for PNG, the image decoded by libjxl (WebAssembly).
   */
  abstractTest('data-jpegxl', '/conf/data-jpegxl/content', async () => {
    const { decodeJxl } = await import('../support/jxl-decode.js');
    await imageAbstractTest('image/jxl', decodeJxl);
  });

  // (section end)

  // --- data-netcdf and data-coveragejson (helper netcdf-covjson) ---
  abstractTest('data-netcdf', '/conf/data-netcdf/content', async () => {
    const zone = zoneAt(3);
    const url = `/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data?zone-depth=0,2`;
    const json = await ok(url);
    for (const profile of ['netcdf3-dggs', 'netcdf3-dggs-zoneids']) {
      const r = await get(`${url}&profile=${profile}`, 'application/netcdf');
      expect(r.status, profile).to.equal(200);
      expect(r.type).to.equal('application/netcdf');
      expect(r.headers.get('link')).to.equal(`<https://www.opengis.net/def/profile/ogc/0/${profile}>; rel="profile"`);
      // Classic netCDF (CDF-1 or the 64-bit offset CDF-2).
      expect(r.bytes.subarray(0, 3).toString('latin1')).to.equal('CDF');
      const nc = new NetCDFReader(r.bytes);
      const global = (name: string) => nc.globalAttributes.find((a) => a.name === name)?.value;
      // DGGS-optimized profile: profile URI, parent zone, DGGRS URI as metadata.
      expect(global('profile')).to.equal(`https://www.opengis.net/def/profile/ogc/0/${profile}`);
      expect(global('zone_id')).to.equal(zone);
      expect(global('dggrs')).to.equal(grid().uri);
      // One dimension of sub-zones per depth (and the ids' string length), no spatiotemporal dimension.
      expect(nc.dimensions.map((d) => d.name).filter((n) => !n.endsWith('_strlen'))).to.deep.equal(['zone_d0', 'zone_d2']);
      for (const [k, depth] of [0, 2].entries()) {
        const subZones = grid().subZones(zone, depth);
        const coordinates = nc.getDataVariable(`zone_d${depth}`);
        if (profile === 'netcdf3-dggs') expect(coordinates).to.deep.equal(subZones.map((_, i) => i + 1));
        else {
          const width = nc.dimensions.find((d) => d.name === `zone_d${depth}_strlen`)!.size;
          expect(subZones.map((_, i) => (coordinates as string[]).slice(i * width, (i + 1) * width).join(''))).to.deep.equal(subZones);
        }
        // Every selected field of every sub-zone, NaN where DGGS-JSON has null.
        const values = (nc.getDataVariable(`elevation_d${depth}`) as number[]).map((v) => (Number.isNaN(v) ? null : v));
        expect(values).to.deep.equal(json.values.elevation[k].data);
      }
    }
  });

  abstractTest('data-coveragejson', '/conf/data-coveragejson/content', async () => {
    const zone = zoneAt(3);
    const url = `/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data?zone-depth=0,2`;
    const json = await ok(url);
    for (const profile of ['covjson-dggs', 'covjson-dggs-zoneids']) {
      const r = await get(`${url}&profile=${profile}`, 'application/prs.coverage+json');
      expect(r.status, profile).to.equal(200);
      expect(r.type).to.match(/^application\/prs\.coverage\+json/);
      expect(r.headers.get('link')).to.equal(`<https://www.opengis.net/def/profile/ogc/0/${profile}>; rel="profile"`);
      const doc = r.body;
      // A CoverageJSON document (its JSON Schema); two depths: a CoverageCollection of one Coverage each.
      const validate = coverageJsonValidator();
      expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).to.equal(true);
      expect(doc.type).to.equal('CoverageCollection');
      expect(doc).to.include({ profile: `https://www.opengis.net/def/profile/ogc/0/${profile}`, zoneId: zone, dggrs: grid().uri });
      expect(link(doc, `${REL}/dggrs`).href).to.match(/\/dggs\/IVEA7H$/);
      expect(doc.parameters.elevation.observedProperty.label.en).to.be.a('string');
      for (const [k, depth] of [0, 2].entries()) {
        const c = doc.coverages[k];
        const subZones = grid().subZones(zone, depth);
        expect(c.type).to.equal('Coverage');
        // One axis of sub-zones, no spatiotemporal axes.
        expect(Object.keys(c.domain.axes)).to.deep.equal(['zone']);
        expect(c.domain.axes.zone.values).to.deep.equal(profile === 'covjson-dggs' ? subZones.map((_, i) => i + 1) : subZones);
        expect(c.domain.referencing[0].coordinates).to.deep.equal(['zone']);
        expect(c.domain.referencing[0].system.id).to.equal(grid().uri);
        expect(c.ranges.elevation).to.include({ type: 'NdArray', dataType: 'float' });
        expect(c.ranges.elevation.shape).to.deep.equal([subZones.length]);
        expect(c.ranges.elevation.values).to.deep.equal(json.values.elevation[k].data);
      }
    }
  });

  // (section end)

  // --- data-zarr (helper zarr-fg) ---

  abstractTest('data-zarr', '/conf/data-zarr/content', async () => {
    const { strFromU8, unzipSync } = await import('fflate');
    const zone = zoneAt(4);
    const url = `/collections/${RASTER}/dggs/IVEA7H/zones/${zone}/data?zone-depth=1,2`;
    const json = await ok(url);
    for (const profile of ['zarr2-dggs', 'zarr2-dggs-zoneids']) {
      const r = await get(`${url}&profile=${profile}`, 'application/zarr+zip');
      expect(r.status, profile).to.equal(200);
      expect(r.type).to.equal('application/zarr+zip');
      expect(r.headers.get('link')).to.equal(`<https://www.opengis.net/def/profile/ogc/0/${profile}>; rel="profile"`);
      const files = unzipSync(new Uint8Array(r.bytes));
      const meta = (name: string): Json => JSON.parse(strFromU8(files[name]!));
      // Zarr 2: the root group names the profile, the parent zone and the DGGRS.
      expect(meta('.zgroup')).to.deep.equal({ zarr_format: 2 });
      expect(meta('.zattrs')).to.include({ profile: `https://www.opengis.net/def/profile/ogc/0/${profile}`, zone_id: zone, dggrs: grid().uri });
      // Every depth asked is its own dataset (group), its one dimension the sub-zones.
      for (const [k, depth] of [1, 2].entries()) {
        const group = `depth_${depth}`;
        expect(meta(`${group}/.zgroup`)).to.deep.equal({ zarr_format: 2 });
        const subZones = grid().subZones(zone, depth);
        const coordinate = meta(`${group}/zone/.zarray`);
        expect(coordinate).to.include({ zarr_format: 2 });
        expect(coordinate.shape).to.deep.equal([subZones.length]);
        const coords = files[`${group}/zone/0`]!;
        if (profile === 'zarr2-dggs') {
          expect(coordinate.dtype).to.equal('<u4');
          expect([...new Uint32Array(coords.slice().buffer)]).to.deep.equal(subZones.map((_, i) => i + 1));
        } else {
          const width = Number(/^<U(\d+)$/.exec(coordinate.dtype)![1]);
          const points = new Uint32Array(coords.slice().buffer);
          const ids = subZones.map((_, i) => String.fromCodePoint(...points.subarray(i * width, (i + 1) * width)).replace(/\0+$/, ''));
          expect(ids).to.deep.equal(subZones);
        }
        const values = meta(`${group}/elevation/.zarray`);
        expect(values).to.include({ dtype: '<f8', fill_value: 'NaN', compressor: null });
        // One chunk holds every value: each the DGGS-JSON value of its sub-zone.
        expect(values.chunks).to.deep.equal([subZones.length]);
        expect(Object.keys(files).filter((n) => n.startsWith(`${group}/elevation/`) && !n.endsWith('.zarray') && !n.endsWith('.zattrs'))).to.deep.equal([`${group}/elevation/0`]);
        const read = [...new Float64Array(files[`${group}/elevation/0`]!.slice().buffer)].map((v) => (Number.isNaN(v) ? null : v));
        expect(read).to.deep.equal(json.values.elevation[k].data);
        expect(meta(`${group}/elevation/.zattrs`)._ARRAY_DIMENSIONS).to.deep.equal(['zone']);
      }
    }
  });

  // (section end)
});
