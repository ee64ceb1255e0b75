import { expect } from 'chai';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { TOKENS } from '../../src/app/tokens.js';
import { GRID_FACTORIES } from '../../src/adapters/grids/catalog.js';
import { rfc7946Problems, type ZonePolygon } from '../../src/domain/geometry/rfc7946.js';
import { decodeWkb } from '../../src/domain/geometry/wkb.js';
import type { Dggrs, GridRegistry } from '../../src/ports/grid-registry.js';
import { runToEnd, type BBox } from '../../src/domain/dggrs/dggrs.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
const REL = 'https://www.opengis.net/def/rel/ogc/1.0';
const DGGS_CONF = 'https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf';
const GRID_IDS = Object.keys(GRID_FACTORIES);
const COLLECTION = 'demo-elevation';
/** demo-elevation's extent. */
const EXTENT = [5, 44, 16, 48] as const;
/** A box inside that extent, small enough at every grid's sample level. */
const BOX = '8,45,9,46';
const GRIDS = Object.fromEntries(GRID_IDS.map((id) => [id, GRID_FACTORIES[id]!()]));
/** The first level at which BOX holds at least `n` zones of a grid (whatever its aperture). */
const levelWith = (id: string, n: number): number => {
  const grid = GRIDS[id]!;
  let level = 0;
  while (level < grid.maxRefinementLevel && runToEnd(grid.selectZonesInBBox(level, [8, 45, 9, 46]).count(n)) < n) level++;
  return level;
};
/** A level with a handful of zones in BOX (5 for the 7H grids, 4 for H3). */
const levelOf = (id: string): number => levelWith(id, 8);
/** The first level at which a box surely holds more zones than a zone list may. */
const tooManyLevel = (id: string, box: BBox): number => {
  const grid = GRIDS[id]!;
  let level = 0;
  while (level < grid.maxRefinementLevel && grid.estimateZonesInBBox(level, box) < 4_000_000) level++;
  return level;
};

const rels = (links: Json[], rel: string) => links.filter((l) => l.rel === rel);
const oneRel = (links: Json[], rel: string) => {
  const found = rels(links, rel);
  expect(found, `link ${rel}`).to.have.length.greaterThan(0);
  return found[0];
};

