import { expect } from 'chai';
import { i7hZoneKeysFromPoints } from '../../../src/domain/dggrs/lattices/7h/i7h-zone-keys.js';
import { createIvea7h } from '../../../src/domain/dggrs/grids/ivea-grids.js';
import { createIsea7h } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { iveaProjection } from '../../../src/domain/dggrs/projections/ivea-projection.js';
import { iseaProjection } from '../../../src/domain/dggrs/projections/isea-projection.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';
import { readJsonl } from './oracle-support.js';

interface PointRecord { lat: number; lon: number; level: number; zone: string }

for (const [name, create, proj, file] of [
  ['IVEA7H', createIvea7h, iveaProjection, 'ivea7h_points.jsonl'],
  ['ISEA7H', createIsea7h, iseaProjection, 'isea7h_points.jsonl'],
] as const) {
  describe(`${name} zone keys of many points at once`, () => {
    const grid = create();

    it('gives the key zoneKeyFromPoint gives, point for point, at every key level', () => {
      const rand = mulberry32(3);
      const n = 3000;
      const lons = new Float64Array(n), lats = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        lons[i] = rand() * 360 - 180;
        lats[i] = (Math.asin(2 * rand() - 1) * 180) / Math.PI;
      }
      lats[0] = 90; lats[1] = -90; lons[2] = 180; lons[3] = -180;
      const out = new Float64Array(n);
      for (let level = 0; level <= grid.maxZoneKeyLevel; level++) {
        expect(i7hZoneKeysFromPoints(proj, lons, lats, level, out)).to.equal(n);
        for (let i = 0; i < n; i++) if (out[i] !== grid.zoneKeyFromPoint(lons[i]!, lats[i]!, level)) expect.fail(`level ${level}, point ${lons[i]},${lats[i]}`);
      }
    });

    it("names DGGAL's zone for the oracle points (keys back to ids), and NaN for points off the globe", () => {
      const records = readJsonl<PointRecord>(file).filter((r) => r.level <= grid.maxZoneKeyLevel!);
      expect(records.length).to.be.greaterThan(500);
      let agree = 0;
      for (const r of records) {
        const out = new Float64Array(1);
        i7hZoneKeysFromPoints(proj, Float64Array.of(r.lon), Float64Array.of(r.lat), r.level, out);
        if (grid.zoneIdFromKey(out[0]!, r.level) === r.zone) agree++;
      }
      // The oracle records on exact boundary ties (listed in i7h-oracle.test.ts: 4 for IVEA7H, 17 for ISEA7H) may differ.
      expect(agree).to.be.at.least(records.length - (name === 'IVEA7H' ? 4 : 17));
      const out = new Float64Array(3);
      expect(i7hZoneKeysFromPoints(proj, Float64Array.of(0, NaN, 10), Float64Array.of(91, 0, 10), 5, out)).to.equal(1);
      expect([Number.isNaN(out[0]), Number.isNaN(out[1]), Number.isNaN(out[2])]).to.deep.equal([true, true, false]);
      expect(() => i7hZoneKeysFromPoints(proj, lons1, lons1, 18, new Float64Array(1))).to.throw(RangeError);
    });
  });
}
const lons1 = new Float64Array(1);
