import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, SHARED, type TestServer } from '../support/test-server.js';
import { rfc7946Problems } from '../../src/domain/geometry/rfc7946.js';

/**
 * IVEA7H through HTTP against DGGAL's answers (test/fixtures/shared/oracle/dggal): zone lists of boxes as
 * sets, parent-zone lists in DGGAL's sub-zone order, and zone info (centroid, area, corners,
 * densified outline) within 1e-9.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
const ORACLE = path.join(SHARED, 'oracle/dggal');
const read = (name: string): Json[] =>
  fs.readFileSync(path.join(ORACLE, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const lonDiff = (a: number, b: number) => Math.abs(((a - b + 540) % 360) - 180);
const TOL = 1e-9;
/** Same position within TOL degrees (a longitude error counts along its parallel, so it vanishes at the poles). */
const near = (x: number, y: number, lon: number, lat: number) => Math.abs(y - lat) < TOL && lonDiff(x, lon) * Math.cos((lat * Math.PI) / 180) < TOL;

describe('IVEA7H over HTTP equals DGGAL', function () {
  this.timeout(120_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ grids: { enabled: ['IVEA7H', 'H3'], default: 'IVEA7H' } });
  });
  after(() => s?.close());

  const getJson = async (p: string): Promise<Json> => {
    const r = await s.get(p);
    const text = await r.text();
    expect(r.status, `${p}: ${text.slice(0, 200)}`).to.equal(200);
    return JSON.parse(text);
  };

  describe('zone lists of boxes (as sets)', () => {
    for (const rec of read('ivea7h_bbox_lists.jsonl')) {
      it(`${rec.note}: level ${rec.level}, ${rec.count} zones`, async () => {
        const [s0, w, n, e] = rec.bbox as number[];
        const body = await getJson(`/dggs/IVEA7H/zones?zone-level=${rec.level}&bbox=${w},${s0},${e},${n}`);
        expect(body.zones).to.have.length(rec.count);
        expect(new Set(body.zones)).to.deep.equal(new Set(rec.zones));
        // The GeoJSON form of the same list is valid RFC 7946.
        const fc = await getJson(`/dggs/IVEA7H/zones?zone-level=${rec.level}&bbox=${w},${s0},${e},${n}&f=geojson`);
        expect(fc.features.map((f: Json) => f.properties.zoneID)).to.deep.equal(body.zones);
        for (const f of fc.features) expect(rfc7946Problems(f.geometry), f.id).to.deep.equal([]);
      });
    }
  });

  describe('parent-zone lists (DGGAL sub-zone order)', () => {
    for (const rec of read('ivea7h_subzones.jsonl')) {
      it(`${rec.zone}: depth 1 and 2`, async () => {
        const d1 = await getJson(`/dggs/IVEA7H/zones?parent-zone=${rec.zone}`);
        expect(d1.zones).to.deep.equal(rec.depth1);
        const d2 = await getJson(`/dggs/IVEA7H/zones?parent-zone=${rec.zone}&zone-level=2`);
        expect(d2.zones).to.deep.equal(rec.depth2);
      });
    }
  });

  describe('zone info', () => {
    const points = read('ivea7h_points.jsonl');
    // Every edge case and every 3rd random record; each distinct zone once.
    const seen = new Set<string>();
    const picked = points.filter((r, i) => (r.kind === 'edge' || i % 3 === 0) && !seen.has(r.zone) && seen.add(r.zone));

    it(`centroid, area, level, shape, parents, children and neighbours of ${picked.length} zones`, async () => {
      for (const rec of picked) {
        const z = await getJson(`/dggs/IVEA7H/zones/${rec.zone}?refined-geometry=false`);
        const where = `${rec.zone}`;
        expect(z.id).to.equal(rec.zone);
        expect(z.level, where).to.equal(rec.zone_level);
        expect(z.shapeType, where).to.equal(rec.nedges === 5 ? 'pentagon' : 'hexagon');
        expect(Math.abs(z.centroid[1] - rec.centroid[0]), where).to.be.lessThan(TOL);
        // Near a pole a longitude error is a tiny distance: compare along the parallel.
        expect(lonDiff(z.centroid[0], rec.centroid[1]) * Math.cos((rec.centroid[0] * Math.PI) / 180), where).to.be.lessThan(TOL);
        expect(Math.abs(z.areaMetersSquare - rec.area_m2) / rec.area_m2, where).to.be.lessThan(TOL);
        // Corners: every DGGAL vertex is a position of the (unrefined) GeoJSON geometry.
        const polys = z.geometry.type === 'Polygon' ? [z.geometry.coordinates] : z.geometry.coordinates;
        const positions: number[][] = polys.flatMap((p: number[][][]) => p[0]);
        for (const [lat, lon] of rec.vertices as number[][]) {
          const hit = positions.some(([x, y]) => near(x!, y!, lon!, lat!));
          expect(hit, `${where} vertex ${lat},${lon}`).to.equal(true);
        }
        if (z.geometry.type === 'Polygon' && !positions.some(([, y]) => Math.abs(y!) === 90)) {
          expect(positions, where).to.have.length(rec.nedges + 1);
        }
        expect(rfc7946Problems(z.geometry), where).to.deep.equal([]);
        const hrefs = (r: string) => z.links.filter((l: Json) => l.rel === `https://www.opengis.net/def/rel/ogc/1.0/${r}`).map((l: Json) => l.href.split('/').pop());
        expect(hrefs('dggrs-zone-parent'), where).to.deep.equal(rec.parents);
        expect(new Set(hrefs('dggrs-zone-child')), where).to.deep.equal(new Set(rec.children));
        expect(new Set(hrefs('dggrs-zone-neighbor')), where).to.deep.equal(new Set(rec.neighbors));
      }
    });

    it('densified outlines follow DGGAL geom (every DGGAL position is one of ours)', async () => {
      for (const rec of read('ivea7h_geom.jsonl')) {
        const z = await getJson(`/dggs/IVEA7H/zones/${rec.zone}`);
        expect(rfc7946Problems(z.geometry), rec.zone).to.deep.equal([]);
        const ours: number[][] = (z.geometry.type === 'Polygon' ? [z.geometry.coordinates] : z.geometry.coordinates).flatMap((p: number[][][]) => p[0]);
        const theirs: number[][] = (rec.feature.geometry.type === 'Polygon' ? [rec.feature.geometry.coordinates] : rec.feature.geometry.coordinates).flatMap((p: number[][][]) => p[0]);
        let matched = 0;
        for (const [lon, lat] of theirs) {
          if (ours.some(([x, y]) => near(x!, y!, lon!, lat!))) matched++;
        }
        // Ours only adds positions (antimeridian cuts, pole closures); DGGAL's are all there.
        expect(matched, rec.zone).to.equal(theirs.length);
      }
    });
  });
});
