/**
 * Spatial filters with many-vertex literals, on the service as a child process (as
 * test/http/hardening.test.ts).
 *
 * A spatial predicate in a raster zone-list `filter` held the event loop and grew faster than
 * linearly with the literal's vertices: a zig-zag polygon of 700 vertices over 5-16°E, 44-48°N took
 * 38 s at level 6 and 277 s at level 7 with GET /conformance blocked throughout. Here each request
 * is answered, within a window, with the zones a direct evaluation keeps (or refused with a 4xx
 * naming the bound), while a concurrent GET /conformance keeps answering within 200 ms; so are items
 * of the demo stations tested against the same polygon. A list past the zones x vertices bound is
 * refused before any zone is tested, and a literal built to defeat the index (triangles fanning out
 * of one point) is refused when one comparison passes its step bound, the loop never held meanwhile.
 */
import { expect } from 'chai';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { apiErrorProblem } from '../../scripts/fuzz/checks.js';
import type { FuzzRequest, FuzzResponse } from '../../scripts/fuzz/http-client.js';
import { REPO_ROOT, startServerProcess, type ServerProcess } from '../../scripts/fuzz/server-process.js';
import type { Geometry, Position } from '../../src/domain/geometry/geojson.js';
import { ringLoc, type Pt } from '../../src/domain/geometry/planar-parts.js';
import { exhaustiveRelation, spatialRelation, type SpatialRelation } from '../../src/domain/geometry/relate.js';
import { answerUnderLoad } from '../support/under-load.js';

/** How long one request may take before the test gives up on it (the fixed service answers each in a few seconds). */
const WINDOW_MS = 30_000;
const q = encodeURIComponent;
const ZONES = '/collections/demo-elevation/dggs/IVEA7H/zones';

/** The literal that once held the loop for 38 s at level 6: a base edge along 44°N, then n - 3 teeth between 45°N and 48°N back from 16°E to 5°E. */
function zigzag(n: number): Pt[] {
  const k = n - 3;
  const ring: Pt[] = [[5, 44], [16, 44]];
  for (let i = 0; i < k; i++) ring.push([Math.round((16 - (11 * i) / (k - 1)) * 1000) / 1000, i % 2 === 0 ? 48 : 45]);
  return [...ring, ring[0]!];
}

/** Thin triangles fanning out of one point (10°E, 46°N), n vertices in all: every edge of every part meets the others there. */
function fan(n: number): string {
  const r = (v: number) => Math.round(v * 1000) / 1000;
  const parts: string[] = [];
  for (let i = 0; i < n / 4; i++) parts.push(`((10 46,${r(10 + 1.5 * Math.cos(i))} ${r(46 + 1.5 * Math.sin(i))},${r(10 + 1.5 * Math.cos(i + 0.002))} ${r(46 + 1.5 * Math.sin(i + 0.002))},10 46))`);
  return `MULTIPOLYGON(${parts.join(',')})`;
}

const wkt = (ring: Pt[]) => `POLYGON((${ring.map(([x, y]) => `${x} ${y}`).join(',')}))`;
const polygon = (ring: Pt[]): Geometry => ({ type: 'Polygon', coordinates: [ring as Position[]] });

