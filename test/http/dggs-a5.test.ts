/**
 * A5 on every route and in every encoding: grid description, zone lists (bbox, parent zone, paging), zone
 * info, and zone data from the four demo backings (raster, parquet lake, STAC, OGC API Features). Expected
 * answers come from the grid object (the unit tests hold it to a5-js and to the sub-zone definition), from
 * a5-js directly, and for point data from a count over the lake's rows.
 */
import { expect } from 'chai';
import * as a5 from 'a5-js';
import type { TestServer } from '../support/test-server.js';
import { dggsJsonValidator } from '../support/dggs-json-schema.js';
import { useGridHttp, type GridHttp } from '../support/grid-http.js';
import { ALPS, EUROPE } from './grid-routes-suite.js';
import { rfc7946Problems, type ZonePolygon } from '../../src/domain/geometry/rfc7946.js';
import type { Dggrs } from '../../src/ports/grid-registry.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
const REL = 'https://www.opengis.net/def/rel/ogc/1.0';
const BOX = [8, 45, 9, 46] as const;


describe('A5 on every route and encoding', function () {
  this.timeout(300_000);
  const h = useGridHttp(() => ({ grids: { enabled: ['A5', 'H3'], default: 'A5' }, limits: { maxZonesPerPage: 50 } }));
  const { getJson, parquetRows } = h;
  let s: TestServer;
  let grid: Dggrs;
  let stations: GridHttp['stations'];
  before(() => {
    ({ s, stations } = h);
    grid = h.registry.get('A5')!;
  });
  const validate = dggsJsonValidator();
  const gp = '/dggs/A5';

  it('is listed with its definition, default depth and levels; /dggs/A5 links its level-0 zones', async () => {
    const listed = (await getJson('/dggs')).dggrs.find((g: Json) => g.id === 'A5');
    expect(listed.uri).to.equal('https://a5geo.org');
    const d = await getJson(gp);
    expect(d).to.include({ id: 'A5', uri: 'https://a5geo.org', default_depth: 3, max_refinement_level: 29, max_relative_depth: 8 });
    expect(d.links.find((l: Json) => l.rel === `${REL}/dggrs-definition`).href).to.equal('https://a5geo.org');
    const html = await (await s.get(`${gp}?f=html`)).text();
    expect(html).to.contain(`${gp}/zones/${a5.u64ToHex(a5.getRes0Cells()[0]!)}?f=html`);
    // The default level (6) lists the world: 61,440 zones.
    const r = await s.get(`${gp}/zones?limit=3`);
    expect(r.headers.get('ogc-zones-total')).to.equal(String(a5.getNumCells(6)));
  });

  it('lists the zones of a bbox in id order, paged with next links, in every encoding', async () => {
    const level = 9;
    const all = grid.zonesInBBox(level, [...BOX]);
    expect(all.length).to.be.greaterThan(50);
    expect(all.map((z) => a5.getResolution(a5.hexToU64(z)))).to.satisfy((ls: number[]) => ls.every((l) => l === level));
    const got: string[] = [];
    let url: string | undefined = `${s.base}${gp}/zones?bbox=${BOX.join(',')}&zone-level=${level}&limit=40`;
    while (url) {
      const r = await fetch(url);
      expect(r.status).to.equal(200);
      expect(r.headers.get('ogc-zones-total')).to.equal(String(all.length));
      const body: Json = await r.json();
      got.push(...body.zones);
      url = body.links.find((l: Json) => l.rel === 'next')?.href;
    }
    expect(got).to.deep.equal(all);
    // Every zone whose centre is in the box is listed (a zone's extent holds its centre).
    const centred = Array.from(a5.uncompact(a5.polygonToCells([[8, 45], [9, 45], [9, 46], [8, 46], [8, 45]] as never, level)), (c) => a5.u64ToHex(c));
    expect(all).to.include.members(centred);
    const q = `${gp}/zones?bbox=${BOX.join(',')}&zone-level=${level}&offset=10&limit=20`;
    const page = (await getJson(q)).zones;
    expect(page).to.deep.equal(all.slice(10, 30));
    const fc = await getJson(`${q}&f=geo%2Bjson`);
    expect(fc.features.map((f: Json) => f.id)).to.deep.equal(page);
    for (const f of fc.features) {
      expect(f.properties.zoneID).to.equal(f.id);
      expect(rfc7946Problems(f.geometry as ZonePolygon), f.id).to.deep.equal([]);
    }
    const html = await (await s.get(`${q}&f=html`)).text();
    expect(html).to.contain('<svg class="map"').and.contain(`${gp}/zones/${page[0]}?f=html`);
    expect((await parquetRows(`${q}&f=parquet`, 'application/vnd.apache.parquet')).map((r) => r.zone_id)).to.deep.equal(page);
    expect((await parquetRows(`${q}&f=geoparquet`, 'application/vnd.geo+parquet')).map((r) => r.zone_id)).to.deep.equal(page);
  });

  it('lists the sub-zones of a parent zone: the zones whose centres a5 puts in it, at relative depths, paged', async () => {
    const parent = grid.zoneFromPoint(...ALPS, 7);
    const depth1 = (await getJson(`${gp}/zones?parent-zone=${parent}`)).zones;
    expect(depth1).to.deep.equal(Array.from(a5.uncompact(a5.cellToSubcells(a5.hexToU64(parent), 8)), (c) => a5.u64ToHex(c)));
    const deep = Array.from(a5.uncompact(a5.cellToSubcells(a5.hexToU64(parent), 10)), (c) => a5.u64ToHex(c));
    const r = await s.get(`${gp}/zones?parent-zone=${parent}&zone-level=3&offset=3&limit=17`);
    expect(r.headers.get('ogc-zones-total')).to.equal(String(deep.length));
    expect(((await r.json()) as Json).zones).to.deep.equal(deep.slice(3, 20));
    for (const z of deep) {
      const [lon, lat] = a5.cellToLonLat(a5.hexToU64(z));
      expect(grid.zoneFromPoint(lon, lat, 7), z).to.equal(parent);
    }
    expect((await getJson(`${gp}/zones?parent-zone=${parent}&zone-level=9`, 422)).hint).to.contain('8');
  });

  it('describes a zone as JSON, GeoJSON and HTML, with parent, children and neighbours', async () => {
    const zone = grid.zoneFromPoint(...ALPS, 8);
    const cell = a5.hexToU64(zone);
    const p = `${gp}/zones/${zone}`;
    const body = await getJson(p);
    expect(body).to.include({ id: zone, level: 8, shapeType: 'pentagon', areaMetersSquare: a5.cellArea(8) });
    expect(body.centroid).to.deep.equal(a5.cellToLonLat(cell));
    expect(rfc7946Problems(body.geometry)).to.deep.equal([]);
    const href = (z: string): string => `${s.base}${gp}/zones/${z}`;
    const parent = a5.u64ToHex(a5.cellToSupercell(cell, 7));
    expect(body.links.filter((l: Json) => l.rel === `${REL}/dggrs-zone-parent`).map((l: Json) => l.href)).to.deep.equal([href(parent)]);
    const children = Array.from(a5.uncompact(a5.cellToSubcells(cell, 9)), (c) => a5.u64ToHex(c));
    expect(body.links.filter((l: Json) => l.rel === `${REL}/dggrs-zone-child`).map((l: Json) => l.href)).to.have.members(children.map(href));
    const neighbours = Array.from(a5.uncompact(a5.gridDisk(cell, 1)), (c) => a5.u64ToHex(c)).filter((z) => z !== zone);
    expect(body.links.filter((l: Json) => l.rel === `${REL}/dggrs-zone-neighbor`).map((l: Json) => l.href)).to.have.members(neighbours.map(href));
    const f = await getJson(`${p}?f=geojson`);
    expect(f.properties.zoneID).to.equal(zone);
    expect(rfc7946Problems(f.geometry)).to.deep.equal([]);
    const html = await (await s.get(`${p}?f=html`)).text();
    for (const n of neighbours) expect(html).to.contain(`${gp}/zones/${n}?f=html`);
    // Polar and antimeridian zones are valid GeoJSON too, refined or not.
    for (const [lon, lat, level] of [[180, 0, 2], [0, 90, 0], [0, 90, 1], [0, -90, 1], [-179.9, -16, 3], [45, 89.99, 9]] as const) {
      const z = grid.zoneFromPoint(lon, lat, level);
      for (const refined of [true, false]) expect(rfc7946Problems((await getJson(`${gp}/zones/${z}?refined-geometry=${refined}`)).geometry), z).to.deep.equal([]);
    }
    for (const bad of ['not-a-zone', `0${zone}`, '63D9F20800000000', '0']) expect((await getJson(`${gp}/zones/${bad}`, 404)).hint, bad).to.contain(grid.zoneIdForm);
  });

  it('serves raster zone data in every encoding, values in the sub-zone order', async () => {
    const zone = grid.zoneFromPoint(...ALPS, 7);
    const p = `/collections/demo-elevation/dggs/A5/zones/${zone}/data`;
    const dj = await getJson(`${p}?f=dggs%2Bjson`);
    expect(validate(dj), JSON.stringify(validate.errors)).to.equal(true);
    expect(dj.zoneId).to.equal(zone);
    expect(dj.dggrs).to.equal('[ogc-dggrs:A5]');
    expect(dj.depths).to.deep.equal([grid.defaultDepth]);
    const ids = grid.subZones(zone, 3);
    expect(dj.zones[0].zoneIds).to.deep.equal(ids);
    const values: (number | null)[] = dj.values.elevation[0].data;
    expect(values).to.have.length(ids.length);
    expect(values.filter((v) => v !== null).length).to.be.greaterThan(ids.length / 2);
    const byId = new Map(ids.map((z, i) => [z, values[i]]));
    const fc = await getJson(`${p}?f=geo%2Bjson`);
    expect(fc.features).to.have.length(ids.length);
    for (const f of fc.features) {
      expect(f.properties.elevation, f.properties.zone_id).to.equal(byId.get(f.properties.zone_id));
      expect(rfc7946Problems(f.geometry)).to.deep.equal([]);
    }
    for (const [f, type] of [['parquet', 'application/vnd.apache.parquet'], ['geoparquet', 'application/vnd.geo+parquet']] as const) {
      const rows = await parquetRows(`${p}?f=${f}`, type);
      expect(rows.map((r) => r.zone_id)).to.deep.equal(ids);
      expect(rows.map((r) => r.elevation)).to.deep.equal(values);
    }
    const html = await (await s.get(`${p}?f=html`)).text();
    expect(html).to.contain(`>${ids[0]}</a>`);
    const json = await s.get(`${p}?zone-depth=0-1&f=json`);
    expect(json.headers.get('content-type')).to.match(/^application\/json/);
    expect(((await json.json()) as Json).zones.map((z: Json) => z.zoneIds)).to.deep.equal([[zone], grid.subZones(zone, 1)]);
  });

  it('serves STAC zone data with the A5 sub-zones', async () => {
    const zone = grid.zoneFromPoint(...ALPS, 8);
    const dj = await getJson(`/collections/demo-ndvi/dggs/A5/zones/${zone}/data?zone-depth=1&datetime=2024-06-01T00:00:00Z/2024-06-30T00:00:00Z`);
    expect(dj.zones[0].zoneIds).to.deep.equal(grid.subZones(zone, 1));
    expect(dj.values.ndvi[0].data).to.have.length(grid.subZoneCount(zone, 1));
    expect(dj.values.ndvi[0].data.some((v: number | null) => v !== null)).to.equal(true);
  });

  for (const collection of ['demo-stations', 'demo-stations-remote']) {
    it(`counts ${collection} rows per sub-zone exactly as a5 places the stations`, async () => {
      const zone = grid.zoneFromPoint(...EUROPE, 5);
      const level = 8;
      const ids = grid.subZones(zone, 3);
      const expected = new Map(ids.map((z) => [z, 0]));
      for (const st of stations) {
        const z = a5.u64ToHex(a5.lonLatToCell([st.x, st.y] as never, level));
        if (expected.has(z)) expected.set(z, expected.get(z)! + st.n);
      }
      const total = [...expected.values()].reduce((a, b) => a + b, 0);
      expect(total, 'rows in the zone').to.be.greaterThan(100);
      const body = await getJson(`/collections/${collection}/dggs/A5/zones/${zone}/data?zone-depth=3&properties=temperature&cog-stat=count&f=json`);
      expect(body.zones[0].zoneIds).to.deep.equal(ids);
      expect(body.values.temperature_count[0].data).to.deep.equal(ids.map((z) => expected.get(z)));
    });
  }

  it('keeps the zone list of a collection to the zones whose own temperature is not null: the zones with data (zone-query CQL2 filter)', async () => {
    const parent = grid.zoneFromPoint(...EUROPE, 5);
    const withRows = new Set(stations.map((st) => a5.u64ToHex(a5.lonLatToCell([st.x, st.y] as never, 7))));
    const expected = grid.subZones(parent, 2).filter((z) => withRows.has(z));
    expect(expected.length).to.be.greaterThan(0).and.lessThan(grid.subZoneCount(parent, 2));
    const body = await getJson(`/collections/demo-stations/dggs/A5/zones?parent-zone=${parent}&zone-level=2&filter=${encodeURIComponent('temperature IS NOT NULL')}`);
    expect(body.zones).to.deep.equal(expected);
  });
});
