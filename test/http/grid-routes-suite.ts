/**
 * A grid on every route and in every encoding (shared by the per-family HTTP tests): grid description, zone lists (bbox, parent zone, paging), zone info, and zone data from
 * the three demo backings (raster, parquet lake, STAC). Expected answers come from the grid object
 * itself (the unit tests hold the grids to DGGAL) and, for the lake, from a count over the lake's rows.
 */
import { expect } from 'chai';
import type { TestServer } from '../support/test-server.js';
import { dggsJsonValidator } from '../support/dggs-json-schema.js';
import { useGridHttp, type GridHttp } from '../support/grid-http.js';
import { rfc7946Problems, type ZonePolygon } from '../../src/domain/geometry/rfc7946.js';
import type { Dggrs, GridRegistry } from '../../src/ports/grid-registry.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
const REL = 'https://www.opengis.net/def/rel/ogc/1.0';

/**
 * Per grid: the OGC definition (or DGGAL's where OGC registers none), the level listed in BOX, the
 * level of the zone whose data is asked, and the depth asked.
 */
const BOX = [8, 45, 9, 46] as const;
/** Inside demo-elevation and demo-ndvi ([5, 44, 16, 48]). */
export const ALPS: [number, number] = [9.5, 46.2];
/** In the middle of the demo stations ([-10, 35, 30, 60]). */
export const EUROPE: [number, number] = [10, 50];



export interface GridRouteCase {
  /** OGC definition, or DGGAL's where OGC registers none. */
  uri: string;
  /** Level listed in the test box (enough zones to page through). */
  listLevel: number;
  /** Level of the zone whose data is asked. */
  dataLevel: number;
  /** Relative depth asked. */
  depth: number;
  /** A grid with the same zones under other names: the same values in the same order. */
  sibling?: string;
}

/** What the suite's server and helpers are, for tests a family adds of its own. */
export interface GridRouteContext {
  s: TestServer;
  registry: GridRegistry;
  getJson(p: string, status?: number): Promise<Json>;
}