describe('grid and zone routes', function () {
  this.timeout(120_000);
  let s: TestServer;
  let registry: GridRegistry;

  before(async () => {
    s = await startTestServer({ grids: { enabled: GRID_IDS, default: GRID_IDS[0] }, limits: { maxZonesPerPage: 50 } });
    registry = s.app.container.get<GridRegistry>(TOKENS.GridRegistry);
  });
  after(() => s?.close());

  async function getJson(p: string, status = 200): Promise<Json> {
    const r = await s.get(p);
    const body = await r.text();
    expect(r.status, `${p}: ${body.slice(0, 300)}`).to.equal(status);
    return JSON.parse(body);
  }

  it('declares the DGGS conformance classes and documents the routes', async () => {
    const conf = await getJson('/conformance');
    for (const c of ['core', 'root-dggs', 'collection-dggs', 'zone-query', 'zone-html', 'zone-geojson']) expect(conf.conformsTo).to.include(`${DGGS_CONF}/${c}`);
    const api = await getJson('/api/openapi.json');
    for (const p of ['/dggs', '/dggs/{dggrs_id}', '/dggs/{dggrs_id}/zones', '/dggs/{dggrs_id}/zones/{zone_id}', '/collections/{collection_id}/dggs', '/collections/{collection_id}/dggs/{dggrs_id}', '/collections/{collection_id}/dggs/{dggrs_id}/zones', '/collections/{collection_id}/dggs/{dggrs_id}/zones/{zone_id}']) {
      expect(api.paths, p).to.have.property(p);
    }
    const zoneParams = api.paths['/dggs/{dggrs_id}/zones'].get.parameters.map((x: Json) => x.name);
    expect(zoneParams).to.include.members(['bbox', 'zone-level', 'parent-zone', 'compact-zones', 'refined-geometry', 'limit', 'offset', 'f']);
    expect(Object.keys(api.paths['/dggs/{dggrs_id}/zones'].get.responses['200'].content)).to.include.members(['application/json', 'text/html', 'application/geo+json', 'application/vnd.apache.parquet', 'application/vnd.geo+parquet']);
  });

  for (const prefix of ['', `/collections/${COLLECTION}`]) {
    const scoped = prefix !== '';
    describe(scoped ? 'collection-scoped' : 'bare', () => {
      it('lists every registered grid with self and definition links', async () => {
        const body = await getJson(`${prefix}/dggs`);
        expect(body.dggrs.map((g: Json) => g.id)).to.deep.equal(GRID_IDS);
        for (const g of body.dggrs) {
          expect(g.title).to.be.a('string');
          expect(g.uri).to.be.a('string');
          expect(oneRel(g.links, 'self').href).to.equal(`${s.base}${prefix}/dggs/${g.id}`);
          expect(oneRel(g.links, `${REL}/dggrs-definition`).href).to.equal(g.uri);
        }
        expect(oneRel(body.links, 'self').href).to.contain(`${prefix}/dggs`);
        if (scoped) expect(oneRel(body.links, `${REL}/geodata`).href).to.equal(`${s.base}${prefix}`);
        else expect(oneRel(body.links, `${REL}/dataset`).href).to.equal(`${s.base}/`);
      });

      it('serves the grid list as HTML', async () => {
        const r = await s.get(`${prefix}/dggs?f=html`);
        expect(r.status).to.equal(200);
        expect(r.headers.get('content-type')).to.match(/^text\/html/);
        const html = await r.text();
        for (const id of GRID_IDS) expect(html).to.contain(`${prefix}/dggs/${id}?f=html`);
      });

      for (const id of GRID_IDS) {
        describe(id, () => {
          let grid: Dggrs;
          before(() => {
            grid = registry.get(id)!;
          });
          const gp = `${prefix}/dggs/${id}`;

          it('describes the grid (DggrsIdResponse)', async () => {
            const body = await getJson(gp);
            expect(body).to.include({ id, title: grid.title, uri: grid.uri, description: grid.description, default_depth: grid.defaultDepth, max_refinement_level: grid.maxRefinementLevel, max_relative_depth: grid.maxRelativeDepth });
            expect(body.crs).to.deep.equal([grid.crs]);
            const info = body.linkTemplates.find((t: Json) => t.rel === `${REL}/dggrs-zone-info`);
            expect(info.uriTemplate).to.equal(`${s.base}${gp}/zones/{zoneId}`);
            const data = body.linkTemplates.find((t: Json) => t.rel === `${REL}/dggrs-zone-data`);
            if (scoped) expect(data.uriTemplate).to.equal(`${s.base}${gp}/zones/{zoneId}/data`);
            else expect(data).to.equal(undefined);
            expect(oneRel(body.links, 'self').href).to.contain(gp);
            expect(oneRel(body.links, `${REL}/dggrs-definition`).href).to.equal(grid.uri);
            expect(oneRel(body.links, `${REL}/dggrs-zone-query`).href).to.equal(`${s.base}${gp}/zones`);
            if (scoped) expect(oneRel(body.links, `${REL}/geodata`).href).to.equal(`${s.base}${prefix}`);
          });

          it('describes the grid as HTML with its level-0 zones', async () => {
            const r = await s.get(`${gp}?f=html`);
            expect(r.status).to.equal(200);
            const html = await r.text();
            expect(html).to.contain(grid.title.replace(/&/g, '&amp;'));
            const level0 = grid.zonesInBBox(0, [-180, -90, 180, 90]);
            expect(html).to.contain(`${gp}/zones/${encodeURIComponent(level0[0]!)}?f=html`);
          });

          it('lists zones in a bbox: same set as the grid, one level, area and links', async () => {
            const level = levelOf(id);
            const body = await getJson(`${gp}/zones?bbox=${BOX}&zone-level=${level}&limit=100000`);
            const expected = grid.zonesInBBox(level, [8, 45, 9, 46]);
            expect(body.zones.length).to.be.greaterThan(0);
            // limit is capped at the page size (50 in this server).
            expect(body.zones).to.deep.equal(expected.slice(0, 50));
            expect(body.zones.every((z: string) => grid.zoneLevel(z) === level)).to.equal(true);
            const area = body.zones.reduce((a: number, z: string) => a + grid.describeZone(z).areaMetersSquare, 0);
            expect(body.returnedAreaMetersSquare).to.be.closeTo(area, area * 1e-12);
            expect(oneRel(body.links, `${REL}/dggrs`).href).to.equal(`${s.base}${gp}`);
            expect(oneRel(body.links, `${REL}/dggrs-definition`).href).to.equal(grid.uri);
            expect(body.linkTemplates[0].uriTemplate).to.equal(`${s.base}${gp}/zones/{zoneId}`);
            if (scoped) expect(oneRel(body.links, `${REL}/geodata`).href).to.equal(`${s.base}${prefix}`);
          });

          it('defaults zone-level to the grid default level', async () => {
            const body = await getJson(`${gp}/zones?bbox=${BOX}`);
            expect(body.zones.length).to.be.greaterThan(0);
            expect(grid.zoneLevel(body.zones[0])).to.equal(grid.defaultLevel);
          });

          it('pages long lists with next links that together give the whole list', async () => {
            const level = levelWith(id, 60);
            const all = grid.zonesInBBox(level, [8, 45, 9, 46]);
            expect(all.length).to.be.greaterThan(50);
            const got: string[] = [];
            let url: string | undefined = `${s.base}${gp}/zones?bbox=${BOX}&zone-level=${level}&limit=40`;
            let pages = 0;
            while (url) {
              const r = await fetch(url);
              expect(r.status).to.equal(200);
              expect(r.headers.get('ogc-zones-total')).to.equal(String(all.length));
              const body: Json = await r.json();
              expect(body.zones.length).to.be.at.most(40);
              got.push(...body.zones);
              url = rels(body.links, 'next')[0]?.href;
              if (url) expect(url).to.contain('bbox=8%2C45%2C9%2C46').and.to.contain(`zone-level=${level}`);
              pages++;
            }
            expect(pages).to.equal(Math.ceil(all.length / 40));
            expect(got).to.deep.equal(all);
          });

          it('lists the sub-zones of a parent zone in the grid order (zone-level is the relative depth)', async () => {
            const parent = grid.zoneFromPoint(8.5, 45.5, 3);
            const d1 = await getJson(`${gp}/zones?parent-zone=${encodeURIComponent(parent)}`);
            expect(d1.zones).to.deep.equal(grid.subZones(parent, 1));
            const d2 = await getJson(`${gp}/zones?parent-zone=${encodeURIComponent(parent)}&zone-level=2&limit=50`);
            expect(d2.zones).to.deep.equal(grid.subZones(parent, 2).slice(0, 50));
            expect(d2.zones.every((z: string) => grid.zoneLevel(z) === 5)).to.equal(true);
          });

          it('serves zone lists as GeoJSON: valid RFC 7946 features with zoneID', async () => {
            for (const box of [BOX, '170,-20,-170,-10', '-180,80,180,90']) {
              const level = box === BOX ? levelOf(id) : 1;
              const r = await s.get(`${gp}/zones?bbox=${box}&zone-level=${level}&f=geo%2Bjson`);
              if (scoped && box !== BOX) {
                // Outside the collection extent: an empty, valid list.
                expect(r.status).to.equal(200);
                expect(((await r.json()) as Json).features).to.deep.equal([]);
                continue;
              }
              expect(r.status).to.equal(200);
              expect(r.headers.get('content-type')).to.match(/^application\/geo\+json/);
              const fc: Json = await r.json();
              expect(fc.type).to.equal('FeatureCollection');
              expect(fc.features.length).to.be.greaterThan(0);
              for (const f of fc.features) {
                expect(f.type).to.equal('Feature');
                expect(f.properties.zoneID).to.equal(f.id);
                expect(rfc7946Problems(f.geometry as ZonePolygon), `${f.id}`).to.deep.equal([]);
              }
            }
            const acc = await s.get(`${gp}/zones?bbox=${BOX}&zone-level=${levelOf(id)}`, { accept: 'application/geo+json' });
            expect(acc.headers.get('content-type')).to.match(/^application\/geo\+json/);
          });

          it('serves zone lists as HTML with a map and zone links', async () => {
            const r = await s.get(`${gp}/zones?bbox=${BOX}&zone-level=${levelOf(id)}&f=html`);
            expect(r.status).to.equal(200);
            const html = await r.text();
            expect(html).to.contain('<svg class="map"');
            const first = grid.zonesInBBox(levelOf(id), [8, 45, 9, 46])[0]!;
            expect(html).to.contain(`${gp}/zones/${encodeURIComponent(first)}?f=html`);
          });

          it('serves zone lists as Parquet and GeoParquet', async () => {
            const q = `${gp}/zones?bbox=${BOX}&zone-level=${levelOf(id)}`;
            const expected = (await getJson(q)).zones;
            const dir = mkdtempSync(path.join(tmpdir(), 'zl-'));
            const conn = await (await DuckDBInstance.create()).connect();
            await conn.run('SET enable_geoparquet_conversion = false');
            try {
              for (const f of ['parquet', 'geoparquet']) {
                const r = await s.get(`${q}&f=${f}`);
                expect(r.status).to.equal(200);
                expect(r.headers.get('content-type')).to.equal(f === 'parquet' ? 'application/vnd.apache.parquet' : 'application/vnd.geo+parquet');
                const file = path.join(dir, `${f}.parquet`);
                writeFileSync(file, Buffer.from(await r.arrayBuffer()));
                const rows = (await conn.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)).getRowObjects() as Json[];
                expect(rows.map((x) => x.zone_id)).to.deep.equal(expected);
                const kv = (await conn.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${file}')`)).getRowObjects() as Json[];
                const geo = kv.find((x) => x.k === 'geo');
                if (f === 'parquet') {
                  expect(geo).to.equal(undefined);
                  continue;
                }
                const meta = JSON.parse(geo.v);
                expect(meta.version).to.equal('1.1.0');
                expect(meta.primary_column).to.equal('geometry');
                expect(meta.columns.geometry.encoding).to.equal('WKB');
                expect(meta.columns.geometry.geometry_types).to.include('Polygon');
                // DuckDB recognises the column as a geometry from the GeoParquet metadata...
                const geoConn = await (await DuckDBInstance.create()).connect();
                const types = (await geoConn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).getRowObjects() as Json[];
                geoConn.closeSync();
                expect(String(types.find((t) => t.column_name === 'geometry').column_type)).to.match(/^GEOMETRY/);
                // ...and the raw column is WKB we parse ourselves.
                const raw = (await conn.runAndReadAll(`SELECT zone_id, geometry AS wkb FROM read_parquet('${file}')`)).getRowObjects() as Json[];
                for (const row of raw) {
                  const g = decodeWkb(row.wkb.bytes) as ZonePolygon;
                  expect(['Polygon', 'MultiPolygon']).to.include(g.type);
                  expect(rfc7946Problems(g), row.zone_id).to.deep.equal([]);
                  const c = grid.describeZone(row.zone_id).centroid;
                  const ring = (g.type === 'Polygon' ? g.coordinates[0] : g.coordinates[0]![0])!;
                  expect(Math.abs(ring[0]![1]! - c[1])).to.be.lessThan(5);
                }
              }
            } finally {
              conn.closeSync();
            }
          });

          it('describes a zone (ZoneIdResponse) with OGC links', async () => {
            const zone = grid.zoneFromPoint(8.5, 45.5, 4);
            const d = grid.describeZone(zone);
            const body = await getJson(`${gp}/zones/${encodeURIComponent(zone)}`);
            expect(body).to.include({ id: zone, level: 4, shapeType: d.shape, crs: grid.crs, areaMetersSquare: d.areaMetersSquare });
            expect(body.centroid).to.deep.equal(d.centroid);
            expect(body.bbox).to.deep.equal(d.bbox);
            expect(body.geometry.type).to.equal('Polygon');
            expect(rfc7946Problems(body.geometry)).to.deep.equal([]);
            // The refined outline as the grid draws it (densified where edges curve in lon/lat; GNOSIS edges are straight there).
            expect(body.geometry.coordinates[0].length).to.equal(grid.zoneOutline(zone, true).length);
            const coarse = await getJson(`${gp}/zones/${encodeURIComponent(zone)}?refined-geometry=false`);
            expect(coarse.geometry.coordinates[0].length).to.equal(d.vertices.length + 1);
            expect(oneRel(body.links, 'self').href).to.contain(`${gp}/zones/${encodeURIComponent(zone)}`);
            expect(oneRel(body.links, `${REL}/dggrs`).href).to.equal(`${s.base}${gp}`);
            expect(rels(body.links, `${REL}/dggrs-zone-parent`).map((l: Json) => l.href)).to.deep.equal(grid.parents(zone).map((p) => `${s.base}${gp}/zones/${encodeURIComponent(p)}`));
            expect(rels(body.links, `${REL}/dggrs-zone-child`)).to.have.length(grid.children(zone).length);
            expect(rels(body.links, `${REL}/dggrs-zone-neighbor`)).to.have.length(grid.neighbours(zone).length);
            if (scoped) {
              expect(oneRel(body.links, `${REL}/dggrs-zone-data`).href).to.equal(`${s.base}${gp}/zones/${encodeURIComponent(zone)}/data`);
              // The configured local raster, as the route that serves it (not a server path).
              expect(oneRel(body.links, 'source').href).to.equal(`${s.base}/collections/${COLLECTION}/source/elevation.tif`);
            } else {
              expect(rels(body.links, 'source')).to.have.length(0);
            }
          });

          it('describes a zone as a GeoJSON Feature and as HTML', async () => {
            const zone = grid.zoneFromPoint(8.5, 45.5, 4);
            const r = await s.get(`${gp}/zones/${encodeURIComponent(zone)}?f=geojson`);
            expect(r.headers.get('content-type')).to.match(/^application\/geo\+json/);
            const f: Json = await r.json();
            expect(f.type).to.equal('Feature');
            expect(f.properties.zoneID).to.equal(zone);
            expect(f.properties.level).to.equal(4);
            expect(rfc7946Problems(f.geometry)).to.deep.equal([]);
            const h = await s.get(`${gp}/zones/${encodeURIComponent(zone)}?f=html`);
            const html = await h.text();
            expect(html).to.contain('<svg class="map"');
            for (const n of grid.neighbours(zone)) expect(html).to.contain(`${gp}/zones/${encodeURIComponent(n)}?f=html`);
            for (const p of grid.parents(zone)) expect(html).to.contain(`${gp}/zones/${encodeURIComponent(p)}?f=html`);
          });

          it('gives valid GeoJSON for zones at the antimeridian and the poles', async () => {
            for (const [lon, lat, level] of [[180, 0, 2], [-179.9, -16, 3], [0, 90, 0], [0, 90, 1], [0, -90, 1], [179.99, 65, 1]] as const) {
              const zone = grid.zoneFromPoint(lon, lat, level);
              const body = await getJson(`${gp}/zones/${encodeURIComponent(zone)}`);
              expect(rfc7946Problems(body.geometry), `${zone}`).to.deep.equal([]);
            }
          });

          it('answers errors with ApiError bodies', async () => {
            const nf = await getJson(`${prefix}/dggs/NOPE`, 404);
            expect(nf.code).to.equal(404);
            for (const g of GRID_IDS) expect(nf.hint).to.contain(g);
            const nf2 = await getJson(`${prefix}/dggs/NOPE/zones/x`, 404);
            expect(nf2.hint).to.contain(GRID_IDS[0]);
            for (const bad of ['not-a-zone', 'ZZZZZZZZZZZZZZZZZ', '%20']) {
              const z = await getJson(`${gp}/zones/${bad}`, 404);
              expect(z.message).to.equal('Zone not found');
              expect(z.hint).to.contain(grid.zoneIdForm);
            }
            const pz = await getJson(`${gp}/zones?parent-zone=nope`, 404);
            expect(pz.hint).to.contain(grid.zoneIdForm);
            for (const q of ['zone-level=abc', 'zone-level=-1', `zone-level=${grid.maxRefinementLevel + 1}`, 'bbox=1,2,3', 'bbox=0,10,5,0', 'bbox=0,0,200,10', 'limit=0', 'offset=-3', 'compact-zones=maybe', 'refined-geometry=yes']) {
              const e = await getJson(`${gp}/zones?${q}`, 422);
              expect(e.code).to.equal(422);
              expect(e.hint, q).to.be.a('string').and.not.empty;
            }
            const zone = grid.zoneFromPoint(8.5, 45.5, 2);
            const deep = await getJson(`${gp}/zones?parent-zone=${encodeURIComponent(zone)}&zone-level=${grid.maxRelativeDepth + 1}`, 422);
            expect(deep.hint).to.contain(String(grid.maxRelativeDepth));
            const c = await getJson(`${gp}/zones?compact-zones=true`, 400);
            expect(c).to.include({ code: 400 });
            expect(c.hint).to.contain('compact-zones');
            await getJson(`${gp}/zones?compact-zones=false&bbox=${BOX}`);
            const big = await getJson(`${gp}/zones?zone-level=${tooManyLevel(id, scoped ? [...EXTENT] : [-180, -90, 180, 90])}&bbox=-180,-90,180,90`, 422);
            expect(big.hint).to.contain('1,000,000');
            const f = await getJson(`${gp}/zones?f=xml`, 406);
            expect(f.hint).to.contain('geoparquet');
          });
        });
      }
    });
  }

  describe('collection scope', () => {
    it('404s an unknown collection on every grid route', async () => {
      for (const p of ['/dggs', `/dggs/${GRID_IDS[0]}`, `/dggs/${GRID_IDS[0]}/zones`, `/dggs/${GRID_IDS[0]}/zones/x`]) {
        const body = await getJson(`/collections/nope${p}`, 404);
        expect(body.message).to.equal('Collection not found');
        expect(body.hint).to.contain(COLLECTION);
      }
    });

    for (const id of GRID_IDS) {
      it(`${id}: clamps the bbox to the collection extent (intersection)`, async () => {
        const grid = registry.get(id)!;
        const level = Math.max(0, levelOf(id) - 2);
        const whole = await getJson(`/collections/${COLLECTION}/dggs/${id}/zones?zone-level=${level}&limit=100000`);
        expect(whole.zones).to.have.members(grid.zonesInBBox(level, [...EXTENT]).slice(0, 50));
        const part = await getJson(`/collections/${COLLECTION}/dggs/${id}/zones?zone-level=${level}&bbox=0,40,10,46`);
        expect(part.zones).to.deep.equal(grid.zonesInBBox(level, [5, 44, 10, 46]).slice(0, 50));
        // A box crossing the antimeridian that wraps round onto the extent.
        const wrap = await getJson(`/collections/${COLLECTION}/dggs/${id}/zones?zone-level=${level}&bbox=100,44,10,48`);
        expect(wrap.zones).to.deep.equal(grid.zonesInBBox(level, [5, 44, 10, 48]).slice(0, 50));
        const none = await getJson(`/collections/${COLLECTION}/dggs/${id}/zones?zone-level=${level}&bbox=-50,-10,-40,0`);
        expect(none.zones).to.deep.equal([]);
        expect(none.returnedAreaMetersSquare).to.equal(0);
      });
    }
  });

  describe('bare bbox edge cases', () => {
    for (const id of GRID_IDS) {
      it(`${id}: antimeridian-crossing and polar boxes list the grid's zones`, async () => {
        const grid = registry.get(id)!;
        for (const box of [[175, -20, -175, -15], [-180, 85, 180, 90], [-180, -90, 180, -85]] as const) {
          const body = await getJson(`/dggs/${id}/zones?zone-level=2&bbox=${box.join(',')}&limit=100000`);
          const expected = grid.zonesInBBox(2, [...box]);
          expect(body.zones.length).to.be.greaterThan(0);
          expect(body.zones).to.deep.equal(expected.slice(0, 50));
        }
      });
    }
  });
});
