/**
 * The grids added after IVEA7H/ISEA7H/H3 (Z7-named 7H grids, DGGRID's IGEO7, aperture-3 grids, DGGRID's ISEA3H with Z3 ids) on every route and in
 * every encoding, plus the 3H specifics: DGGAL's togeo read-back and the default-depth bound.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, startTestServer } from '../support/test-server.js';
import { describeGridRoutes, EUROPE } from './grid-routes-suite.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const NEW_GRIDS: Record<string, { uri: string; listLevel: number; dataLevel: number; depth: number; sibling?: string }> = {
  IVEA7H_Z7: { uri: 'https://github.com/ecere/dggal#icosahedral-vertex-oriented-great-circle-equal-area-ivea-projection', listLevel: 7, dataLevel: 3, depth: 2, sibling: 'IVEA7H' },
  ISEA7H_Z7: { uri: 'https://github.com/ecere/dggal#icosahedral-snyder-equal-area-isea-projection', listLevel: 7, dataLevel: 3, depth: 2, sibling: 'ISEA7H' },
  IGEO7: { uri: 'https://github.com/sahrk/DGGRID', listLevel: 7, dataLevel: 3, depth: 2 },
  IVEA3H: { uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/IVEA3H', listLevel: 12, dataLevel: 8, depth: 4 },
  ISEA3H: { uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/ISEA3H', listLevel: 12, dataLevel: 8, depth: 4 },
  ISEA3H_Z3: { uri: 'https://github.com/sahrk/DGGRID', listLevel: 12, dataLevel: 8, depth: 4 },
};

describeGridRoutes('new grids on every route and encoding', NEW_GRIDS, (ctx, IDS) => {
  describe("3H zone data read back by DGGAL's dgg togeo (fixtures/dggal/i3h-togeo.json)", () => {
    const togeo = JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/dggal/i3h-togeo.json'), 'utf8')) as {
      cases: { grid: string; zone: string; depth: number; features: { zoneID: string; temperature: number | null; ring: [number, number][] }[] }[];
    };
    for (const c of togeo.cases) {
      it(`${c.grid} ${c.zone}: DGGAL decodes our DGGS-JSON into our refined GeoJSON (ids, order, values, outlines)`, async () => {
        if (!IDS.includes(c.grid)) throw new Error(`${c.grid} is not among the grids under test`);
        const p = `/collections/demo-stations/dggs/${c.grid}/zones/${c.zone}/data?zone-depth=${c.depth}&properties=temperature`;
        const dj = await ctx.getJson(`${p}&f=dggs%2Bjson`);
        expect(dj.zones[0].zoneIds).to.deep.equal(c.features.map((f) => f.zoneID));
        const values: (number | null)[] = dj.values.temperature[0].data;
        // dgg prints 15 significant digits.
        values.forEach((v, i) => {
          const e = c.features[i]!.temperature;
          if (e === null || v === null) expect(v, c.features[i]!.zoneID).to.equal(e);
          else expect(v).to.be.closeTo(e, 1e-12 * Math.max(1, Math.abs(e)));
        });
        const fc = await ctx.getJson(`${p}&f=geo%2Bjson&refined-geometry=true`);
        expect(fc.features.map((f: Json) => f.properties.zone_id)).to.deep.equal(c.features.map((f) => f.zoneID));
        fc.features.forEach((f: Json, i: number) => {
          const ring: [number, number][] = f.geometry.coordinates[0];
          const expected = c.features[i]!.ring;
          expect(ring).to.have.length(expected.length);
          ring.forEach((q, k) => {
            expect(Math.abs(q[0] - expected[k]![0]), `${f.properties.zone_id} point ${k}`).to.be.below(1e-9);
            expect(Math.abs(q[1] - expected[k]![1]), `${f.properties.zone_id} point ${k}`).to.be.below(1e-9);
          });
        });
      });
    }
  });
  describe("3H zone data at the default depth (DGGAL's 10: 59,293 sub-zones per hexagon)", () => {
    it('is refused under the default limits.maxSubZones (50,000), naming the bound, and served when the bound allows it', async () => {
      const grid = ctx.registry.get('IVEA3H')!;
      const zone = grid.zoneFromPoint(...EUROPE, 7);
      expect(grid.defaultDepth).to.equal(10);
      const refused = await ctx.getJson(`/collections/demo-stations/dggs/IVEA3H/zones/${zone}/data?f=json`, 422);
      expect(refused.hint).to.contain('59293').and.contain('limits.maxSubZones');
      const roomy = await startTestServer({ grids: { enabled: ['IVEA3H'], default: 'IVEA3H' }, limits: { maxSubZones: 60_000 } });
      try {
        const r = await roomy.get(`/collections/demo-stations/dggs/IVEA3H/zones/${zone}/data?f=json&properties=temperature`);
        expect(r.status).to.equal(200);
        const body = (await r.json()) as Json;
        expect(body.depths).to.deep.equal([10]);
        expect(body.zones[0].zoneIds).to.have.length(grid.subZoneCount(zone, 10));
        expect(body.zones[0].zoneIds.slice(0, 100)).to.deep.equal(grid.subZones(zone, 10, { offset: 0, limit: 100 }));
      } finally {
        await roomy.close();
      }
    });
  });

});