export function describeGridRoutes(title: string, NEW_GRIDS: Record<string, GridRouteCase>, extra?: (ctx: GridRouteContext, ids: string[]) => void): void {
  const IDS = Object.keys(NEW_GRIDS);
  describe(title, function () {
  this.timeout(300_000);
  const siblings = Object.values(NEW_GRIDS).flatMap((g) => (g.sibling ? [g.sibling] : []));
  const h = useGridHttp(() => ({ grids: { enabled: [...IDS, ...new Set(siblings)], default: IDS[0] }, limits: { maxZonesPerPage: 50 } }));
  const { getJson, parquetRows } = h;
  let s: TestServer;
  let registry: GridRegistry;
  let stations: GridHttp['stations'];
  before(() => {
    ({ s, registry, stations } = h);
  });
  const validate = dggsJsonValidator();

  it('lists the new grids with their definitions, default depth and levels', async () => {
    const body = await getJson('/dggs');
    for (const id of IDS) {
      const g = body.dggrs.find((x: Json) => x.id === id);
      expect(g, id).to.not.equal(undefined);
      expect(g.uri).to.equal(NEW_GRIDS[id]!.uri);
      const d = await getJson(`/dggs/${id}`);
      const grid = registry.get(id)!;
      expect(d).to.include({ id, uri: NEW_GRIDS[id]!.uri, default_depth: grid.defaultDepth, max_refinement_level: grid.maxRefinementLevel, max_relative_depth: grid.maxRelativeDepth });
      expect(d.links.find((l: Json) => l.rel === `${REL}/dggrs-definition`).href).to.equal(NEW_GRIDS[id]!.uri);
      const html = await s.get(`/dggs/${id}?f=html`);
      expect(html.status).to.equal(200);
      expect(await html.text()).to.contain(`/dggs/${id}/zones/${encodeURIComponent(grid.zonesInBBox(0, [-180, -90, 180, 90])[0]!)}?f=html`);
    }
  });

  for (const id of IDS) {
    describe(id, () => {
      const cfg = NEW_GRIDS[id]!;
      let grid: Dggrs;
      before(() => {
        grid = registry.get(id)!;
      });
      const gp = `/dggs/${id}`;

      it('lists the zones of a bbox in the grid order, paged with next links, in every encoding', async () => {
        const level = cfg.listLevel;
        const all = grid.zonesInBBox(level, [...BOX]);
        expect(all.length).to.be.greaterThan(50);
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
        expect(html).to.contain('<svg class="map"').and.contain(`${gp}/zones/${encodeURIComponent(page[0])}?f=html`);
        expect((await parquetRows(`${q}&f=parquet`, 'application/vnd.apache.parquet')).map((r) => r.zone_id)).to.deep.equal(page);
        expect((await parquetRows(`${q}&f=geoparquet`, 'application/vnd.geo+parquet')).map((r) => r.zone_id)).to.deep.equal(page);
      });

      it('lists the sub-zones of a parent zone in the grid order, at relative depths, paged', async () => {
        const parent = grid.zoneFromPoint(...ALPS, cfg.dataLevel);
        expect((await getJson(`${gp}/zones?parent-zone=${encodeURIComponent(parent)}`)).zones).to.deep.equal(grid.subZones(parent, 1));
        const deep = grid.subZones(parent, cfg.depth);
        const body = await getJson(`${gp}/zones?parent-zone=${encodeURIComponent(parent)}&zone-level=${cfg.depth}&offset=3&limit=17`);
        expect(body.zones).to.deep.equal(deep.slice(3, 20));
        expect(body.zones.every((z: string) => grid.zoneLevel(z) === cfg.dataLevel + cfg.depth)).to.equal(true);
      });

      it('describes a zone as JSON, GeoJSON and HTML, with parents, children and neighbours', async () => {
        const zone = grid.zoneFromPoint(...ALPS, cfg.dataLevel + 1);
        const d = grid.describeZone(zone);
        const p = `${gp}/zones/${encodeURIComponent(zone)}`;
        const body = await getJson(p);
        expect(body).to.include({ id: zone, level: cfg.dataLevel + 1, shapeType: d.shape, areaMetersSquare: d.areaMetersSquare });
        expect(body.centroid).to.deep.equal(d.centroid);
        expect(rfc7946Problems(body.geometry)).to.deep.equal([]);
        const href = (z: string): string => `${s.base}${gp}/zones/${encodeURIComponent(z)}`;
        expect(body.links.filter((l: Json) => l.rel === `${REL}/dggrs-zone-parent`).map((l: Json) => l.href)).to.deep.equal(grid.parents(zone).map(href));
        expect(body.links.filter((l: Json) => l.rel === `${REL}/dggrs-zone-child`).map((l: Json) => l.href)).to.have.members(grid.children(zone).map(href));
        expect(body.links.filter((l: Json) => l.rel === `${REL}/dggrs-zone-neighbor`).map((l: Json) => l.href)).to.have.members(grid.neighbours(zone).map(href));
        const f = await getJson(`${p}?f=geojson`);
        expect(f.properties.zoneID).to.equal(zone);
        expect(rfc7946Problems(f.geometry)).to.deep.equal([]);
        const html = await (await s.get(`${p}?f=html`)).text();
        for (const n of grid.neighbours(zone)) expect(html).to.contain(`${gp}/zones/${encodeURIComponent(n)}?f=html`);
        // Polar and antimeridian zones are valid GeoJSON too.
        for (const [lon, lat, level] of [[180, 0, 2], [0, 90, 1], [0, -90, 1], [-179.9, -16, 3]] as const) {
          const z = grid.zoneFromPoint(lon, lat, level);
          expect(rfc7946Problems((await getJson(`${gp}/zones/${encodeURIComponent(z)}`)).geometry), z).to.deep.equal([]);
        }
        expect((await getJson(`${gp}/zones/not-a-zone`, 404)).hint).to.contain(grid.zoneIdForm);
      });

      it('serves raster zone data in every encoding, values in the grid sub-zone order', async () => {
        const zone = grid.zoneFromPoint(...ALPS, cfg.dataLevel);
        const p = `/collections/demo-elevation/dggs/${id}/zones/${encodeURIComponent(zone)}/data`;
        const dj = await getJson(`${p}?zone-depth=${cfg.depth}&f=dggs%2Bjson`);
        expect(validate(dj), JSON.stringify(validate.errors)).to.equal(true);
        expect(dj.zoneId).to.equal(zone);
        expect(dj.dggrs).to.equal(`[ogc-dggrs:${id}]`);
        const ids = grid.subZones(zone, cfg.depth);
        expect(dj.zones[0].zoneIds).to.deep.equal(ids);
        const values: (number | null)[] = dj.values.elevation[0].data;
        expect(values).to.have.length(ids.length);
        expect(values.filter((v) => v !== null).length).to.be.greaterThan(ids.length / 2);
        if (cfg.sibling) {
          // The same zones under their 7H names: the same values in the same order.
          const sibling = registry.get(cfg.sibling)!;
          const same = sibling.zoneFromPoint(...ALPS, cfg.dataLevel);
          const other = await getJson(`/collections/demo-elevation/dggs/${cfg.sibling}/zones/${encodeURIComponent(same)}/data?zone-depth=${cfg.depth}&f=json`);
          expect(other.values.elevation[0].data).to.deep.equal(values);
        }
        const byId = new Map(ids.map((z, i) => [z, values[i]]));
        const fc = await getJson(`${p}?zone-depth=${cfg.depth}&f=geo%2Bjson`);
        expect(fc.features).to.have.length(ids.length);
        for (const f of fc.features) {
          expect(f.properties.elevation, f.properties.zone_id).to.equal(byId.get(f.properties.zone_id));
          expect(rfc7946Problems(f.geometry)).to.deep.equal([]);
        }
        for (const [f, type] of [['parquet', 'application/vnd.apache.parquet'], ['geoparquet', 'application/vnd.geo+parquet']] as const) {
          const rows = await parquetRows(`${p}?zone-depth=${cfg.depth}&f=${f}`, type);
          expect(rows.map((r) => r.zone_id)).to.deep.equal(ids);
          expect(rows.map((r) => r.elevation)).to.deep.equal(values);
        }
        const html = await (await s.get(`${p}?zone-depth=${cfg.depth}&f=html`)).text();
        expect(html).to.contain(`>${ids[0]}</a>`);
        const json = await s.get(`${p}?zone-depth=0-1&f=json`);
        expect(json.headers.get('content-type')).to.match(/^application\/json/);
        expect(((await json.json()) as Json).zones.map((z: Json) => z.zoneIds)).to.deep.equal([[zone], grid.subZones(zone, 1)]);
      });

      it('serves STAC zone data with the grid sub-zones', async () => {
        const zone = grid.zoneFromPoint(...ALPS, cfg.dataLevel);
        const dj = await getJson(`/collections/demo-ndvi/dggs/${id}/zones/${encodeURIComponent(zone)}/data?zone-depth=1&datetime=2024-06-01T00:00:00Z/2024-06-30T00:00:00Z`);
        expect(dj.zones[0].zoneIds).to.deep.equal(grid.subZones(zone, 1));
        expect(dj.values.ndvi[0].data).to.have.length(grid.subZoneCount(zone, 1));
      });

      it('counts lake rows per sub-zone exactly as the grid places the stations', async () => {
        const zone = grid.zoneFromPoint(...EUROPE, cfg.dataLevel);
        const level = cfg.dataLevel + cfg.depth;
        const ids = grid.subZones(zone, cfg.depth);
        const expected = new Map(ids.map((z) => [z, 0]));
        for (const st of stations) {
          const z = grid.zoneFromPoint(st.x, st.y, level);
          if (expected.has(z)) expected.set(z, expected.get(z)! + st.n);
        }
        const total = [...expected.values()].reduce((a, b) => a + b, 0);
        expect(total, 'rows in the zone').to.be.greaterThan(100);
        const body = await getJson(`/collections/demo-stations/dggs/${id}/zones/${encodeURIComponent(zone)}/data?zone-depth=${cfg.depth}&properties=temperature&cog-stat=count&f=json`);
        expect(body.zones[0].zoneIds).to.deep.equal(ids);
        expect(body.values.temperature_count[0].data).to.deep.equal(ids.map((z) => expected.get(z)));
      });
    });
  }
  extra?.({ get s() { return s; }, get registry() { return registry; }, getJson }, IDS);
  });
}
