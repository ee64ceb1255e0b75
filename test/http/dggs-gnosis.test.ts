/**
 * GNOSISGlobalGrid on every HTTP route and in every encoding (the shared grid-routes suite), plus its own
 * cases: DGGAL's id form, polar zones drawn as their rectangles up to the pole, and antimeridian box lists.
 */
import { expect } from 'chai';
import { describeGridRoutes } from './grid-routes-suite.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

describeGridRoutes(
  'GNOSIS Global Grid on every route and encoding',
  { GNOSISGlobalGrid: { uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/GNOSISGlobalGrid', listLevel: 10, dataLevel: 5, depth: 3 } },
  (ctx) => {
    describe('GNOSISGlobalGrid specifics', () => {
      const gp = '/dggs/GNOSISGlobalGrid';

      it("answers DGGAL's example zone 5-F-42 (dgg GNOSIS zone 45,9 5) and refuses other spellings", async () => {
        const body = await ctx.getJson(`${gp}/zones/5-F-42`);
        expect(body).to.include({ id: '5-F-42', level: 5 });
        expect(body.centroid[0]).to.be.closeTo(8.4375, 1e-12);
        expect(body.centroid[1]).to.be.closeTo(46.40625, 1e-12);
        // dgg: 135210574472.425 m²
        expect(body.areaMetersSquare / 135210574472.425 - 1).to.be.closeTo(0, 1e-12);
        for (const bad of ['5-f-42', '05-F-42', '5-F-41', '1D-0-0']) {
          expect((await ctx.getJson(`${gp}/zones/${bad}`, 404)).hint, bad).to.contain('{level}-{row}-{col}');
        }
      });

      it('draws a polar zone as its rectangle up to the pole', async () => {
        const body = await ctx.getJson(`${gp}/zones/3-0-8?f=geojson`);
        const ring: [number, number][] = body.geometry.coordinates[0];
        expect(ring.filter((p) => p[1] === 90).length).to.be.at.least(2);
        expect(ring.map((p) => p[0]).sort((a, b) => a - b)).to.include.members([-90, 0]);
      });

      it("applies DGGAL's default depth 8: 65,536 sub-zones are over limits.maxSubZones, a polar zone's 43,691 are not", async () => {
        const grid = ctx.registry.get('GNOSISGlobalGrid')!;
        expect(grid.defaultDepth).to.equal(8);
        const refused = await ctx.getJson('/collections/demo-stations/dggs/GNOSISGlobalGrid/zones/5-F-42/data?f=json', 422);
        expect(refused.hint).to.contain('65536').and.contain('limits.maxSubZones');
        const polar = await ctx.getJson('/collections/demo-stations/dggs/GNOSISGlobalGrid/zones/3-0-8/data?f=json&properties=temperature');
        expect(polar.depths).to.deep.equal([8]);
        expect(polar.zones[0].zoneIds).to.have.length(43691);
        expect(polar.zones[0].zoneIds.slice(0, 50)).to.deep.equal(grid.subZones('3-0-8', 8, { offset: 0, limit: 50 }));
      });

      it('lists an antimeridian box in 64-bit id order, both sides', async () => {
        const grid = ctx.registry.get('GNOSISGlobalGrid')!;
        const body = await ctx.getJson(`${gp}/zones?bbox=175,-20,-175,-15&zone-level=4`);
        // dgg GNOSIS list 4 -bbox -20,175,-15,-175
        expect(body.zones).to.deep.equal(['4-12-0', '4-12-3F', '4-13-0', '4-13-3F']);
        expect(body.zones).to.deep.equal(grid.zonesInBBox(4, [175, -20, -175, -15]));
      });
    });
  },
);