describe('HTTP: hardening of spatial filters — prepared literals, zone walks in slices, bounds before and during the work', function () {
  this.timeout(300_000);
  let srv: ServerProcess;
  /** The demo stations: each position and its number of rows. */
  let stations: { x: number; y: number; n: number }[];

  before(async function () {
    this.timeout(120_000);
    // Request targets up to 64 KiB, for the 2,000-vertex literal (the 700-vertex zig-zag fits the default 16 KiB).
    srv = await startServerProcess({ config: { server: { maxUrlBytes: 65_536 } } });
    const c = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const rows = await c.runAndReadAll(`SELECT bbox.xmin AS x, bbox.ymin AS y, count(*) AS n FROM read_parquet('${path.join(REPO_ROOT, 'data/demo/lake/demo-stations/data/**/*.parquet')}') GROUP BY ALL`);
      stations = rows.getRowObjectsJS().map((r) => ({ x: Number(r.x), y: Number(r.y), n: Number(r.n) }));
    } finally {
      c.closeSync();
    }
  });
  after(async () => {
    await srv?.stop();
  });

  const get = (p: string): FuzzRequest => ({ method: 'GET', path: p, headers: [] });

  const answer = (req: FuzzRequest, what: string) => answerUnderLoad(srv, req, what, WINDOW_MS, 16 * 2 ** 20);

  function json(res: FuzzResponse): Record<string, any> {
    return JSON.parse(res.body.toString('utf8'));
  }

  function expectRefused(res: FuzzResponse, status: number, hint: RegExp, what: string): void {
    expect(res.status, `${what}: ${res.body.subarray(0, 400).toString()}`).to.equal(status);
    expect(apiErrorProblem(res.status, String(res.headers['content-type'] ?? ''), res.body, res.bodyBytes), `${what}: ApiError body`).to.equal(undefined);
    expect(json(res).hint, what).to.match(hint);
  }

  /** Every zone of the list with its outline, as the filter sees it (unrefined). */
  async function outlines(level: number): Promise<{ id: string; geometry: Geometry }[]> {
    const res = await answer(get(`${ZONES}?zone-level=${level}&f=geojson&refined-geometry=false&limit=10000`), `level ${level} outlines`);
    expect(res.status).to.equal(200);
    return json(res).features;
  }

  for (const level of [6, 7]) {
    for (const op of ['intersects', 'within'] as SpatialRelation[]) {
      it(`zone list at level ${level}: S_${op.toUpperCase()} with the 700-vertex zig-zag keeps the zones a direct evaluation keeps (or names the bound)`, async () => {
        const ring = zigzag(700);
        const what = `zig-zag level ${level} ${op}`;
        const res = await answer(get(`${ZONES}?zone-level=${level}&limit=10000&f=json&filter=${q(`S_${op.toUpperCase()}(geometry, ${wkt(ring)})`)}`), what);
        if (res.status !== 200) return expectRefused(res, 422, /limits\.maxSpatialZoneVertices/, what);
        const all = await outlines(level);
        expect(all.length, 'the list fits one page').to.be.below(10_000);
        const literal = polygon(ring);
        const kept = all.filter((z) => spatialRelation(op, z.geometry, literal)).map((z) => z.id);
        expect(kept.length, what).to.be.above(20);
        expect(json(res).zones, what).to.deep.equal(kept);
        // The exhaustive method, on zones across the teeth and around the polygon's ends (it takes tens of ms a zone here).
        const edgy = all.filter((z) => z.geometry.type === 'Polygon' && z.geometry.coordinates[0]!.some(([x, y]) => y! > 44.9 && y! < 45.1 && x! > 9 && x! < 10.5)).slice(0, 8);
        const ends = all.filter((z) => z.geometry.type === 'Polygon' && z.geometry.coordinates[0]!.some(([x, y]) => Math.abs(x! - 16) < 0.2 && Math.abs(y! - 46) < 1)).slice(0, 4);
        expect(edgy.length + ends.length).to.be.above(4);
        for (const z of [...edgy, ...ends]) expect(kept.includes(z.id), z.id).to.equal(exhaustiveRelation(op, z.geometry, literal));
      });
    }
  }

  it('zone list past the zones x vertices bound (level 8) is refused before any zone is tested, naming the bound', async () => {
    const res = await answer(get(`${ZONES}?zone-level=8&limit=10&f=json&filter=${q(`S_INTERSECTS(geometry, ${wkt(zigzag(700))})`)}`), 'zig-zag level 8');
    expectRefused(res, 422, /limits\.maxSpatialZoneVertices/, 'zig-zag level 8');
  });

  it('zone list with a literal of 500 triangles fanning out of one point is refused at the step bound of one comparison', async () => {
    const res = await answer(get(`${ZONES}?zone-level=5&limit=10&f=json&filter=${q(`S_INTERSECTS(geometry, ${fan(2000)})`)}`), 'fan');
    expectRefused(res, 400, /steps \(the bound\)/, 'fan');
    expect(json(res).message).to.equal('Filter too costly');
  });

  for (const op of ['within', 'intersects'] as SpatialRelation[]) {
    it(`items of the demo stations: S_${op.toUpperCase()} with the 700-vertex zig-zag matches the rows a direct evaluation matches`, async () => {
      const ring = zigzag(700);
      const res = await answer(get(`/collections/demo-stations/items?limit=1&f=json&filter=${q(`S_${op.toUpperCase()}(geometry, ${wkt(ring)})`)}`), `items ${op}`);
      if (res.status !== 200) return expectRefused(res, 400, /maxExactGeometryTests|the bound/, `items ${op}`);
      // Points: within is strictly inside the ring, intersects anywhere but outside (the plain ray, no index).
      const expected = stations.filter((s) => (op === 'within' ? ringLoc([s.x, s.y], ring, 48e-9) === 'interior' : ringLoc([s.x, s.y], ring, 48e-9) !== 'exterior')).reduce((n, s) => n + s.n, 0);
      expect(expected).to.be.above(0);
      expect(json(res).numberMatched).to.equal(expected);
    });
  }
});
